// Connection options and the sweeper.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createPostgresStores, migrate } from '../src/index.js';
import { startTestPostgres, type TestDatabase } from './postgres.js';

const server = await startTestPostgres();
const T0 = new Date('2026-06-15T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const DAY = 86_400_000;

describe('store-postgres: connection and sweeper', { skip: server.skip }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await server.createDatabase();
    await migrate(database.pool(1));
  });
  after(async () => {
    await database?.drop();
    await server.stop();
  });

  test('a pool opened from a URL has statement and lock timeouts, and close() ends it', async () => {
    const defaults = createPostgresStores({ connectionString: database.url, max: 2 });
    const shown = await defaults.pool.query('SELECT current_setting($1) AS s, current_setting($2) AS l', ['statement_timeout', 'lock_timeout']);
    assert.deepEqual(shown.rows[0], { s: '5s', l: '5s' });
    await defaults.close();
    assert.equal(defaults.pool.ended, true);

    const strict = createPostgresStores({ connectionString: database.url, max: 1, statementTimeoutMs: 200 });
    try {
      await assert.rejects(strict.pool.query('SELECT pg_sleep(2)'), (e: { code?: string }) => e.code === '57014');
    } finally {
      await strict.close();
    }
  });

  test('a pool passed in stays open after close()', async () => {
    const pool = database.pool(1);
    const stores = createPostgresStores({ pool });
    await stores.close();
    assert.equal((await pool.query('SELECT 1 AS one')).rows[0].one, 1);
  });

  test('sweep deletes what expired, keeps what is live, fixes quota counters; concurrent sweeps agree', async () => {
    const [a, b] = [createPostgresStores({ pool: database.pool(4) }), createPostgresStores({ pool: database.pool(4) })];
    const org = randomUUID();
    const lease = { now: T0, leaseExpiresAt: at(30_000) };
    await a.idempotency.begin({ organizationId: org, key: 'crashed' }, { fingerprint: 'f', owner: 'x', ...lease });
    await a.idempotency.begin({ organizationId: org, key: 'done' }, { fingerprint: 'f', owner: 'y', ...lease });
    await a.idempotency.complete({ organizationId: org, key: 'done' }, { owner: 'y', response: { status: 200, headers: {}, body: '{}' }, now: T0, retainUntil: at(DAY) });
    for (let i = 0; i < 5; i++) {
      await a.quota.reserve({ organizationId: org, period: '2026-06', limit: 10, reservationId: `expiring-${org}-${i}`, now: T0, expiresAt: at(30_000) });
    }
    await a.quota.reserve({ organizationId: org, period: '2026-06', limit: 10, reservationId: `live-${org}`, now: T0, expiresAt: at(10 * 60_000) });
    await a.limits.hitRate({ organizationId: org, windowStart: new Date('2026-06-15T12:00:00.000Z'), limit: 10, now: T0 });
    await a.limits.acquireSlot({ organizationId: org, slotId: 's', limit: 1, now: T0, expiresAt: at(30_000) });
    await a.usage.appendUsage({ organizationId: org, at: at(-100 * DAY), network: 'tron', overallState: 'CLEAR', coverage: 'complete', billable: true, latencyMs: 1, errorCode: null });
    await a.usage.appendUsage({ organizationId: org, at: T0, network: 'tron', overallState: 'CLEAR', coverage: 'complete', billable: true, latencyMs: 1, errorCode: null });

    const [first, second] = await Promise.all([
      a.sweep(at(120_000), { usageRetentionDays: 95 }),
      b.sweep(at(120_000), { usageRetentionDays: 95 }),
    ]);
    assert.equal(first.quotaReservations + second.quotaReservations, 5, 'each expired reservation reclaimed once');
    assert.ok(first.idempotency + second.idempotency >= 1);
    assert.ok(first.limits + second.limits >= 2);
    assert.equal(first.usage + second.usage, 1);

    const counter = await a.pool.query('SELECT used, reserved FROM quota_counters WHERE organization_id = $1', [org]);
    assert.deepEqual(counter.rows[0], { used: 0, reserved: 1 }, 'the counter holds only the live reservation');
    const left = await a.pool.query(
      `SELECT (SELECT count(*)::int FROM idempotency_records WHERE organization_id = $1) AS idempotency,
              (SELECT count(*)::int FROM quota_reservations WHERE organization_id = $1) AS reservations,
              (SELECT count(*)::int FROM rate_windows WHERE organization_id = $1) AS windows,
              (SELECT count(*)::int FROM concurrency_slots WHERE organization_id = $1) AS slots,
              (SELECT count(*)::int FROM usage_records WHERE organization_id = $1) AS usage`,
      [org],
    );
    assert.deepEqual(left.rows[0], { idempotency: 1, reservations: 1, windows: 0, slots: 0, usage: 1 });
    assert.deepEqual(await a.sweep(at(120_000)), { idempotency: 0, quotaReservations: 0, limits: 0, usage: 0 });
    await assert.rejects(a.sweep(at(120_000), { usageRetentionDays: 0 }), RangeError);
  });
});
