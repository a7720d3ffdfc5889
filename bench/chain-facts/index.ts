/**
 * Time to chain facts, in round trips: the provider against the fake java-tron node over real HTTP,
 * with a fixed delay on every call. One round trip = one node call (the same client, same delay).
 * The floor is 2 for a token transfer with a cold metadata cache (tx/info/blocks in parallel, then
 * token metadata) and 1 with a warm cache or for TRX.
 *
 *   node --conditions=source --import tsx bench/chain-facts/index.ts [runs] [delayMs]
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTronChainFactsProvider, TronNodeClient } from '@tron-safety/core';
import { TRON_FIXTURE_TX } from '@tron-safety/core/fakes';

const here = dirname(fileURLToPath(import.meta.url));

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

// The fake node runs in a child process: its work must not share the measured event loop.
const child = spawn(
  process.execPath,
  ['--conditions=source', '--import', 'tsx', join(here, 'fake-node-process.ts'), String(DELAY_MS)],
  {
    stdio: ['pipe', 'pipe', 'inherit'],
  },
);
const url = await new Promise<string>((resolve, reject) => {
  child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
  child.once('exit', (code) => reject(new Error(`fake node exited with ${code}`)));
});
const options = { fullNodeUrl: url, timeoutMs: 10 * DELAY_MS + 1000 };
const signal = () => AbortSignal.timeout(30_000);

// One call's round trip through the same client stack (pool, codec), connections warm. It is
// sampled next to every facts run so both see the same machine load.
const client = new TronNodeClient(options);
await client.getNowBlock('full', signal());

async function measure(hash: string, cache: 'cold' | 'warm'): Promise<{ facts: number; roundTrip: number }> {
  const times: number[] = [];
  const roundTrips: number[] = [];
  const warm = createTronChainFactsProvider(options);
  await warm.getTransactionFacts(hash, { signal: signal() });
  for (let i = 0; i < RUNS; i++) {
    roundTrips.push(await timed(async () => client.getNowBlock('full', signal())));
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
  return { facts: median(times), roundTrip: median(roundTrips) };
}

const rows: [string, { facts: number; roundTrip: number }][] = [
  ['USDT transfer, cold metadata cache', await measure(TRON_FIXTURE_TX.usdtTransfer, 'cold')],
  ['USDT transfer, warm metadata cache', await measure(TRON_FIXTURE_TX.usdtTransfer, 'warm')],
  ['TRC10 transfer, cold metadata cache', await measure(TRON_FIXTURE_TX.trc10Transfer, 'cold')],
  ['TRX transfer (no metadata)', await measure(TRON_FIXTURE_TX.trxTransfer, 'warm')],
];
child.stdin.end();

await client.close();

console.log(`fake node delay ${DELAY_MS} ms per call (separate process); median of ${RUNS} runs each`);
for (const [name, { facts, roundTrip }] of rows) {
  console.log(
    `${name.padEnd(38)} facts ${facts.toFixed(1).padStart(6)} ms / one call ${roundTrip.toFixed(1)} ms = ${(facts / roundTrip).toFixed(2)} round trips`,
  );
}
