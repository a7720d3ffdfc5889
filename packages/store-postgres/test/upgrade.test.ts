// Migrations 003 and later on a database populated by the previous schema (001 + 002): the data
// stays in place and the upgraded stores serve it (usage folded into days, stored results
// replayed, quota counters continued, keys never used until a check uses them); and the SQL
// latency buckets are the core's.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createSafetyService, hashApiKey, type UsageDay, type UsageRecord } from '@tron-safety/core';
import {
  countUsage,
  emptyUsageDay,
  latencyBucket,
  LATENCY_BUCKET_BOUNDS_MS,
  utcDay,
  validateCheckRequest,
} from '@tron-safety/core/internal';
import { checkBody, instantChain, instantRisk } from '@tron-safety/core/testing';
import type pg from 'pg';
import { createPostgresStores, loadMigrations, migrate } from '../src/index.js';
import { startTestPostgres, type TestDatabase } from '@tron-safety/store-postgres/testing';
import { insertOrganizationWithKey } from './support/previous-schema.js';

const server = await startTestPostgres();
after(() => server.stop());

const ORG = randomUUID();
const KEY = `tsk_live_${'u'.repeat(40)}`;
const now = new Date();
const month = now.toISOString().slice(0, 7);
const day = (daysAgo: number, ms = 0) =>
  new Date(Date.parse(`${utcDay(now)}T00:00:00.000Z`) - daysAgo * 86_400_000 + ms);
const STORED_BODY = '{"request_id":"old-1","overall_state":"CLEAR","note":"ü"}';

/** Usage rows as the previous schema kept them: one per check. */
const records: UsageRecord[] = Array.from({ length: 240 }, (_, i) => ({
  organizationId: i % 5 === 0 ? randomUUID() : ORG,
  at: day(i % 4, (i * 7_919_000) % 86_400_000),
  network: i % 11 === 0 ? null : 'tron',
  overallState: i % 11 === 0 ? null : (['CLEAR', 'REVIEW', 'HIGH_RISK', 'LIMITED_DATA'] as const)[i % 4]!,
  coverage: i % 11 === 0 ? null : i % 4 === 3 ? 'partial' : 'complete',
  billable: i % 3 === 0,
  latencyMs: (i * 37) % 2600,
  errorCode: i % 11 === 0 ? 'validation_error' : null,
}));

