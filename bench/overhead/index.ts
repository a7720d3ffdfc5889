/**
 * Overhead of the runtime controls: `handle` (key, organization, rate limit, concurrency slot,
 * validation, idempotency, quota, usage record, headers) over store-memory with instant
 * in-process providers, against a baseline that decodes the same request and answers it
 * through the same providers and assessment without any of those controls.
 *
 *   node --conditions=source --import tsx bench/overhead/index.ts [requests per round] [concurrency]
 */
import { randomUUID } from 'node:crypto';
import { createSafetyService, type CoreHttpRequest } from '@tron-safety/core';
import { assess, gatherSignals, selectTransfer, validateCheckRequest } from '@tron-safety/core/internal';
import { checkBody, instantChain, instantRisk, seedTenant } from '@tron-safety/core/fakes';
import { createMemoryStores } from '@tron-safety/store-memory';

const REQUESTS = Number(process.argv[2] ?? 10_000);
const CONCURRENCY = Number(process.argv[3] ?? 16);
const ROUNDS = 3;
const TX = '0130dfde9281a48378109039ef512229d5359fbee2a8adbb17ad73aebc67ea99';

const chain = instantChain();
const risk = instantRisk();
const service = createSafetyService(createMemoryStores(), { chain, risk });
const { apiKey } = await seedTenant(service, {
  rateLimitPerMinute: 10_000_000,
  maxConcurrentRequests: 10_000,
  monthlyQuota: 10_000_000,
});
const body = checkBody(TX, { expected_amount: '1.5' });

const request = (): CoreHttpRequest => ({
  method: 'POST',
  path: '/v1/transaction/check',
  query: {},
  headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
  body,
});

/** The same work without runtime controls: decode, providers, assessment, serialize. */
async function baseline(req: CoreHttpRequest): Promise<{ status: number; body: string }> {
  const validated = validateCheckRequest(req.body);
  if (validated.isErr()) return { status: 422, body: JSON.stringify(validated.error) };
  const { txHash, expectations } = validated.value;
  const ctx = { signal: new AbortController().signal };
  const facts = await chain.getTransactionFacts(txHash, ctx);
  if (facts.isErr()) return { status: 503, body: '{}' };
  const selection = selectTransfer(facts.value, expectations);
  const signals = await gatherSignals(facts.value, selection.transfer, risk, ctx);
  const result = assess({
    requestId: randomUUID(),
    txHash,
    expectations,
    facts: facts.value,
    signals,
    checkedAt: new Date(),
  });
  return result.isOk() ? { status: 200, body: JSON.stringify(result.value) } : { status: 422, body: '{}' };
}

async function run(name: string, call: (req: CoreHttpRequest) => Promise<{ status: number }>, count: number) {
  const latencies = new Float64Array(count);
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        const t0 = performance.now();
        const r = await call(request());
        latencies[i] = performance.now() - t0;
        if (r.status !== 200) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort();
  const pct = (p: number) => latencies[Math.min(count - 1, Math.floor(p * count))]!;
  if (failures > 0) throw new Error(`${name}: ${failures} requests were not 200`);
  return { name, perSecond: count / seconds, p50: pct(0.5), p99: pct(0.99) };
}

// Warm both paths (JIT, caches), then interleave rounds and keep each variant's best round:
// the least disturbed by whatever else the machine runs.
await run('warm-up', baseline, 2_000);
await run('warm-up', (req) => service.handle(req), 2_000);
const best = (a: Awaited<ReturnType<typeof run>> | null, b: Awaited<ReturnType<typeof run>>) =>
  a && a.perSecond >= b.perSecond ? a : b;
let base: Awaited<ReturnType<typeof run>> | null = null;
let full: Awaited<ReturnType<typeof run>> | null = null;
for (let round = 0; round < ROUNDS; round++) {
  base = best(base, await run('baseline', baseline, REQUESTS));
  full = best(full, await run('handle', (req) => service.handle(req), REQUESTS));
}

const row = (r: NonNullable<typeof base>) =>
  `${r.name.padEnd(9)} ${r.perSecond.toFixed(0).padStart(8)} checks/s   p50 ${r.p50.toFixed(3)} ms   p99 ${r.p99.toFixed(3)} ms`;
if (!base || !full) throw new Error('no rounds');
console.log(
  `${REQUESTS} checks per round, best of ${ROUNDS} rounds, concurrency ${CONCURRENCY}, store-memory, instant in-process providers`,
);
console.log(row(base));
console.log(row(full));
console.log(
  `ratio handle/baseline: throughput ${(full.perSecond / base.perSecond).toFixed(2)}x, p50 ${(full.p50 / base.p50).toFixed(2)}x, p99 ${(full.p99 / base.p99).toFixed(2)}x`,
);
await service.close();
