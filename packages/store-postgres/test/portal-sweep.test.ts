// The portal tables' sweep: bounded DELETE statements that catch up from any backlog.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type pg from 'pg';
import { migrate, PostgresSessionStore } from '../src/index.js';
import { startTestPostgres } from '@tron-safety/store-postgres/testing';

const server = await startTestPostgres();

if (server.skip) {
  test('store-postgres: portal sweep', { skip: server.skip }, () => {});
} else {
  const database = await server.createDatabase();
  const pool = database.pool(4);
  await migrate(pool);
  after(async () => {
    await database.drop();
    await server.stop();
  });

  test('a backlog of expired sessions and failure windows is swept in batches of 5000, live rows kept', async () => {
    const now = new Date('2026-06-01T12:00:00Z');
    await pool.query(
      `INSERT INTO portal_sign_in_failures (key, window_start, count, expires_at)
       SELECT 'client:' || i, $1::timestamptz, 1, $1::timestamptz + interval '15 minutes' FROM generate_series(1, 12001) i`,
      [new Date(now.getTime() - 3_600_000)],
    );
    await pool.query(
      `INSERT INTO portal_sessions (token_hash, member_id, organization_id, created_at, expires_at, idle_expires_at)
       SELECT md5(i::text), 'm', 'o', $1, $1::timestamptz + interval '12 hours', $1::timestamptz + interval '30 minutes'
         FROM generate_series(1, 3000) i`,
      [new Date(now.getTime() - 3_600_000)],
    );
    await pool.query(
      `INSERT INTO portal_sessions (token_hash, member_id, organization_id, created_at, expires_at, idle_expires_at)
       VALUES ('live', 'm', 'o', $1, $1::timestamptz + interval '12 hours', $1::timestamptz + interval '30 minutes')`,
      [now],
    );
    const statements: string[] = [];
    const counting = {
      query: (sql: string, params: unknown[]) => (statements.push(sql), pool.query(sql, params)),
    } as unknown as pg.Pool;
    assert.equal(await new PostgresSessionStore(counting).purgeExpired(now), 15_001);
    assert.equal(statements.length, 1 + 3, 'one statement for 3000 sessions, three for 12001 windows');
    const left = await pool.query(
      'SELECT (SELECT count(*) FROM portal_sessions) AS s, (SELECT count(*) FROM portal_sign_in_failures) AS f',
    );
    assert.deepEqual(left.rows[0], { s: '1', f: '0' });
  });
}
