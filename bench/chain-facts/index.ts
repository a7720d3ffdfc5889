/**
 * Time to chain facts, in round trips: the provider against the fake java-tron node over real HTTP,
 * with a fixed delay on every call. One round trip = one node call (the same client, same delay).
 * The floor is 2 for a token transfer with a cold metadata cache (tx/info/blocks in parallel, then
 * token metadata) and 1 with a warm cache or for TRX.
 *
 *   node --conditions=source --import tsx bench/chain-facts/index.ts [runs] [delayMs]
 */
import { createTronChainFactsProvider, TronNodeClient } from '@tron-safety/core';
import { startFakeTronNode, TRON_FIXTURE_TX } from '@tron-safety/core/testing';

const RUNS = Number(process.argv[2] ?? 25);
const DELAY_MS = Number(process.argv[3] ?? 50);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const node = await startFakeTronNode({ latencyMs: DELAY_MS });
const options = { fullNodeUrl: node.url, timeoutMs: 10 * DELAY_MS + 1000 };
const signal = () => AbortSignal.timeout(30_000);

// One call's round trip through the same client stack (pool, codec), connections warm.
const client = new TronNodeClient(options);
await client.getNowBlock('full', signal());
const roundTrips: number[] = [];
for (let i = 0; i < RUNS; i++) roundTrips.push(await timed(async () => client.getNowBlock('full', signal())));
await client.close();
const roundTrip = median(roundTrips);

async function measure(hash: string, cache: 'cold' | 'warm'): Promise<number> {
  const times: number[] = [];
  const warm = createTronChainFactsProvider(options);
  await warm.getTransactionFacts(hash, { signal: signal() });
  for (let i = 0; i < RUNS; i++) {
    // A cold run uses a fresh provider (empty metadata cache) whose connections were opened by a
    // call to an unrelated hash, so the figure counts round trips, not TCP handshakes.
    const provider = cache === 'warm' ? warm : createTronChainFactsProvider(options);
    if (cache === 'cold') await provider.getTransactionFacts('00'.repeat(32), { signal: signal() });
    const t = await timed(async () => {
      const r = await provider.getTransactionFacts(hash, { signal: signal() });
      if (r.isErr() || r.value.state !== 'confirmed') throw new Error(`unexpected facts: ${JSON.stringify(r)}`);
    });
    times.push(t);
    if (cache === 'cold') await provider.close();
  }
  await warm.close();
  return median(times);
}

const rows: [string, number][] = [
  ['USDT transfer, cold metadata cache', await measure(TRON_FIXTURE_TX.usdtTransfer, 'cold')],
  ['USDT transfer, warm metadata cache', await measure(TRON_FIXTURE_TX.usdtTransfer, 'warm')],
  ['TRC10 transfer, cold metadata cache', await measure(TRON_FIXTURE_TX.trc10Transfer, 'cold')],
  ['TRX transfer (no metadata)', await measure(TRON_FIXTURE_TX.trxTransfer, 'warm')],
];
await node.close();

console.log(`fake node delay ${DELAY_MS} ms per call; median of ${RUNS} runs each`);
console.log(`one call's round trip: ${roundTrip.toFixed(1)} ms`);
for (const [name, ms] of rows) {
  console.log(`${name.padEnd(38)} ${ms.toFixed(1).padStart(7)} ms   ratio ${(ms / roundTrip).toFixed(2)} round trips`);
}
