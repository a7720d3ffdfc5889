// Both stores keep the store interfaces' promises alike: a differential, model-based property test
// of store-memory against store-postgres through the calls the runtime makes (checks.begin and
// checks.finish, sweeps, key revocation and rotation, suspension, usage reads), with clocks that
// jump forward, go back and cross minute and month edges. Seeded and bounded (a few seconds); on a
// failure it prints the seed and the shrunk sequence.
//
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:55432/postgres \
//   node --conditions=source --import tsx --test packages/store-postgres/test/store-differential.test.ts
// Env to explore further: STOREDIFF_SEED (default fixed), STOREDIFF_RUNS (default 100), STOREDIFF_STEPS (default 30).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import fc from 'fast-check';
import type {
  ApiKeyRecord,
  BeginCheckOutcome,
  BeginCheckParams,
  FinishCheckOutcome,
  FinishCheckParams,
  SafetyStores,
} from '@tron-safety/core';
import { createMemoryStores } from '@tron-safety/store-memory';
import { startTestPostgres } from '@tron-safety/store-postgres/testing';
import { createPostgresStores, migrate } from '../src/index.js';

const server = await startTestPostgres();
const T0 = Date.parse('2026-03-31T23:58:40.000Z');
const LEASE_MS = 30_000;
/** How long past a lease store-memory's writes leave a claim or slot (its WRITE_RECLAIM_GRACE_MS). */
const WRITE_GRACE_MS = 60_000;

type Op =
  | { op: 'begin'; cred: 0 | 1 | 2 | 3; slot: boolean; work: 0 | 1 | 2; key: 0 | 1 | 2; fp: 0 | 1 }
  | { op: 'finish'; pick: number; commit: boolean; respond: boolean; usage: boolean; err: boolean }
  | { op: 'refinish'; pick: number }
  | { op: 'clock'; ms: number }
  | { op: 'edge'; which: 'minute' | 'month' }
  | { op: 'sweep'; limit: number }
  | { op: 'revoke' }
  | { op: 'rotate' }
  | { op: 'suspend'; active: boolean }
  | { op: 'read' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('begin' as const),
      cred: fc.constantFrom(0, 0, 0, 0, 0, 0, 1, 2, 3, 3) as fc.Arbitrary<0 | 1 | 2 | 3>,
      slot: fc.boolean(),
      work: fc.constantFrom(0, 1, 1, 1, 2) as fc.Arbitrary<0 | 1 | 2>,
      key: fc.constantFrom(0, 1, 1, 2) as fc.Arbitrary<0 | 1 | 2>,
      fp: fc.constantFrom(0, 0, 1) as fc.Arbitrary<0 | 1>,
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('finish' as const),
      pick: fc.nat(20),
      commit: fc.boolean(),
      respond: fc.boolean(),
      usage: fc.boolean(),
      err: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('refinish' as const), pick: fc.nat(20) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('clock' as const),
      ms: fc.constantFrom(
        ...[1, 999, 5_000, 29_999, 30_000, 30_001, 61_000],
        ...(process.env.STOREDIFF_BACKWARD === '0' ? [] : [-1, -2_000, -31_000]),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('edge' as const),
      which: fc.constantFrom('minute' as const, 'month' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('sweep' as const), limit: fc.constantFrom(1, 2, 1000) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'revoke' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'rotate' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('suspend' as const), active: fc.constantFrom(true, true, false) }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'read' as const }) },
);

const scenarioArb = fc.record({
  rate: fc.constantFrom(1, 2, 3, 1000),
  concurrency: fc.integer({ min: 1, max: 3 }),
  quota: fc.integer({ min: 1, max: 3 }),
  ops: fc.array(opArb, { minLength: 1, maxLength: Number(process.env.STOREDIFF_STEPS ?? 30), size: 'max' }),
});

const period = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** What begin answered, without the fields that legitimately differ (timestamps of the access rows). */
function normBegin(o: BeginCheckOutcome): unknown {
  if (o.kind !== 'admitted') return o;
  const { access, entitlements, ...rest } = o;
  return { ...rest, org: access.organization.id, status: access.organization.status, entitlements };
}

interface Pending {
  finish: FinishCheckParams;
  lastFinish: FinishCheckParams | null;
}

interface Side {
  stores: SafetyStores;
  sweep: (now: Date, limit: number) => Promise<void>;
}

