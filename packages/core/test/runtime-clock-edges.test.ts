// A check whose answer comes after the minute or month its `begin` counted in: the usage record
// keeps the day and month the reservation names, and the answer's limit headers never describe a
// window that has ended; two hosts whose clocks are further apart than the lease bill a key once.
// Through `handle` with in-process providers (the chain moves the clock, as a slow node would), on
// store-memory and on PostgreSQL (TEST_DATABASE_URL, else skipped).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ResultAsync } from 'neverthrow';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createPostgresStores, migrate } from '@tron-safety/store-postgres';
import { startTestPostgres, type TestDatabase } from '@tron-safety/store-postgres/testing';
import type { ChainFactsProvider } from '../src/chain/facts.js';
import type { CoreHttpResponse } from '../src/runtime/http.js';
import { createSafetyService, type SafetyService } from '../src/runtime/service.js';
import type { SafetyStores } from '../src/stores/index.js';
import type { Entitlements } from '../src/stores/organizations.js';
import { confirmedTrxFacts, instantChain, instantRisk, seedTenant } from '../src/testing/service-harness.js';
import { check, failingIf, getUsage, json } from './runtime-support.js';

const server = await startTestPostgres();
let database: TestDatabase | undefined;
let migrated = false;
before(async () => {
  if (!server.skip) database = await server.createDatabase();
});
after(async () => {
  await database?.drop();
  await server.stop();
});

const KINDS: Array<{ name: string; skip?: string; stores: () => Promise<SafetyStores> }> = [
  { name: 'store-memory', stores: async () => createMemoryStores() },
  {
    name: 'store-postgres',
    skip: server.skip,
    stores: async () => {
      // One schema for the file: each test has an organization of its own.
      const stores = createPostgresStores({ pool: database!.pool(4) });
      if (!migrated) await migrate(stores.pool);
      migrated = true;
      return stores;
    },
  },
];

/** A wall clock a test sets; from the instant it was set to, it runs on at real speed. */
function settableClock(start: string) {
  let base = Date.parse(start);
  let realBase = Date.now();
  return {
    now: () => new Date(base + (Date.now() - realBase)),
    set(at: string) {
      base = Date.parse(at);
      realBase = Date.now();
    },
  };
}

/** A complete-coverage chain whose lookup takes from the clock's start to `answeredAt`. */
function chainAnsweringAt(clock: ReturnType<typeof settableClock>, answeredAt: string): ChainFactsProvider {
  const chain = instantChain({ facts: (txHash) => confirmedTrxFacts(txHash, clock.now()) });
  return {
    getTransactionFacts(txHash, ctx) {
      clock.set(answeredAt);
      return chain.getTransactionFacts(txHash, ctx);
    },
  };
}

const TX = 'ab'.repeat(32);
const KEYED = { 'idempotency-key': 'skewed-hosts' };
const unix = (iso: string) => String(Date.parse(iso) / 1000);

type Edge = { begin: string; answer: string };

async function tenantAcross(stores: SafetyStores, { begin, answer }: Edge, entitlements: Partial<Entitlements>) {
  const clock = settableClock(begin);
  const reports: string[] = [];
  const service: SafetyService = createSafetyService(
    stores,
    { chain: chainAnsweringAt(clock, answer), risk: instantRisk(new Date(begin)) },
    { now: clock.now, onError: (error, { step }) => reports.push(`${step}: ${String(error)}`) },
  );
  const { apiKey, organizationId } = await seedTenant(service, entitlements, randomUUID());
  return { service, stores, apiKey, organizationId, clock, reports };
}

/** A check of a new tenant, begun and answered across `edge`: its 200, and the tenant. */
async function checkAcross(stores: SafetyStores, edge: Edge, entitlements: Partial<Entitlements>) {
  const t = await tenantAcross(stores, edge, entitlements);
  const r = await check(t, TX);
  assert.equal(r.status, 200, r.body);
  return { t, r };
}

