// begin_check_record records the API key's last use (the portal's key list) without ever making a
// check wait for it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { BeginCheckOutcome } from '@tron-safety/core';
import type pg from 'pg';
import { createPostgresStores, migrate, type PostgresStores } from '../src/index.js';
import { startTestPostgres, type TestDatabase } from '@tron-safety/store-postgres/testing';
import { insertOrganizationWithKey } from './support/previous-schema.js';

const server = await startTestPostgres();
after(() => server.stop());

const ORG = randomUUID();
const KEY_HASH = 'd'.repeat(64);
const START = new Date('2026-11-24T10:00:00Z');
const at = (seconds: number) => new Date(START.getTime() + seconds * 1000);

describe('store-postgres: the API key’s last use', { skip: server.skip }, () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let stores: PostgresStores;

  before(async () => {
    database = await server.createDatabase();
    pool = database.pool(4);
    await migrate(pool);
    await insertOrganizationWithKey(
      pool,
      { id: ORG, name: 'Busy' },
      { hash: KEY_HASH, label: 'k', prefix: 'tsk_live_dddd' },
    );
    stores = createPostgresStores({ pool });
  });
  after(() => database?.drop());

  /** A begin with the key and no work (authentication and rate only): nothing to give back. */
  const begin = (now: Date): Promise<BeginCheckOutcome> =>
    stores.checks.begin({ credential: { apiKeyHash: KEY_HASH }, now, rateWindowStart: now, slot: null, work: null });
  const lastUsed = async () =>
    (await pool.query('SELECT last_used_at FROM api_keys WHERE hash = $1', [KEY_HASH])).rows[0].last_used_at;

  test('a begin sets the key’s last use when it is at least a minute old, and leaves it otherwise', async () => {
    assert.equal((await begin(at(0))).kind, 'admitted');
    assert.deepEqual(await lastUsed(), at(0));
    await begin(at(30));
    assert.deepEqual(await lastUsed(), at(0));
    await begin(at(61));
    assert.deepEqual(await lastUsed(), at(61));
  });

  test('a begin never waits for a key row locked by a rotation or revocation: it skips the last-use write', async () => {
    const rotation = await pool.connect();
    try {
      await rotation.query('BEGIN');
      await rotation.query('UPDATE api_keys SET label = label WHERE hash = $1', [KEY_HASH]);
      const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 2000).unref());
      const outcome = await Promise.race([begin(at(600)), waited]);
      assert.notEqual(outcome, 'waited', 'answered without waiting for the lock');
      assert.equal(outcome !== 'waited' && outcome.kind, 'admitted');
      assert.deepEqual(await lastUsed(), at(61), 'the locked row was not written');
    } finally {
      await rotation.query('ROLLBACK');
      rotation.release();
    }
    await begin(at(660));
    assert.deepEqual(await lastUsed(), at(660), 'written again once the row is free');
  });
});
