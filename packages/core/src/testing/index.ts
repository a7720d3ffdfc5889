export { sharedDir, sharedPath } from './shared.js';
export * from './fake-vendors.js';
export * from './fake-tron-node.js';
export {
  TRON_FIXTURE_TX,
  RECORDED_FAILED_USDT_TX,
  USDT_CONTRACT,
  TRC10_FIXTURE_ASSET_ID,
  buildTronTransaction,
  transferLog,
  loadTronFixtures,
  type BuildTransactionInput,
  type FakeTronTransaction,
} from './fake-tron-fixtures.js';
export * from './service-harness.js';
export * from './http-conformance.js';
export { runStoreConformance, type StoreFactory } from './store-conformance.js';
