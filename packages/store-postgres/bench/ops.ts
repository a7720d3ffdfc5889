// Throughput of the runtime's per-check store steps on PostgreSQL (3 pools = 3 hosts, one
// database) against store-memory, on this machine. Prints ops/s per step and the ratio.
// Run: node --conditions=source --import tsx packages/store-postgres/bench/ops.ts
// Uses TEST_DATABASE_URL when set, else a throwaway cluster (see test/postgres.ts).
import { randomUUID } from 'node:crypto';
import type { SafetyStores } from '@tron-safety/core';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createPostgresStores, migrate } from '../src/index.js';
import { startTestPostgres } from '@tron-safety/store-postgres/testing';

const OPS = Number(process.env.BENCH_OPS ?? 2000);
const CONCURRENCY = 30;
const HOUR = 3_600_000;

type Step = (stores: SafetyStores, org: string, i: number) => Promise<unknown>;
const steps: Record<string, Step> = {
  'rate hit': (s, org) =>
    s.limits.hitRate({ organizationId: org, windowStart: new Date(0), limit: 1e9, now: new Date() }),
  'slot acquire + release': async (s, org, i) => {
    const now = new Date();
    await s.limits.acquireSlot({
      organizationId: org,
      slotId: `s${i}`,
      limit: 1e6,
      now,
      expiresAt: new Date(now.getTime() + HOUR),
    });
    await s.limits.releaseSlot({ organizationId: org, slotId: `s${i}` });
  },
  'idempotency begin + complete': async (s, org, i) => {
    const now = new Date();
    const scope = { organizationId: org, key: `k${i}` };
    await s.idempotency.begin(scope, {
      fingerprint: 'f',
      owner: 'o',
      now,
      leaseExpiresAt: new Date(now.getTime() + HOUR),
    });
    await s.idempotency.complete(scope, {
      owner: 'o',
      response: { status: 200, headers: {}, body: '{}' },
      now,
      retainUntil: new Date(now.getTime() + HOUR),
    });
  },
  'quota reserve + commit': async (s, org) => {
    const now = new Date();
    const reservationId = randomUUID();
    await s.quota.reserve({
      organizationId: org,
      period: '2026-01',
      limit: 1e9,
      reservationId,
      now,
      expiresAt: new Date(now.getTime() + HOUR),
    });
    await s.quota.commit({ organizationId: org, reservationId, now });
  },
};

/** ops/s of `step` over `hosts`, CONCURRENCY callers at a time, all for one organization (the hot case). */
async function measure(hosts: SafetyStores[], step: Step): Promise<number> {
  const org = randomUUID();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      for (let i = next++; i < OPS; i = next++) await step(hosts[worker % hosts.length]!, org, i);
    }),
  );
  return OPS / ((performance.now() - started) / 1000);
}

const server = await startTestPostgres();
if (server.skip) {
  console.log(server.skip);
  process.exit(0);
}
const database = await server.createDatabase();
await migrate(database.pool(1));
const postgres = [0, 1, 2].map(() => createPostgresStores({ pool: database.pool(10) }));
const memory = [createMemoryStores()];
console.log(`${OPS} operations per step, ${CONCURRENCY} concurrent callers, one organization; PostgreSQL over 3 pools`);
for (const [name, step] of Object.entries(steps)) {
  const pg = await measure(postgres, step);
  const mem = await measure(memory, step);
  console.log(
    `${name.padEnd(30)} postgres ${pg.toFixed(0).padStart(6)}/s   memory ${mem.toFixed(0).padStart(7)}/s   ratio ${(mem / pg).toFixed(0)}x`,
  );
}
await database.drop();
await server.stop();