/** The stores with their lease sweep: at most `limit` of each kind. */
function side(stores: SafetyStores): Side {
  const sweep = async (now: Date, limit: number) => {
    await stores.idempotency.purgeExpired(now, limit);
    await stores.quota.purgeExpired(now, limit);
    await stores.limits.purgeExpired(now, limit);
  };
  return { stores, sweep };
}

class Mismatch extends Error {}

function keyRecord(organizationId: string, id: string, hash: string, createdAt: Date): ApiKeyRecord {
  const none = { revokedAt: null, replacedBy: null, lastUsedAt: null };
  return { id, organizationId, label: 'k', hash, prefix: 'tsk_live_storedif', createdAt, ...none };
}
const stages = new Map<string, number>();

async function runScenario(
  s: { rate: number; concurrency: number; quota: number; ops: Op[] },
  mem: Side,
  pgs: Side,
  log: string[],
): Promise<void> {
  const orgId = randomUUID();
  const keyIds: string[] = [randomUUID()];
  const hashes: string[] = [(randomUUID() + randomUUID()).replaceAll('-', '')];
  const ent = {
    rateLimitPerMinute: s.rate,
    maxConcurrentRequests: s.concurrency,
    monthlyQuota: s.quota,
    enabledNetworks: ['tron'],
  };
  for (const side of [mem, pgs]) {
    await side.stores.organizations.createOrganization({
      id: orgId,
      name: 'storediff',
      status: 'active',
      assignment: { kind: 'custom', entitlements: ent },
      createdAt: new Date(T0),
      updatedAt: new Date(T0),
    });
    await side.stores.apiKeys.insertKey(keyRecord(orgId, keyIds[0]!, hashes[0]!, new Date(T0)));
  }
  let now = T0;
  const pending: Pending[] = [];
  const periods = new Set<string>([period(now)]);
  const billed = { mem: new Map<string, number>(), pg: new Map<string, number>() };
  let maxNow = now;
  /** The latest clock a sweep ran at. */
  let sweptAt = -Infinity;

  const same = (what: string, a: unknown, b: unknown) => {
    try {
      assert.deepStrictEqual(b, a);
    } catch {
      throw new Mismatch(`${what}: memory=${JSON.stringify(a)} postgres=${JSON.stringify(b)}`);
    }
  };

  const invariants = async (where: string) => {
    for (const [name, side] of [
      ['memory', mem],
      ['postgres', pgs],
    ] as const) {
      for (const p of periods) {
        const u = await side.stores.quota.getUsage({ organizationId: orgId, period: p, now: new Date(now) });
        if (u.used + u.reserved > s.quota)
          throw new Mismatch(`${where}: ${name} used+reserved ${u.used}+${u.reserved} > quota ${s.quota} in ${p}`);
      }
    }
  };

  for (const [i, op] of s.ops.entries()) {
    const at = new Date(now);
    const step = `#${i} ${JSON.stringify(op)} @${at.toISOString()}`;
    log.push(step);
    switch (op.op) {
      case 'begin': {
        const credential =
          op.cred === 3
            ? { organizationId: orgId }
            : op.cred === 2
              ? { apiKeyHash: '0'.repeat(64) }
              : { apiKeyHash: op.cred === 1 ? hashes[0]! : hashes[hashes.length - 1]! };
        const idem =
          op.key === 0
            ? null
            : {
                key: `k${op.key}`,
                fingerprint: `f${op.fp}`,
                owner: randomUUID(),
                leaseExpiresAt: new Date(now + LEASE_MS),
              };
        const params: BeginCheckParams = {
          credential,
          now: at,
          rateWindowStart: new Date(now - (now % 60_000)),
          slot: op.slot ? { slotId: randomUUID(), expiresAt: new Date(now + LEASE_MS) } : null,
          work:
            op.work === 0
              ? null
              : {
                  network: op.work === 1 ? 'tron' : 'ethereum',
                  idempotency: idem,
                  quota: { period: period(now), reservationId: randomUUID(), expiresAt: new Date(now + LEASE_MS) },
                },
        };
        const a = await mem.stores.checks.begin(params);
        const b = await pgs.stores.checks.begin(params);
        log.push(`   -> memory ${JSON.stringify(normBegin(a))}`);
        const st = a.kind === 'admitted' ? a.stage : a.kind;
        stages.set(st, (stages.get(st) ?? 0) + 1);
        same(`${step} begin`, normBegin(a), normBegin(b));
        for (const o of [a, b])
          if (o.kind === 'admitted' && o.stage === 'in_progress' && o.leaseExpiresAt.getTime() <= now)
            throw new Mismatch(`${step}: key stuck in progress past its lease ${o.leaseExpiresAt.toISOString()}`);
        if (a.kind === 'admitted' && a.stage !== 'admitted' && a.stage !== 'rate_limited' && a.stage !== 'slot_busy') {
          const holdsWork = a.stage === 'started' || a.stage === 'quota_exceeded';
          pending.push({
            lastFinish: null,
            finish: {
              organizationId: orgId,
              now: at,
              slotId: a.stage === 'in_progress' || a.stage === 'completed' ? null : (params.slot?.slotId ?? null),
              reservation:
                a.stage === 'started' ? { reservationId: params.work!.quota.reservationId, commit: false } : null,
              idempotency:
                holdsWork && idem
                  ? { key: idem.key, owner: idem.owner, response: null, retainUntil: new Date(now) }
                  : null,
              usage: null,
            },
          });
        }
        break;
      }
      case 'finish':
      case 'refinish': {
        const open = pending.filter((q) => op.op === 'refinish' || q.lastFinish === null);
        if (open.length === 0) break;
        const p = open[op.pick % open.length]!;
        let params: FinishCheckParams;
        if (op.op === 'refinish') {
          if (!p.lastFinish) break;
          params = { ...p.lastFinish, now: at };
        } else {
          params = {
            ...p.finish,
            now: at,
            reservation: p.finish.reservation && { ...p.finish.reservation, commit: op.commit },
            idempotency: p.finish.idempotency && {
              ...p.finish.idempotency,
              response: op.respond
                ? { status: 200, headers: { 'X-Request-ID': `r${i}` }, body: `{"step":${i},"u":"ü"}` }
                : null,
              retainUntil: new Date(now + 86_400_000),
            },
            usage: op.usage
              ? {
                  organizationId: orgId,
                  at,
                  network: 'tron',
                  overallState: op.err ? null : 'CLEAR',
                  coverage: op.err ? null : 'complete',
                  latencyMs: 7 + i,
                  errorCode: op.err ? 'provider_unavailable' : null,
                }
              : null,
          };
          p.lastFinish = params;
        }
        const leaseEnd = p.finish.now.getTime() + LEASE_MS;
        if (leaseEnd + WRITE_GRACE_MS <= maxNow || leaseEnd <= sweptAt) {
          // Memory's writes reclaim a claim or slot a grace past its lease, PostgreSQL only in a
          // sweep; and a bounded sweep may take different rows in each. A full sweep on both first
          // makes a finish that late comparable.
          log.push('   (full sweep on both before a finish past its lease)');
          await mem.sweep(at, Infinity);
          await pgs.sweep(at, 2_147_483_647);
        }
        log.push(`   finish ${JSON.stringify(params)}`);
        const a: FinishCheckOutcome = await mem.stores.checks.finish(params);
        const b: FinishCheckOutcome = await pgs.stores.checks.finish(params);
        log.push(`   -> memory ${JSON.stringify(a)} postgres ${JSON.stringify(b)}`);
        const fk = `finish billed=${a.billed} stored=${a.stored} repeated=${a.repeated}`;
        stages.set(fk, (stages.get(fk) ?? 0) + 1);
        same(`${step} finish`, a, b);
        for (const [name, o] of [
          ['memory', a],
          ['postgres', b],
        ] as const) {
          if (o.billed && params.idempotency && params.idempotency.response && !o.stored)
            throw new Mismatch(`${step}: ${name} billed a key's check without storing its result`);
          if (o.billed) {
            const m = name === 'memory' ? billed.mem : billed.pg;
            m.set(period(p.finish.now.getTime()), (m.get(period(p.finish.now.getTime())) ?? 0) + 1);
          }
        }
        break;
      }
      case 'clock':
        now += op.ms;
        break;
      case 'edge': {
        if (op.which === 'minute') now = now - (now % 60_000) + 60_000 - 1;
        else {
          const d = new Date(now);
          now = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - 1;
        }
        break;
      }
      case 'sweep':
        sweptAt = Math.max(sweptAt, now);
        await mem.sweep(at, op.limit);
        await pgs.sweep(at, op.limit);
        break;
      case 'revoke': {
        for (const side of [mem, pgs]) await side.stores.apiKeys.revokeKey(orgId, keyIds[keyIds.length - 1]!, at);
        // A fresh key right away: later begins with the latest key authenticate again.
        const id = randomUUID();
        const hash = (randomUUID() + randomUUID()).replaceAll('-', '');
        for (const side of [mem, pgs]) await side.stores.apiKeys.insertKey(keyRecord(orgId, id, hash, at));
        keyIds.push(id);
        hashes.push(hash);
        break;
      }
      case 'rotate': {
        const id = randomUUID();
        const hash = (randomUUID() + randomUUID()).replaceAll('-', '');
        const outs: unknown[] = [];
        for (const side of [mem, pgs]) {
          const r = await side.stores.apiKeys.rotateKey({
            organizationId: orgId,
            keyId: keyIds[keyIds.length - 1]!,
            now: at,
            replacement: keyRecord(orgId, id, hash, at),
          });
          outs.push(r.isOk());
        }
        same(`${step} rotate ok`, outs[0], outs[1]);
        if (outs[0]) {
          keyIds.push(id);
          hashes.push(hash);
        }
        break;
      }
      case 'suspend':
        for (const side of [mem, pgs])
          await side.stores.organizations.updateOrganization(orgId, {
            status: op.active ? 'active' : 'suspended',
            updatedAt: at,
          });
        break;
      case 'read':
        break;
    }
    periods.add(period(now));
    maxNow = Math.max(maxNow, now);
    // Usage reads after every step: the current month's quota and the usage days.
    const q = { organizationId: orgId, period: period(now), now: new Date(now) };
    same(`${step} getUsage(${q.period})`, await mem.stores.quota.getUsage(q), await pgs.stores.quota.getUsage(q));
    const days = { organizationId: orgId, firstDay: day(T0 - 86_400_000), lastDay: day(maxNow + 86_400_000) };
    same(
      `${step} readUsageDays`,
      await mem.stores.usage.readUsageDays(days),
      await pgs.stores.usage.readUsageDays(days),
    );
    await invariants(step);
  }
  // Final state: quota of every period seen (at a `now` inside that period's month) and billed = used.
  for (const p of periods) {
    const q = { organizationId: orgId, period: p, now: new Date(now) };
    const a = await mem.stores.quota.getUsage(q);
    const b = await pgs.stores.quota.getUsage(q);
    log.push(`   final ${p} memory=${JSON.stringify(a)} postgres=${JSON.stringify(b)}`);
    if (b.used !== (billed.pg.get(p) ?? 0))
      throw new Mismatch(`final: postgres used ${b.used} in ${p} but billed ${billed.pg.get(p) ?? 0} finishes`);
    // QuotaStore.purgeExpired: memory drops counters of ended months; postgres keeps them.
    if (p < period(now) && a.used === 0 && a.reserved === 0) continue;
    if (a.used !== (billed.mem.get(p) ?? 0))
      throw new Mismatch(`final: memory used ${a.used} in ${p} but billed ${billed.mem.get(p) ?? 0} finishes`);
    same(`final getUsage(${p})`, a, b);
  }
}

