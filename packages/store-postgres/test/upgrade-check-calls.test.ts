// Migration 010 (begin_check_record / finish_check_record) on a database of migration 009 with
// checks in flight: what the previous hosts began finishes on the upgraded schema, a stored result
// replays, and hosts of the previous version (a rolling upgrade) keep working with their statements.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FinishCheckParams } from '@tron-safety/core';
import type pg from 'pg';
import { createPostgresStores, loadMigrations, migrate, type PostgresStores } from '../src/index.js';
import { startTestPostgres, type TestDatabase } from '@tron-safety/store-postgres/testing';
import { insertOrganizationWithKey } from './support/previous-schema.js';

const server = await startTestPostgres();
after(() => server.stop());

const ORG = randomUUID();
const KEY_HASH = 'c'.repeat(64);
const now = new Date();
const later = (ms: number) => new Date(now.getTime() + ms);
const WINDOW = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
const PERIOD = now.toISOString().slice(0, 7);
const BODY = '{"request_id":"r-1","overall_state":"CLEAR"}';

/** The previous host's two statements (migration 009's checks.ts), as a host not yet upgraded sends them. */
const PREVIOUS_BEGIN = `WITH used AS (
  UPDATE api_keys SET last_used_at = $3::timestamptz
   WHERE hash = $1 AND revoked_at IS NULL
     AND (last_used_at IS NULL OR last_used_at <= $3::timestamptz - interval '1 minute'))
SELECT * FROM begin_check($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`;
const PREVIOUS_FINISH =
  'SELECT * FROM finish_check($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)';

/** One keyed check's ids, begun by a host of the previous version. */
interface Begun {
  key: string;
  owner: string;
  slotId: string;
  reservationId: string;
}

async function previousBegin(pool: pg.Pool, key: string, at = now): Promise<Begun & { row: Record<string, unknown> }> {
  const ids = { key, owner: randomUUID(), slotId: randomUUID(), reservationId: randomUUID() };
  const { rows } = await pool.query(PREVIOUS_BEGIN, [
    KEY_HASH,
    null,
    at,
    WINDOW,
    ids.slotId,
    later(30_000),
    'tron',
    key,
    'fingerprint-1',
    ids.owner,
    later(30_000),
    PERIOD,
    ids.reservationId,
    later(60_000),
  ]);
  return { ...ids, row: rows[0] };
}

async function previousFinish(pool: pg.Pool, begun: Begun): Promise<Record<string, unknown>> {
  const { rows } = await pool.query(PREVIOUS_FINISH, [
    ORG,
    now,
    begun.slotId,
    begun.reservationId,
    true,
    begun.key,
    begun.owner,
    true,
    later(86_400_000),
    200,
    '{}',
    BODY,
    now.toISOString().slice(0, 10),
    'tron',
    'CLEAR',
    false,
    12,
  ]);
  return rows[0];
}

const finishParams = (begun: Begun): FinishCheckParams => ({
  organizationId: ORG,
  now,
  slotId: begun.slotId,
  reservation: { reservationId: begun.reservationId, commit: true },
  idempotency: {
    key: begun.key,
    owner: begun.owner,
    retainUntil: later(86_400_000),
    response: { status: 200, headers: {}, body: BODY },
  },
  usage: {
    organizationId: ORG,
    at: now,
    network: 'tron',
    overallState: 'CLEAR',
    coverage: 'complete',
    latencyMs: 12,
    errorCode: null,
  },
});

describe('store-postgres: migration 010 on a database of 009 with checks in flight', { skip: server.skip }, () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let stores: PostgresStores;
  let inFlight: Begun & { row: Record<string, unknown> };

  before(async () => {
    database = await server.createDatabase();
    pool = database.pool(4);
    const all = await loadMigrations();
    await migrate(pool, { migrations: all.filter((m) => m.version <= 9) });
    await insertOrganizationWithKey(
      pool,
      { id: ORG, name: 'In flight' },
      { hash: KEY_HASH, label: 'k', prefix: 'tsk_live_cccc' },
    );
    const done = await previousBegin(pool, 'done-before');
    assert.equal(done.row.stage, 'started');
    assert.equal((await previousFinish(pool, done)).billed, true);
    inFlight = await previousBegin(pool, 'in-flight');
    assert.equal(inFlight.row.stage, 'started');
    assert.deepEqual(await migrate(pool, { migrations: all.filter((m) => m.version <= 10) }), {
      applied: [10],
      version: 10,
    });
    stores = createPostgresStores({ pool });
  });
  after(() => database?.drop());

  test('Upgrade 010: a check begun before the upgrade finishes after it, billed and counted once', async () => {
    const finished = await stores.checks.finish(finishParams(inFlight));
    assert.deepEqual(finished, { billed: true, quota: { used: 2, reserved: 0 }, stored: true, repeated: false });
    const again = await stores.checks.finish(finishParams(inFlight));
    assert.deepEqual(again, { billed: false, quota: null, stored: false, repeated: true });
    const slots = await pool.query('SELECT count(*)::integer AS n FROM concurrency_slots');
    assert.equal(slots.rows[0].n, 0, 'the slot is free');
    const day = await pool.query('SELECT requests, billable FROM usage_days WHERE organization_id = $1', [ORG]);
    assert.deepEqual(day.rows, [{ requests: 2, billable: 2 }]);
  });

  test('Upgrade 010: a result stored before the upgrade replays through the new begin', async () => {
    const replay = await stores.checks.begin({
      credential: { apiKeyHash: KEY_HASH },
      now,
      rateWindowStart: WINDOW,
      slot: { slotId: randomUUID(), expiresAt: later(30_000) },
      work: {
        network: 'tron',
        idempotency: {
          key: 'done-before',
          fingerprint: 'fingerprint-1',
          owner: randomUUID(),
          leaseExpiresAt: later(30_000),
        },
        quota: { period: PERIOD, reservationId: randomUUID(), expiresAt: later(60_000) },
      },
    });
    assert.equal(replay.kind, 'admitted');
    assert.equal(replay.kind === 'admitted' && replay.stage, 'completed');
    assert.deepEqual(replay.kind === 'admitted' && replay.stage === 'completed' && replay.response, {
      status: 200,
      headers: {},
      body: BODY,
    });
    assert.equal(replay.kind === 'admitted' && replay.access.organization.createdAt instanceof Date, true);
  });

  test('Upgrade 010: a host of the previous version keeps beginning and finishing checks (rolling upgrade)', async () => {
    await pool.query('UPDATE api_keys SET last_used_at = NULL');
    const begun = await previousBegin(pool, 'old-host', later(1000));
    assert.equal(begun.row.stage, 'started');
    assert.equal(Object.keys(begun.row).length, 24, 'the 24 columns it reads');
    const used = await pool.query('SELECT last_used_at FROM api_keys');
    assert.deepEqual(used.rows[0].last_used_at, later(1000), 'its statement still sets the key’s last use');
    const finished = await previousFinish(pool, begun);
    assert.deepEqual(finished, {
      billed: true,
      quota_live: true,
      quota_used: 3,
      quota_reserved: 0,
      stored: true,
      repeated: false,
    });
  });

  test('Upgrade 010: slots are counted through their own index', async () => {
    const index = await pool.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'concurrency_slots_live'`);
    assert.match(index.rows[0].indexdef, /\(organization_id, expires_at\)/);
  });
});
