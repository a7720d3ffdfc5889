/**
 * Service CPU per check: `handle` over store-memory with instant in-process providers, keyed
 * checks one at a time, CPU time (user + system) per check; and the bytes a check allocates (heap
 * growth over batches of checks with no garbage collection in them), a figure far less noisy than
 * time on a shared machine. Run under `node --cpu-prof` to see where the time goes.
 *
 *   node --conditions=source --import tsx bench/check-cpu/index.ts [checks per round, default 20000] [rounds, default 5]
 */
import { randomUUID } from 'node:crypto';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { createSafetyService } from '@tron-safety/core';
import { checkBody, instantChain, instantRisk, seedTenant } from '@tron-safety/core/fakes';
import { createMemoryStores } from '@tron-safety/store-memory';

const CHECKS = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 5);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** A service with one tenant, and one keyed check of it (a fresh Idempotency-Key each time). */
async function keyedChecks(): Promise<{ check(): Promise<void>; close(): Promise<void> }> {
  const service = createSafetyService(createMemoryStores(), { chain: instantChain(), risk: instantRisk() });
  const { apiKey } = await seedTenant(service, {
    rateLimitPerMinute: 100_000_000,
    maxConcurrentRequests: 100_000,
    monthlyQuota: 100_000_000,
  });
  const body = checkBody('0130dfde9281a48378109039ef512229d5359fbee2a8adbb17ad73aebc67ea99', {
    expected_amount: '1.5',
  });
  return {
    async check() {
      const r = await service.handle({
        method: 'POST',
        path: '/v1/transaction/check',
        query: {},
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body,
      });
      if (r.status !== 200) throw new Error(`check: HTTP ${r.status} ${r.body}`);
    },
    close: () => service.close(),
  };
}

/** Median CPU µs per keyed check over `rounds` rounds of `checks` (after a warm-up). */
export async function cpuPerCheck(checks = CHECKS, rounds = ROUNDS): Promise<{ median: number; all: number[] }> {
  const { check, close } = await keyedChecks();
  const run = async (n: number) => {
    const started = process.cpuUsage();
    for (let i = 0; i < n; i++) await check();
    const used = process.cpuUsage(started);
    return (used.user + used.system) / n;
  };
  await run(Math.min(5_000, checks));
  const all: number[] = [];
  for (let round = 0; round < rounds; round++) all.push(await run(checks));
  await close();
  return { median: median(all), all };
}

/**
 * Bytes allocated per keyed check: heap growth over batches of 20 checks, median of the batches
 * that no garbage collection overlapped (a collection would hide what was allocated).
 */
export async function bytesPerCheck(batches = 400): Promise<number> {
  const { check, close } = await keyedChecks();
  const collections: [number, number][] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) collections.push([e.startTime, e.startTime + e.duration]);
  });
  observer.observe({ entryTypes: ['gc'] });
  for (let i = 0; i < 5_000; i++) await check();
  const batchSize = 20;
  const measured: { from: number; to: number; bytes: number }[] = [];
  for (let b = 0; b < batches; b++) {
    const from = performance.now();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < batchSize; i++) await check();
    const bytes = (process.memoryUsage().heapUsed - before) / batchSize;
    measured.push({ from, to: performance.now(), bytes });
  }
  await new Promise((resolve) => setTimeout(resolve, 50)); // the last gc entries are delivered
  observer.disconnect();
  await close();
  const clean = measured.filter(({ from, to }) => !collections.some(([start, end]) => start < to && end > from));
  if (clean.length < batches / 4) throw new Error('too few batches without a garbage collection');
  return median(clean.map((m) => m.bytes));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { median: perCheck, all } = await cpuPerCheck();
  console.log(
    `service CPU per check (store-memory, instant providers, keyed, one at a time): ${perCheck.toFixed(1)} µs (rounds ${all.map((v) => v.toFixed(0)).join(', ')})`,
  );
  console.log(`bytes allocated per keyed check: ${(await bytesPerCheck()).toFixed(0)}`);
}