if (server.skip) {
  test('store-memory and store-postgres answer every check step alike', { skip: server.skip }, () => {});
} else {
  const database = await server.createDatabase();
  const pool = database.pool(4);
  await migrate(pool);
  after(async () => {
    await database.drop();
    await server.stop();
  });
  const pgStores = createPostgresStores({ pool });

  test('store-memory and store-postgres answer every check step alike', { timeout: 120_000 }, async () => {
    const seed = Number(process.env.STOREDIFF_SEED ?? 20_261_125);
    const numRuns = Number(process.env.STOREDIFF_RUNS ?? 100);
    console.log(`storediff seed=${seed} runs=${numRuns}`);
    let lastLog: string[] = [];
    const result = await fc.check(
      fc.asyncProperty(scenarioArb, async (s) => {
        const mem = side(createMemoryStores());
        const pgs = side(pgStores);
        // A clean slate per run: a bounded sweep must see only this run's rows, as memory does.
        await pool.query(
          'TRUNCATE idempotency_records, quota_reservations, quota_counters, concurrency_slots, rate_windows, usage_days',
        );
        const log: string[] = [`limits rate=${s.rate} concurrency=${s.concurrency} quota=${s.quota}`];
        try {
          await runScenario(s, mem, pgs, log);
        } catch (e) {
          log.push(`!! ${(e as Error).message}`);
          lastLog = log;
          throw e;
        }
      }),
      { seed, numRuns, endOnFailure: false, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: true },
    );
    if (result.failed) {
      console.log(`storediff outcomes: ${JSON.stringify([...stages].sort())}`);
      console.log(`storediff FAILED seed=${seed} path=${result.counterexamplePath}`);
      console.log('minimal sequence:\n' + lastLog.join('\n'));
      assert.fail(`seed ${seed}: ${(result.errorInstance as Error)?.message}`);
    }
  });
}
