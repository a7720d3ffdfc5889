export { sharedDir, sharedPath } from './shared.js';
export * from './fake-vendors.js';
