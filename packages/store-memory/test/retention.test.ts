import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryStores } from '../src/index.js';

const record = (at: Date) => ({
  organizationId: 'org',
  at,
  network: 'tron',
  overallState: 'CLEAR' as const,
  coverage: 'complete' as const,
  billable: true,
  latencyMs: 1,
  errorCode: null,
});

test('usage days past the retention are dropped as a new day starts', async () => {
  const { usage } = createMemoryStores({ usageRetentionDays: 10 });
  const now = new Date('2026-05-20T00:00:00Z');
  await usage.recordUsage(record(new Date(now.getTime() - 11 * 86_400_000)));
  await usage.recordUsage(record(new Date(now.getTime() - 9 * 86_400_000)));
  for (let i = 1; i < 1024; i++) await usage.recordUsage(record(now));
  const days = await usage.readUsageDays({ organizationId: 'org', firstDay: '2000-01-01', lastDay: '2099-12-31' });
  assert.deepEqual(
    days.map((d) => [d.day, d.requests]),
    [
      ['2026-05-11', 1],
      ['2026-05-20', 1023],
    ],
  );
});

test('usage memory does not grow with requests: 150,000 records of one day are one bucket', async () => {
  const { usage } = createMemoryStores({ usageRetentionDays: 10 });
  const now = new Date('2026-05-20T00:00:00Z');
  for (let i = 0; i < 150_000; i++) await usage.recordUsage(record(now));
  assert.equal(await usage.purgeUsageBefore('2026-05-19'), 0);
  const days = await usage.readUsageDays({ organizationId: 'org', firstDay: '2026-05-20', lastDay: '2026-05-20' });
  assert.equal(days[0]!.requests, 150_000);
  assert.equal(await usage.purgeUsageBefore('2026-05-21'), 1);
});

test('idempotency records and slots are reclaimed in time order as traffic goes on, without a sweeper', async () => {
  const stores = createMemoryStores();
  const t0 = Date.parse('2026-05-20T00:00:00Z');
  // 20,000 keyed checks over 20 minutes, each completed and retained for 60 s.
  for (let i = 0; i < 20_000; i++) {
    const now = new Date(t0 + i * 60);
    const scope = { organizationId: 'org', key: `k${i}` };
    await stores.idempotency.begin(scope, {
      fingerprint: 'f',
      owner: 'o',
      now,
      leaseExpiresAt: new Date(now.getTime() + 30_000),
    });
    await stores.idempotency.complete(scope, {
      owner: 'o',
      response: { status: 200, headers: {}, body: '{}' },
      now,
      retainUntil: new Date(now.getTime() + 60_000),
    });
    await stores.limits.acquireSlot({
      organizationId: 'org',
      slotId: `s${i}`,
      limit: 1e9,
      now,
      expiresAt: new Date(now.getTime() + 30_000),
    });
  }
  // About one retention's worth is held (60 s of traffic = 1,000 records), not all 20,000.
  assert.ok(stores.idempotency.size < 1_100, `held ${stores.idempotency.size}`);
  // Slots a lease plus the write grace (a late finish still finds its slot): 90 s = 1,500.
  assert.ok(
    (await stores.limits.purgeExpired(new Date(t0 + 20_000 * 60 + 60_000))) < 1_600,
    'slots were reclaimed on the way',
  );
});

test('quota counters of months ended over a day ago are dropped by the sweep: memory holds the current and the last month, not every month seen', async () => {
  const { quota } = createMemoryStores();
  const orgs = Array.from({ length: 20 }, (_, i) => `org${i}`);
  const months = Array.from({ length: 12 }, (_, m) => `2026-${String(m + 1).padStart(2, '0')}`);
  for (const period of months) {
    const now = new Date(`${period}-15T12:00:00Z`);
    for (const organizationId of orgs) {
      const reservationId = `${organizationId}/${period}`;
      const expiresAt = new Date(now.getTime() + 60_000);
      assert.ok((await quota.reserve({ organizationId, period, limit: 10, reservationId, now, expiresAt })).ok);
      assert.ok(await quota.commit({ organizationId, reservationId, now }));
    }
    await quota.purgeExpired(new Date(now.getTime() + 120_000));
    assert.equal(quota.size, orgs.length, `${period}: only its own month's counters are held by mid-month`);
  }
  const lastMonth = months.at(-1)!;
  const inDecember = new Date(`${lastMonth}-31T00:00:00Z`);
  assert.deepEqual(await quota.getUsage({ organizationId: 'org0', period: lastMonth, now: inDecember }), {
    used: 1,
    reserved: 0,
  });
  assert.equal(await quota.purgeExpired(new Date('2027-01-01T23:59:59Z')), 0, 'December is kept its first day after');
  assert.equal(await quota.purgeExpired(new Date('2027-01-02T00:00:00Z')), orgs.length);
  assert.equal(quota.size, 0);
});

test('a check begun before the month edge and finished after it bills its own month, the sweep in between', async () => {
  const { quota } = createMemoryStores();
  const organizationId = 'org';
  const begun = new Date('2026-01-31T23:59:50Z');
  const reserved = { organizationId, reservationId: 'late', now: begun, expiresAt: new Date('2026-02-01T00:00:50Z') };
  assert.ok((await quota.reserve({ ...reserved, period: '2026-01', limit: 10 })).ok);
  await quota.purgeExpired(new Date('2026-02-01T00:00:10Z'));
  assert.equal(quota.size, 1, 'the counter of January stays while its reservation is live');
  const finishedAt = new Date('2026-02-01T00:00:20Z');
  assert.deepEqual(await quota.commit({ organizationId, reservationId: 'late', now: finishedAt }), {
    used: 1,
    reserved: 0,
  });
  const january = { organizationId, period: '2026-01', now: finishedAt };
  assert.deepEqual(await quota.getUsage(january), { used: 1, reserved: 0 }, 'billed to January');
  assert.deepEqual(await quota.getUsage({ ...january, period: '2026-02' }), { used: 0, reserved: 0 });
  assert.equal(await quota.purgeExpired(new Date('2026-02-02T00:01:00Z')), 1, 'then January is dropped, a day after');
  assert.equal(quota.size, 0);
});

test('a reservation of an ended month that expired unfinished bills nothing, and its counter goes with it', async () => {
  const { quota } = createMemoryStores();
  const begun = new Date('2026-01-31T23:59:50Z');
  const expiresAt = new Date('2026-02-01T00:00:20Z');
  await quota.reserve({
    organizationId: 'org',
    period: '2026-01',
    limit: 10,
    reservationId: 'r',
    now: begun,
    expiresAt,
  });
  assert.equal(await quota.purgeExpired(new Date('2026-02-01T00:00:30Z')), 1, 'the reservation');
  assert.equal(await quota.commit({ organizationId: 'org', reservationId: 'r', now: expiresAt }), null);
  assert.equal(await quota.purgeExpired(new Date('2026-02-02T00:00:00Z')), 1, 'its counter, a day after');
  assert.equal(quota.size, 0);
});
