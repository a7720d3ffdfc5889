import { createRiskProviders, createSafetyService, createTronChainFactsProvider } from '@tron-safety/core';
import { createMemoryStores } from '@tron-safety/store-memory';
import { keepOfacListCurrent } from './ofac-list.js';

// One service per process: in-memory stores, TronGrid for chain facts, OFAC's list kept current for
// sanctions; with no AML vendor key every result says AML_UNAVAILABLE (never CLEAR). On shutdown:
// ofac.stop(), then service.close().
export function createService() {
  const stores = createMemoryStores();
  const ofac = keepOfacListCurrent(stores.sanctionsLists, process.env.OFAC_SDN_URL);
  const risk = createRiskProviders({
    chainalysisApiKey: process.env.CHAINALYSIS_API_KEY ?? null,
    ofacList: ofac.list, // screens with the list in use, as the refreshes replace it
  });
  if (risk.isErr()) throw new Error(`${risk.error.option}: ${risk.error.message}`);
  const chain = createTronChainFactsProvider({
    fullNodeUrl: 'https://api.trongrid.io',
    apiKey: process.env.TRON_API_KEY,
  });
  return { service: createSafetyService(stores, { chain, risk: risk.value }), ofac };
}