const MONTH_EDGE = { begin: '2026-01-31T23:59:59.000Z', answer: '2026-02-01T00:00:05.000Z' };
const MINUTE_EDGE = { begin: '2026-03-10T12:00:59.000Z', answer: '2026-03-10T12:01:04.000Z' };

for (const kind of KINDS) {
  describe(`Clock edges during a check (${kind.name})`, { skip: kind.skip }, () => {
    test('Quota period: a check begun before the month ends and answered after counts on the day and in the month it began', async () => {
      const stores = await kind.stores();
      const { t, r } = await checkAcross(stores, MONTH_EDGE, { monthlyQuota: 10 });
      assert.equal(json(r).coverage, 'complete', 'a billable check');

      // February 1st: nothing billed this month, and so nothing billable today.
      const today = json(await getUsage(t, { days: '1' }));
      assert.equal(today.period.start, '2026-02-01T00:00:00.000Z');
      assert.deepEqual([today.period.used, today.recent.requests, today.recent.billable], [0, 0, 0]);
      const twoDays = json(await getUsage(t, { days: '2' })).recent;
      assert.deepEqual([twoDays.requests, twoDays.billable], [1, 1], 'counted once, on January 31st');
      const { organizationId } = t;
      const january = await stores.quota.getUsage({ organizationId, period: '2026-01', now: t.clock.now() });
      assert.deepEqual(january, { used: 1, reserved: 0 }, 'billed to the month its reservation named');
      const [day] = await stores.usage.readUsageDays({ organizationId, firstDay: '2026-01-31', lastDay: '2026-01-31' });
      assert.equal(day?.billable, 1);
    });

    test('Idempotency: hosts whose clocks differ by more than the lease bill one key once across the month edge; the stale host answers unbilled, unstored', async () => {
      const stores = await kind.stores();
      // Host A's clock says January 31st; host B's runs 60 s ahead, past the 42 s lease: by it A's claim
      // has ended, so B takes the key over and reserves in February while A's check still runs.
      const clockA = settableClock('2026-01-31T23:59:50.000Z');
      const clockB = () => new Date(clockA.now().getTime() + 60_000);
      const risk = instantRisk(new Date('2026-01-31T23:59:50.000Z'));
      const hostB = createSafetyService(
        stores,
        {
          chain: instantChain({ facts: (txHash) => confirmedTrxFacts(txHash, clockB()) }),
          risk,
        },
        { now: clockB },
      );
      const reports: string[] = [];
      let answerB: Promise<CoreHttpResponse> | undefined;
      const stalled = instantChain({ facts: (txHash) => confirmedTrxFacts(txHash, clockA.now()) });
      const hostA = createSafetyService(
        stores,
        {
          // A's lookup answers once B's check of the same key has been answered.
          chain: {
            getTransactionFacts: (txHash, ctx) =>
              ResultAsync.fromSafePromise((answerB = check({ service: hostB, apiKey }, TX, KEYED))).andThen(() =>
                stalled.getTransactionFacts(txHash, ctx),
              ),
          },
          risk,
        },
        { now: clockA.now, onError: (error, { step }) => reports.push(`${step}: ${String(error)}`) },
      );
      const { apiKey, organizationId } = await seedTenant(hostA, { monthlyQuota: 10 }, randomUUID());

      const a = await check({ service: hostA, apiKey }, TX, KEYED);
      const b = await answerB!;
      for (const r of [a, b]) {
        assert.equal(r.status, 200, r.body);
        assert.equal(json(r).coverage, 'complete');
        assert.equal(r.headers['Idempotent-Replayed'], undefined);
      }
      assert.equal(a.headers['X-Quota-Remaining'], '10', 'A’s January unit was released');
      assert.match(reports.join('\n'), /finish: Error: the Idempotency-Key claim ended before the finish/);
      const usage = (period: string, now: Date) => stores.quota.getUsage({ organizationId, period, now });
      assert.deepEqual(await usage('2026-01', clockA.now()), { used: 0, reserved: 0 }, 'January: not billed');
      assert.deepEqual(await usage('2026-02', clockB()), { used: 1, reserved: 0 }, 'February: B’s unit');
      const days = await stores.usage.readUsageDays({ organizationId, firstDay: '2026-01-31', lastDay: '2026-02-01' });
      assert.deepEqual(
        days.map((d) => [d.day, d.requests, d.billable]),
        [
          ['2026-01-31', 1, 0],
          ['2026-02-01', 1, 1],
        ],
      );
      const replay = await check({ service: hostA, apiKey }, TX, KEYED);
      assert.equal(replay.headers['Idempotent-Replayed'], 'true');
      assert.equal(replay.body, b.body, 'the key replays B’s result');
    });

    test('Response headers: X-Quota-* of a check answered after its month ended describe the current month', async () => {
      const { t, r } = await checkAcross(await kind.stores(), MONTH_EDGE, { monthlyQuota: 10 });
      // The unit went to January; February has all ten left, until March 1st.
      assert.equal(r.headers['X-Quota-Reset'], unix('2026-03-01T00:00:00.000Z'));
      assert.equal(r.headers['X-Quota-Remaining'], '10');
      assert.equal(r.headers['X-Quota-Limit'], '10');
      assert.deepEqual(t.reports, []);
    });

    test('Response headers: X-RateLimit-* of a check answered after its minute ended: the current reset, no remaining count', async () => {
      const { r } = await checkAcross(await kind.stores(), MINUTE_EDGE, { rateLimitPerMinute: 5 });
      assert.equal(r.headers['X-RateLimit-Reset'], unix('2026-03-10T12:02:00.000Z'));
      assert.equal(r.headers['X-RateLimit-Limit'], '5');
      assert.equal(r.headers['RateLimit-Policy'], '"minute";q=5;w=60');
      // What is left of the new minute is unknown here: no count that could over-promise.
      assert.equal(r.headers['X-RateLimit-Remaining'], undefined);
      assert.equal(r.headers.RateLimit, undefined);
      assert.equal(r.headers['X-Quota-Reset'], unix('2026-04-01T00:00:00.000Z'), 'the month did not end');
    });
  });
}

