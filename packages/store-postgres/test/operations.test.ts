// Operations: migrations (idempotent, concurrent, all or nothing), connection options, the sweeper.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import { createPostgresStores, loadMigrations, migrate } from '../src/index.js';
import { startTestPostgres, type TestDatabase } from '@tron-safety/store-postgres/testing';

const server = await startTestPostgres();
after(() => server.stop());
const T0 = new Date('2026-06-15T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const DAY = 86_400_000;

describe('store-postgres: migrations', { skip: server.skip }, () => {
  /** A test in a database of its own, dropped after it. */
  const inDatabase = async (body: (database: TestDatabase) => Promise<void>) => {
    const database = await server.createDatabase();
    try {
      await body(database);
    } finally {
      await database.drop();
    }
  };

  test('the package ships numbered migrations in order', async () => {
    const migrations = await loadMigrations();
    assert.ok(migrations.length >= 1);
    assert.deepEqual(
      migrations.map((m) => m.version),
      [...migrations.map((m) => m.version)].sort((a, b) => a - b),
    );
    assert.equal(migrations[0]!.version, 1);
  });

  test('applying twice is a no-op the second time', () =>
    inDatabase(async (database) => {
      const pool = database.pool(2);
      const all = (await loadMigrations()).map((m) => m.version);
      assert.deepEqual(await migrate(pool), { applied: all, version: Math.max(...all) });
      assert.deepEqual(await migrate(pool), { applied: [], version: Math.max(...all) });
      const { rows } = await pool.query('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(
        rows.map((r) => r.version),
        all,
      );
    }));

  test('8 hosts starting at once on an empty database: each migration applied exactly once, nobody fails', () =>
    inDatabase(async (database) => {
      const results = await Promise.all(Array.from({ length: 8 }, () => migrate(database.pool(1))));
      const applied = results.flatMap((r) => r.applied);
      const all = (await loadMigrations()).map((m) => m.version);
      assert.deepEqual(
        applied.sort((a, b) => a - b),
        all,
      );
      assert.equal(results.filter((r) => r.applied.length > 0).length, 1);
      assert.ok(results.every((r) => r.version === Math.max(...all)));
    }));

  test('a failing migration leaves the schema as it was; later runs resume', () =>
    inDatabase(async (database) => {
      const pool = database.pool(2);
      const good = { version: 1, name: 'good', sql: 'CREATE TABLE good (id integer)' };
      const bad = { version: 2, name: 'bad', sql: 'CREATE TABLE bad (id integer); SELECT no_such_function()' };
      await assert.rejects(migrate(pool, { migrations: [good, bad] }), /no_such_function/);
      const tables = await pool.query(
        `SELECT to_regclass('good') AS good, to_regclass('bad') AS bad, to_regclass('schema_migrations') AS log`,
      );
      assert.deepEqual(tables.rows[0], { good: null, bad: null, log: null }, 'all or nothing');
      const fixed = { ...bad, sql: 'CREATE TABLE bad (id integer)' };
      assert.deepEqual(await migrate(pool, { migrations: [good, fixed] }), { applied: [1, 2], version: 2 });
      assert.deepEqual(await migrate(pool, { migrations: [good, fixed] }), { applied: [], version: 2 });
    }));

  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  const recorded = async (pool: pg.Pool) =>
    (await pool.query('SELECT version, sha256 FROM schema_migrations ORDER BY version')).rows;

  test("migrations: each applied migration's SHA-256 is recorded, the file's text (a CRLF checkout of it is the same file)", () =>
    inDatabase(async (database) => {
      const pool = database.pool(2);
      const all = await loadMigrations();
      await migrate(pool);
      assert.deepEqual(
        await recorded(pool),
        all.map((m) => ({ version: m.version, sha256: sha256(m.sql) })),
      );
      const crlf = all.map((m) => ({ ...m, sql: m.sql.replaceAll('\n', '\r\n') }));
      assert.deepEqual(await migrate(pool, { migrations: crlf }), { applied: [], version: all.at(-1)!.version });
    }));

  test('migrations: a database that applied another text of a migration (edited after it ran) is refused, naming it; nothing pending is applied', () =>
    inDatabase(async (database) => {
      const pool = database.pool(2);
      const first = {
        version: 1,
        name: 'first_text',
        sql: 'CREATE FUNCTION answer() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$',
      };
      await migrate(pool, { migrations: [first] });
      const edited = { ...first, sql: first.sql.replace('SELECT 1', 'SELECT 2') };
      const next = { version: 2, name: 'next', sql: 'CREATE TABLE next (id integer)' };
      await assert.rejects(
        migrate(pool, { migrations: [edited, next] }),
        new RegExp(
          `^Error: migration 001_first_text: this database applied another text of it \\(sha256 ${sha256(first.sql).slice(0, 12)}… recorded, ${sha256(edited.sql).slice(0, 12)}… in this version's file\\)`,
        ),
      );
      const after = await pool.query(`SELECT answer() AS answer, to_regclass('next') AS next`);
      assert.deepEqual(after.rows[0], { answer: 1, next: null });
      assert.deepEqual(await recorded(pool), [{ version: 1, sha256: sha256(first.sql) }]);
    }));

  test("migrations: rows applied before hashes were recorded take the file's hash (trust on first use); an edit after that is refused", () =>
    inDatabase(async (database) => {
      const pool = database.pool(2);
      const all = await loadMigrations();
      const released = all.filter((m) => m.version <= 2); // 0.1.0's migrations
      // schema_migrations as an earlier version made it: no sha256 column.
      await migrate(pool, { migrations: released });
      await pool.query('ALTER TABLE schema_migrations DROP COLUMN sha256');
      assert.deepEqual(await migrate(pool), {
        applied: all.slice(2).map((m) => m.version),
        version: all.at(-1)!.version,
      });
      assert.deepEqual(
        await recorded(pool),
        all.map((m) => ({ version: m.version, sha256: sha256(m.sql) })),
      );
      const edited = all.map((m) => (m.version === 2 ? { ...m, sql: `${m.sql}\n-- edited` } : m));
      await assert.rejects(
        migrate(pool, { migrations: edited }),
        /^Error: migration 002_acquire_slot: this database applied another text/,
      );
    }));
});

describe('store-postgres: connection and sweeper', { skip: server.skip }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await server.createDatabase();
    await migrate(database.pool(1));
  });
  after(() => database?.drop());

  test('a pool opened from a URL has statement and lock timeouts, and close() ends it', async () => {
    const defaults = createPostgresStores({ connectionString: database.url, max: 2 });
    const shown = await defaults.pool.query('SELECT current_setting($1) AS s, current_setting($2) AS l', [
      'statement_timeout',
      'lock_timeout',
    ]);
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

  test("usage: records racing to open an organization's day from two hosts are each counted once", async () => {
    const hosts = [
      createPostgresStores({ connectionString: database.url, max: 8 }),
      createPostgresStores({ connectionString: database.url, max: 8 }),
    ];
    try {
      const org = randomUUID();
      const record = (i: number) =>
        hosts[i % 2]!.usage.recordUsage({
          organizationId: org,
          at: at(i),
          network: 'tron',
          overallState: i % 3 === 0 ? 'LIMITED_DATA' : 'CLEAR',
          coverage: 'complete',
          billable: i % 2 === 0,
          latencyMs: i,
          errorCode: null,
        });
      await Promise.all(Array.from({ length: 40 }, (_, i) => record(i)));
      const [day] = await hosts[0]!.usage.readUsageDays({
        organizationId: org,
        firstDay: '2026-06-15',
        lastDay: '2026-06-15',
      });
      assert.equal(day?.requests, 40);
      assert.equal(day?.billable, 20);
      assert.equal(day?.limitedData, 14);
      assert.equal(day?.latencyCount, 40);
      assert.equal(day?.latencySumMs, (39 * 40) / 2);
      assert.deepEqual(day?.byOverallState, { CLEAR: 26, LIMITED_DATA: 14 });
      assert.equal(
        day?.latencyHistogram.reduce((sum, n) => sum + n, 0),
        40,
      );
    } finally {
      await Promise.all(hosts.map((h) => h.close()));
    }
  });

  test('sweep deletes what expired, keeps what is live, fixes quota counters; concurrent sweeps agree', async () => {
    const [a, b] = [createPostgresStores({ pool: database.pool(4) }), createPostgresStores({ pool: database.pool(4) })];
    const org = randomUUID();
    const lease = { now: T0, leaseExpiresAt: at(30_000) };
    await a.idempotency.begin({ organizationId: org, key: 'crashed' }, { fingerprint: 'f', owner: 'x', ...lease });
    await a.idempotency.begin({ organizationId: org, key: 'done' }, { fingerprint: 'f', owner: 'y', ...lease });
    await a.idempotency.complete(
      { organizationId: org, key: 'done' },
      { owner: 'y', response: { status: 200, headers: {}, body: '{}' }, now: T0, retainUntil: at(DAY) },
    );
    for (let i = 0; i < 5; i++) {
      await a.quota.reserve({
        organizationId: org,
        period: '2026-06',
        limit: 10,
        reservationId: `expiring-${org}-${i}`,
        now: T0,
        expiresAt: at(30_000),
      });
    }
    await a.quota.reserve({
      organizationId: org,
      period: '2026-06',
      limit: 10,
      reservationId: `live-${org}`,
      now: T0,
      expiresAt: at(10 * 60_000),
    });
    await a.limits.hitRate({
      organizationId: org,
      windowStart: new Date('2026-06-15T12:00:00.000Z'),
      limit: 10,
      now: T0,
    });
    await a.limits.acquireSlot({ organizationId: org, slotId: 's', limit: 1, now: T0, expiresAt: at(30_000) });
    await a.usage.recordUsage({
      organizationId: org,
      at: at(-100 * DAY),
      network: 'tron',
      overallState: 'CLEAR',
      coverage: 'complete',
      billable: true,
      latencyMs: 1,
      errorCode: null,
    });
    await a.usage.recordUsage({
      organizationId: org,
      at: T0,
      network: 'tron',
      overallState: 'CLEAR',
      coverage: 'complete',
      billable: true,
      latencyMs: 1,
      errorCode: null,
    });

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
              (SELECT count(*)::int FROM usage_days WHERE organization_id = $1) AS usage`,
      [org],
    );
    assert.deepEqual(left.rows[0], { idempotency: 1, reservations: 1, windows: 0, slots: 0, usage: 1 });
    assert.deepEqual(await a.sweep(at(120_000), { usageRetentionDays: 95 }), {
      idempotency: 0,
      quotaReservations: 0,
      quotaCounters: 0,
      limits: 0,
      usage: 0,
      portal: 0,
      invitations: 0,
      complete: true,
    });
    await assert.rejects(a.sweep(at(120_000), { usageRetentionDays: 0 }), RangeError);
  });

  test('Retention: sweep drops quota counters of months before the usage retention, in bounded batches; a month it keeps stays whole', async () => {
    const stores = createPostgresStores({ pool: database.pool(2) });
    const org = randomUUID();
    // 2,500 organizations' counters of 2024-12, one still holding a reservation row; this month's counter.
    await stores.pool.query(
      `INSERT INTO quota_counters (organization_id, period, used, reserved)
       SELECT $1 || '-' || i, '2024-12', 7, 0 FROM generate_series(1, 2500) i`,
      [org],
    );
    await stores.pool.query(
      `INSERT INTO quota_counters (organization_id, period, used, reserved) VALUES ($1, '2024-12', 1, 1), ($1, $2, 3, 0)`,
      [org, '2025-08'],
    );
    // The 400-day retention at T0 (2026-06-15) keeps days from May 2025: August 2025's counter stays.
    const swept = await stores.sweep(T0, { batchSize: 1000 });
    assert.equal(swept.quotaCounters, 2500);
    assert.equal(swept.complete, true);
    const left = await stores.pool.query(
      "SELECT period, used, reserved FROM quota_counters WHERE organization_id = $1 OR organization_id LIKE $1 || '-%' ORDER BY period",
      [org],
    );
    assert.deepEqual(left.rows, [
      { period: '2024-12', used: 1, reserved: 1 },
      { period: '2025-08', used: 3, reserved: 0 },
    ]);
  });

  test('sweep works off a backlog in bounded batches, oldest first, and resumes after its time budget', async () => {
    const stores = createPostgresStores({ pool: database.pool(2) });
    const org = randomUUID();
    // 12,000 expired idempotency records and 3 live ones; usage days far past the retention.
    await stores.pool.query(
      `INSERT INTO idempotency_records (organization_id, key, fingerprint, state, owner, expires_at)
       SELECT $1, 'k' || i, 'f', 'in_progress', 'o', $2::timestamptz - i * interval '1 second'
         FROM generate_series(1, 12000) i`,
      [org, T0],
    );
    for (const key of ['a', 'b', 'c']) {
      await stores.idempotency.begin(
        { organizationId: org, key },
        { fingerprint: 'f', owner: 'x', now: T0, leaseExpiresAt: at(DAY) },
      );
    }
    for (const days of [500, 450, 401, 10]) {
      await stores.usage.recordUsage({
        organizationId: org,
        at: at(-days * DAY),
        network: 'tron',
        overallState: 'CLEAR',
        coverage: 'complete',
        billable: true,
        latencyMs: 1,
        errorCode: null,
      });
    }
    const statements: string[] = [];
    const query = stores.pool.query.bind(stores.pool);
    stores.pool.query = ((...args: Parameters<typeof query>) => {
      statements.push(String(typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text));
      return query(...args);
    }) as typeof query;
    const stopped = await stores.sweep(T0, { batchSize: 1000, budgetMs: 0 });
    assert.equal(stopped.complete, false, 'no batch starts past the budget');
    assert.equal(stopped.idempotency, 0);
    const swept = await stores.sweep(T0, { batchSize: 1000 });
    assert.equal(swept.complete, true);
    assert.equal(swept.idempotency, 12_000);
    assert.equal(swept.usage, 3, 'days before the 400-day retention');
    assert.ok(
      statements.filter((s) => s.includes('DELETE FROM idempotency_records')).length >= 13,
      'one bounded statement per 1,000 rows',
    );
    const left = await stores.pool.query(
      'SELECT count(*)::int AS n FROM idempotency_records WHERE organization_id = $1',
      [org],
    );
    assert.equal(left.rows[0].n, 3, 'the live records stay');
  });
});
