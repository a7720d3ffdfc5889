/**
 * Service CPU per check: `handle` over store-memory with instant in-process providers, keyed
 * checks one at a time, CPU time (user + system) per check. Run under `node --cpu-prof` to see
 * where the time goes.
 *
 *   node --conditions=source --import tsx bench/check-cpu/index.ts [checks per round, default 20000] [rounds, default 5]
 */
import { randomUUID } from 'node:crypto';
import { createSafetyService } from '@tron-safety/core';
import { checkBody, instantChain, instantRisk, seedTenant } from '@tron-safety/core/fakes';
import { createMemoryStores } from '@tron-safety/store-memory';

const CHECKS = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 5);

/** Median CPU µs per keyed check over `rounds` rounds of `checks` (after a warm-up). */
export async function cpuPerCheck(checks = CHECKS, rounds = ROUNDS): Promise<{ median: number; all: number[] }> {
  const service = createSafetyService(createMemoryStores(), { chain: instantChain(), risk: instantRisk() });
  const { apiKey } = await seedTenant(service, {
    rateLimitPerMinute: 100_000_000,
    maxConcurrentRequests: 100_000,
    monthlyQuota: 100_000_000,
  });
  const body = checkBody('0130dfde9281a48378109039ef512229d5359fbee2a8adbb17ad73aebc67ea99', {
    expected_amount: '1.5',
  });
  const run = async (n: number) => {
    const started = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const r = await service.handle({
        method: 'POST',
        path: '/v1/transaction/check',
        query: {},
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body,
      });
      if (r.status !== 200) throw new Error(`check: HTTP ${r.status} ${r.body}`);
    }
    const used = process.cpuUsage(started);
    return (used.user + used.system) / n;
  };
  await run(Math.min(5_000, checks));
  const all: number[] = [];
  for (let round = 0; round < rounds; round++) all.push(await run(checks));
  await service.close();
  const sorted = [...all].sort((a, b) => a - b);
  return { median: sorted[sorted.length >> 1]!, all };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { median, all } = await cpuPerCheck();
  console.log(
    `service CPU per check (store-memory, instant providers, keyed, one at a time): ${median.toFixed(1)} µs (rounds ${all.map((v) => v.toFixed(0)).join(', ')})`,
  );
}
