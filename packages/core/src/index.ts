export * from './contract/index.js';
export * from './tron/address.js';
export * from './tron/amount.js';
export * from './chain/facts.js';
export * from './risk/signals.js';
export * from './assessment/input.js';
export * from './runtime/http.js';
export * from './validation/index.js';