async function populatePreviousSchema(pool: pg.Pool): Promise<void> {
  await insertOrganizationWithKey(
    pool,
    { id: ORG, name: 'Upgraded' },
    { hash: hashApiKey(KEY), label: 'old', prefix: 'tsk_live_uuuu' },
  );
  // A completed result stored with the previous headers (Content-Type included), and 7 billed units.
  await pool.query(
    `INSERT INTO idempotency_records (organization_id, key, fingerprint, state, expires_at, response_status, response_headers, response_body)
     VALUES ($1, 'old-order', $2, 'completed', now() + interval '1 day', 200, $3::json, $4)`,
    [
      ORG,
      fingerprintOf(checkBody('a'.repeat(64))),
      JSON.stringify({ 'Content-Type': 'application/json; charset=utf-8', 'X-Request-ID': 'old-1' }),
      STORED_BODY,
    ],
  );
  await pool.query(`INSERT INTO quota_counters (organization_id, period, used, reserved) VALUES ($1, $2, 7, 1)`, [
    ORG,
    month,
  ]);
  await pool.query(
    `INSERT INTO quota_reservations (id, organization_id, period, expires_at) VALUES ($1, $2, $3, now() - interval '1 hour')`,
    [randomUUID(), ORG, month],
  );
  for (const r of records) {
    await pool.query(
      `INSERT INTO usage_records (organization_id, at, network, overall_state, coverage, billable, latency_ms, error_code)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [r.organizationId, r.at, r.network, r.overallState, r.coverage, r.billable, r.latencyMs, r.errorCode],
    );
  }
}

/** The fingerprint the core takes of a body (what a retry of the same check sends). */
const fingerprintOf = (body: Uint8Array) => validateCheckRequest(body)._unsafeUnwrap().fingerprint;

describe('store-postgres: upgrading a populated database', { skip: server.skip }, () => {
  let database: TestDatabase;
  let pool: pg.Pool;

  before(async () => {
    database = await server.createDatabase();
    pool = database.pool(4);
    const all = await loadMigrations();
    await migrate(pool, { migrations: all.filter((m) => m.version <= 2) });
    await populatePreviousSchema(pool);
    assert.deepEqual(await migrate(pool), {
      applied: all.filter((m) => m.version > 2).map((m) => m.version),
      version: Math.max(...all.map((m) => m.version)),
    });
  });
  after(() => database?.drop());

  test('usage records are folded into their UTC days, histograms included, and the old table is gone', async () => {
    const expected = new Map<string, UsageDay>();
    for (const r of records.filter((r) => r.organizationId === ORG)) {
      const d = utcDay(r.at);
      if (!expected.has(d)) expected.set(d, emptyUsageDay(d));
      countUsage(expected.get(d)!, r);
    }
    const stores = createPostgresStores({ pool });
    const days = await stores.usage.readUsageDays({
      organizationId: ORG,
      firstDay: utcDay(day(10)),
      lastDay: utcDay(now),
    });
    assert.deepEqual(
      days,
      [...expected.values()].sort((a, b) => (a.day < b.day ? -1 : 1)),
    );
    const gone = await pool.query(`SELECT to_regclass('usage_records') AS t`);
    assert.equal(gone.rows[0].t, null);
  });

  test('the upgraded stores serve the old state: replay, quota, usage, then new checks', async () => {
    const chain = instantChain();
    const stores = createPostgresStores({ pool });
    const lastUsed = async () => (await stores.apiKeys.findKeyByHash(hashApiKey(KEY)))?.lastUsedAt;
    assert.equal(await lastUsed(), null, 'an upgraded key starts as never used');
    const service = createSafetyService(stores, { chain, risk: instantRisk() });
    const post = (tx: string, key?: string) =>
      service.handle({
        method: 'POST',
        path: '/v1/transaction/check',
        query: {},
        headers: { 'x-api-key': KEY, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
        body: checkBody(tx),
      });
    const replay = await post('a'.repeat(64), 'old-order');
    assert.equal(replay.status, 200);
    assert.equal(replay.body, STORED_BODY, 'stored before the upgrade, replayed byte for byte');
    assert.equal(replay.headers['X-Request-ID'], 'old-1');
    assert.equal(replay.headers['Idempotent-Replayed'], 'true');
    assert.equal(replay.headers['X-Quota-Remaining'], '3', '10 - 7 used (the expired reservation counts as released)');
    assert.equal(chain.calls, 0);
    assert.ok((await lastUsed()) instanceof Date, 'the replay used the key');

    const fresh = await post('b'.repeat(64), 'new-order');
    assert.equal(fresh.status, 200, fresh.body);
    assert.equal(fresh.headers['X-Quota-Remaining'], '2');
    const usage = await service.handle({
      method: 'GET',
      path: '/v1/usage',
      query: { days: '7' },
      headers: { 'x-api-key': KEY },
      body: new Uint8Array(),
    });
    const report = JSON.parse(usage.body);
    assert.equal(report.period.used, 8);
    assert.equal(report.recent.requests, records.filter((r) => r.organizationId === ORG).length + 1);
  });

  test('latency buckets: the SQL bounds and bucket are the core’s', async () => {
    const { rows } = await pool.query('SELECT usage_latency_bounds() AS bounds');
    assert.deepEqual(rows[0].bounds, LATENCY_BUCKET_BOUNDS_MS);
    const samples = [-5, 0, 1, 2, 7, 9, 10, 11, 99, 100, 101, 999, 1000, 4321, 11999, 12000, 19999, 20000, 90000];
    const sql = await pool.query('SELECT ms, usage_latency_bucket(ms) AS bucket FROM unnest($1::integer[]) ms', [
      samples,
    ]);
    assert.deepEqual(
      sql.rows.map((r) => r.bucket - 1),
      samples.map((ms) => latencyBucket(ms)),
    );
  });
});

describe('store-postgres: upgrading while hosts of the previous schema still write', { skip: server.skip }, () => {
  test('a usage record written while migration 003 folds is folded or refused, never dropped silently', async () => {
    const database = await server.createDatabase();
    const migrator = database.pool(1);
    const oldHost = database.pool(1);
    try {
      const all = await loadMigrations();
      await migrate(migrator, { migrations: all.filter((m) => m.version <= 2) });
      const record = () =>
        oldHost.query(
          `INSERT INTO usage_records (organization_id, at, network, overall_state, coverage, billable, latency_ms, error_code)
           VALUES ('org', now(), 'tron', 'CLEAR', 'complete', true, 10, NULL)`,
        );
      await record();
      // 003 as migrate() sends it, cut where the fold ends, so the old host writes between fold and drop.
      const sql = all.find((m) => m.version === 3)!.sql;
      const cut = sql.indexOf('DROP TABLE usage_records;');
      const client = await migrator.connect();
      let written: Promise<string>;
      try {
        await client.query('BEGIN');
        await client.query(sql.slice(0, cut));
        written = record().then(
          () => 'written',
          () => 'refused',
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
        await client.query(sql.slice(cut));
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      const outcome = await written;
      const { rows } = await migrator.query(
        `SELECT sum(requests)::integer AS n FROM usage_days WHERE organization_id = 'org'`,
      );
      assert.equal(rows[0].n, outcome === 'written' ? 2 : 1, `the second record was ${outcome}`);
    } finally {
      await database.drop();
    }
  });
});
