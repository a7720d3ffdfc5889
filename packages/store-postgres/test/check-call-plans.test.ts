// begin_check_record and finish_check_record keep reading by index when the tables they churn grow
// under a connection's cached plans (migration 014).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { BeginCheckParams } from '@tron-safety/core';
import type pg from 'pg';
import { createPostgresStores, migrate, type PostgresStores } from '../src/index.js';
import { startTestPostgres, type TestDatabase } from '@tron-safety/store-postgres/testing';
import { insertOrganizationWithKey } from './support/previous-schema.js';

const server = await startTestPostgres();
after(() => server.stop());

const ORG = randomUUID();
const KEY_HASH = 'e'.repeat(64);
const NOW = new Date('2026-11-24T10:00:00Z');
const LEASE = new Date(NOW.getTime() + 42_000);
/** Deleted rows left for vacuum: some hundreds of heap pages. */
const CHURNED = 40_000;

describe('store-postgres: the check calls’ plans', { skip: server.skip }, () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let stores: PostgresStores;

  before(async () => {
    database = await server.createDatabase();
    await migrate(database.pool(1));
    // One connection: every call below runs in the backend whose plans it caches.
    pool = database.pool(1);
    await insertOrganizationWithKey(
      pool,
      { id: ORG, name: 'Churned' },
      { hash: KEY_HASH, label: 'k', prefix: 'tsk_live_eeee' },
    );
    await pool.query('ALTER TABLE quota_reservations SET (autovacuum_enabled = false)');
    stores = createPostgresStores({ pool });
  });
  after(() => database?.drop());

  /** One keyed check, begun and finished; the heap pages of quota_reservations it read. */
  async function check(): Promise<number> {
    const params: BeginCheckParams = {
      credential: { apiKeyHash: KEY_HASH },
      now: NOW,
      rateWindowStart: NOW,
      slot: { slotId: randomUUID(), expiresAt: LEASE },
      work: {
        network: 'tron',
        idempotency: { key: randomUUID(), fingerprint: 'f', owner: randomUUID(), leaseExpiresAt: LEASE },
        quota: { period: '2026-11', reservationId: randomUUID(), expiresAt: LEASE },
      },
    };
    const before = await heapHits();
    const begun = await stores.checks.begin(params);
    assert.equal(begun.kind === 'admitted' && begun.stage, 'started');
    const claim = params.work!.idempotency!;
    await stores.checks.finish({
      organizationId: ORG,
      now: NOW,
      slotId: params.slot!.slotId,
      reservation: { reservationId: params.work!.quota.reservationId, commit: true },
      idempotency: { key: claim.key, owner: claim.owner, response: null, retainUntil: LEASE },
      usage: null,
    });
    return (await heapHits()) - before;
  }
  /** This backend's statistics, flushed first (it reads them itself). */
  async function heapHits(): Promise<number> {
    await pool.query('SELECT pg_stat_force_next_flush()');
    const { rows } = await pool.query(
      `SELECT heap_blks_hit FROM pg_statio_user_tables WHERE schemaname = current_schema() AND relname = 'quota_reservations'`,
    );
    return Number(rows[0].heap_blks_hit);
  }

  test('a connection’s cached plans read quota_reservations by index after the table grew to hundreds of pages', async () => {
    // Plans cached while the table is a page of the organization's reservations, as analyzed (so every
    // row matches the organization and the period): PL/pgSQL settles on a generic plan after five calls.
    await pool.query(
      `INSERT INTO quota_reservations (id, organization_id, period, expires_at)
       SELECT 'held-' || i, $1, '2026-11', $2 FROM generate_series(1, 20) i`,
      [ORG, LEASE],
    );
    await pool.query('ANALYZE quota_reservations');
    for (let i = 0; i < 6; i++) await check();
    await pool.query(
      `WITH r AS (
         INSERT INTO quota_reservations (id, organization_id, period, expires_at)
         SELECT 'churn-' || i, $1, '2026-11', $2::timestamptz - interval '1 hour' FROM generate_series(1, $3) i
         RETURNING id)
       SELECT count(*) FROM r`,
      [ORG, NOW, CHURNED],
    );
    await pool.query(`DELETE FROM quota_reservations WHERE id LIKE 'churn-%'`);
    const pages = Number(
      (await pool.query(`SELECT pg_relation_size('quota_reservations') / 8192 AS pages`)).rows[0].pages,
    );
    assert.ok(pages > 200, `the table grew to ${pages} pages`);
    // A sequential scan reads every page (three counts of expired reservations per check). Index
    // scans read a few pages per count: the first marks the dead entries it meets, the next skip them.
    await check();
    const hits = await check();
    assert.ok(hits < 40, `${hits} heap pages read for ${pages} in the table`);
  });
});
