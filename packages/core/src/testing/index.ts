export * from './fakes.js';
export { runAdapterConformance, type AdapterConformanceOptions } from './adapter-conformance.js';
export * from './http-conformance.js';
export { runStoreConformance, type StoreFactory } from './store-conformance.js';
