import { createRiskProviders, createSafetyService, createTronChainFactsProvider } from '@tron-safety/core';
import { createMemoryStores } from '@tron-safety/store-memory';

// One service per process: in-memory stores, TronGrid for chain facts, the bundled OFAC list for
// sanctions; with no AML vendor key every result says AML_UNAVAILABLE (never CLEAR).
export function createService() {
  const risk = createRiskProviders({ chainalysisApiKey: process.env.CHAINALYSIS_API_KEY ?? null });
  if (risk.isErr()) throw new Error(`${risk.error.option}: ${risk.error.message}`);
  const chain = createTronChainFactsProvider({
    fullNodeUrl: 'https://api.trongrid.io',
    apiKey: process.env.TRON_API_KEY,
  });
  return createSafetyService(createMemoryStores(), { chain, risk: risk.value });
}
