// Test doubles and fixtures without node:test, so a demo or a benchmark can load them without
// the test runner (which, once loaded, takes over signals such as SIGINT).
export { fixturesDir, fixturePath } from './fixtures.js';
export * from './fake-vendors.js';
export * from './fake-ofac.js';
export * from './fake-tron-node.js';
export {
  TRON_FIXTURE_TX,
  RECORDED_FAILED_USDT_TX,
  USDT_CONTRACT,
  TRC10_FIXTURE_ASSET_ID,
  buildTronTransaction,
  transferLog,
  internalTransaction,
  loadTronFixtures,
  type BuildTransactionInput,
  type FakeTronTransaction,
} from './fake-tron-fixtures.js';
export * from './service-harness.js';