describe('Clock edges: the usage report and a failed quota read (store-memory)', () => {
  test('Response headers: GET /v1/usage answered after its minute ended shows the current reset, no remaining count', async () => {
    const stores = createMemoryStores();
    const t = await tenantAcross(stores, MINUTE_EDGE, { rateLimitPerMinute: 5 });
    const read = stores.usage.readUsageDays.bind(stores.usage);
    stores.usage.readUsageDays = (params) => (t.clock.set(MINUTE_EDGE.answer), read(params));
    const r = await getUsage(t);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.headers['X-RateLimit-Reset'], unix('2026-03-10T12:02:00.000Z'));
    assert.equal(r.headers['X-RateLimit-Remaining'], undefined);
    assert.equal(json(r).period.start, '2026-03-01T00:00:00.000Z');
    assert.equal(r.headers['X-Quota-Remaining'], '1000000');
  });

  test('Response headers: a check answered after its month ended whose quota read fails has no X-Quota-* (reported)', async () => {
    const stores = createMemoryStores();
    const failing = { ...stores, quota: failingIf(stores.quota, (method) => method === 'getUsage') };
    const { t, r } = await checkAcross(failing, MONTH_EDGE, { monthlyQuota: 10 });
    assert.equal(json(r).coverage, 'complete');
    for (const name of ['X-Quota-Limit', 'X-Quota-Remaining', 'X-Quota-Reset']) {
      assert.equal(r.headers[name], undefined, name);
    }
    assert.match(t.reports.join('\n'), /quota headers: Error: store down: getUsage/);
  });
});
