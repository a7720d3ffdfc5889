// Migration 013 (finish_check_record fenced on the key's claim) on a database of migration 012 with
// checks in flight, begun by hosts of the previous version (whose statements are this version's:
// 013 keeps the function's signature): what they began finishes on the upgraded schema, and a claim
// taken over before the upgrade is billed once, by its new owner.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { BeginCheckParams, FinishCheckParams } from '@tron-safety/core';
import type pg from 'pg';
import { createPostgresStores, loadMigrations, migrate, type PostgresStores } from '../src/index.js';
import { startTestPostgres, type TestDatabase } from '@tron-safety/store-postgres/testing';
import { insertOrganizationWithKey } from './support/previous-schema.js';

const server = await startTestPostgres();
after(() => server.stop());

const ORG = randomUUID();
const KEY_HASH = 'd'.repeat(64);
const T0 = new Date('2026-01-31T23:59:30.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const LEASE_MS = 42_000;

/** A keyed check begun at `now` (the host's clock), reserving in that instant's month. */
function keyed(key: string, now: Date): BeginCheckParams {
  const id = randomUUID();
  const lease = new Date(now.getTime() + LEASE_MS);
  return {
    credential: { apiKeyHash: KEY_HASH },
    now,
    rateWindowStart: new Date(Math.floor(now.getTime() / 60_000) * 60_000),
    slot: { slotId: id, expiresAt: lease },
    work: {
      network: 'tron',
      idempotency: { key, fingerprint: 'f1', owner: id, leaseExpiresAt: lease },
      quota: { period: now.toISOString().slice(0, 7), reservationId: id, expiresAt: lease },
    },
  };
}

/** The complete result's finish of `begun`, at `now`: bill, store, record usage. */
function complete(begun: BeginCheckParams, now: Date, body: string): FinishCheckParams {
  const { idempotency, quota } = begun.work!;
  return {
    organizationId: ORG,
    now,
    slotId: begun.slot!.slotId,
    reservation: { reservationId: quota.reservationId, commit: true },
    idempotency: {
      key: idempotency!.key,
      owner: idempotency!.owner,
      response: { status: 200, headers: {}, body },
      retainUntil: at(86_400_000),
    },
    usage: {
      organizationId: ORG,
      at: begun.now,
      network: 'tron',
      overallState: 'CLEAR',
      coverage: 'complete',
      latencyMs: 12,
      errorCode: null,
    },
  };
}

describe('store-postgres: migration 013 on a database of 012 with checks in flight', { skip: server.skip }, () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let stores: PostgresStores;
  // Host A began 'skewed' on January 31st; host B, its clock 60 s ahead, took it over in February.
  const staleA = keyed('skewed', T0);
  const ownerB = keyed('skewed', at(60_000));
  const inFlight = keyed('in-flight', T0);

  before(async () => {
    database = await server.createDatabase();
    pool = database.pool(4);
    const all = await loadMigrations();
    await migrate(pool, { migrations: all.filter((m) => m.version <= 12) });
    await insertOrganizationWithKey(
      pool,
      { id: ORG, name: 'Fenced' },
      { hash: KEY_HASH, label: 'k', prefix: 'tsk_live_dddd' },
    );
    stores = createPostgresStores({ pool });
    for (const begun of [staleA, ownerB, inFlight]) {
      const outcome = await stores.checks.begin(begun);
      assert.equal(outcome.kind === 'admitted' && outcome.stage, 'started');
    }
    assert.deepEqual(await migrate(pool, { migrations: all.filter((m) => m.version <= 13) }), {
      applied: [13],
      version: 13,
    });
  });
  after(() => database?.drop());

  test('Upgrade 013: a check begun before the upgrade finishes after it, billed and stored once', async () => {
    const finished = await stores.checks.finish(complete(inFlight, at(1000), '{"check":"in-flight"}'));
    // January's other reservation, host A's, is still held.
    assert.deepEqual(finished, { billed: true, quota: { used: 1, reserved: 1 }, stored: true, repeated: false });
  });

  test('Upgrade 013: a claim taken over before the upgrade is billed once, by its new owner', async () => {
    const stale = await stores.checks.finish(complete(staleA, at(1000), '{"host":"A"}'));
    assert.deepEqual(stale, { billed: false, quota: { used: 1, reserved: 0 }, stored: false, repeated: false });
    const owner = await stores.checks.finish(complete(ownerB, at(61_000), '{"host":"B"}'));
    assert.deepEqual(owner, { billed: true, quota: { used: 1, reserved: 0 }, stored: true, repeated: false });
    const counters = await pool.query(
      'SELECT period, used, reserved FROM quota_counters WHERE organization_id = $1 ORDER BY period',
      [ORG],
    );
    assert.deepEqual(counters.rows, [
      { period: '2026-01', used: 1, reserved: 0 },
      { period: '2026-02', used: 1, reserved: 0 },
    ]);
    const stored = await pool.query(
      "SELECT response_body FROM idempotency_records WHERE organization_id = $1 AND key = 'skewed'",
      [ORG],
    );
    assert.deepEqual(stored.rows, [{ response_body: '{"host":"B"}' }]);
  });
});
