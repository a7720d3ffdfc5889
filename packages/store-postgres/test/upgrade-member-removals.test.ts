// Migration 011 (portal_member_removals) on a populated database of migration 010: its members stay as
// they were, a removal after the upgrade is recorded so a seed insert no longer brings the member back,
// and hosts of the previous version (a rolling upgrade) keep inserting, finding and removing members
// with their statements.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { MemberRecord } from '@tron-safety/core';
import type pg from 'pg';
import { createPostgresStores, loadMigrations, migrate, type PostgresStores } from '../src/index.js';
import { startTestPostgres, type TestDatabase } from '@tron-safety/store-postgres/testing';

const server = await startTestPostgres();
after(() => server.stop());

const ORG = randomUUID();
const T0 = new Date('2026-11-01T10:00:00.000Z');

/** The previous host's statements (migration 010's members.ts), as a host not yet upgraded sends them. */
const PREVIOUS_INSERT = `INSERT INTO portal_members (id, organization_id, email, role, password_hash, invitation_hash,
  invitation_expires_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, NULL, NULL, $6, $6) ON CONFLICT DO NOTHING`;
const PREVIOUS_FIND = 'SELECT id, organization_id, email, role FROM portal_members WHERE email = $1';
const PREVIOUS_REMOVE = 'DELETE FROM portal_members m WHERE m.organization_id = $1 AND m.id = $2 AND m.role = $3';

const previousInsert = (pool: pg.Pool, id: string, email: string, role = 'viewer') =>
  pool.query(PREVIOUS_INSERT, [id, ORG, email, role, 'scrypt$1$1$1$c2FsdA$a2V5', T0]);

const record = (id: string, email: string): MemberRecord => ({
  id,
  organizationId: ORG,
  email,
  role: 'admin',
  passwordHash: 'scrypt$1$1$1$c2FsdA$a2V5',
  invitation: null,
  createdAt: T0,
  updatedAt: T0,
});

describe('store-postgres: migration 011 on a database of 010 with members', { skip: server.skip }, () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let stores: PostgresStores;
  const owner = randomUUID();
  const admin = randomUUID();

  before(async () => {
    database = await server.createDatabase();
    pool = database.pool(4);
    const all = await loadMigrations();
    await migrate(pool, { migrations: all.filter((m) => m.version <= 10) });
    await previousInsert(pool, owner, 'owner@example.com', 'owner');
    await previousInsert(pool, admin, 'ex@example.com', 'admin');
    assert.deepEqual(await migrate(pool, { migrations: all.filter((m) => m.version <= 11) }), {
      applied: [11],
      version: 11,
    });
    stores = createPostgresStores({ pool });
  });
  after(() => database?.drop());

  test('Upgrade 011: the members stored before stay; a removal after it keeps a seed from inserting the member again', async () => {
    const emails = (await stores.members.listMembers(ORG)).map((m) => m.email).sort();
    assert.deepEqual(emails, ['ex@example.com', 'owner@example.com']);
    assert.equal(await stores.members.removedAt(ORG, 'ex@example.com'), null, 'no removal recorded by the upgrade');
    const removed = await stores.members.removeMember({
      organizationId: ORG,
      memberId: admin,
      expectedRole: 'admin',
      now: T0,
    });
    assert.ok(removed.isOk());
    assert.deepEqual(await stores.members.removedAt(ORG, 'ex@example.com'), T0);
    assert.equal(
      await stores.members.insertMember(record(randomUUID(), 'ex@example.com'), { unlessRemoved: true }),
      false,
    );
    assert.equal(await stores.members.findMemberByEmail('ex@example.com'), null);
  });

  test('Upgrade 011: a host of the previous version keeps inserting, finding and removing members (rolling upgrade)', async () => {
    const id = randomUUID();
    assert.equal((await previousInsert(pool, id, 'old-host@example.com')).rowCount, 1);
    assert.equal((await pool.query(PREVIOUS_FIND, ['old-host@example.com'])).rows[0].id, id);
    assert.equal(
      (await pool.query(PREVIOUS_FIND, ['ex@example.com'])).rowCount,
      0,
      'a removed member is no member to it',
    );
    assert.equal((await pool.query(PREVIOUS_REMOVE, [ORG, id, 'viewer'])).rowCount, 1);
    assert.equal(await stores.members.findMemberByEmail('old-host@example.com'), null);
    assert.equal(
      (await previousInsert(pool, randomUUID(), 'ex@example.com')).rowCount,
      1,
      'it may invite a removed email',
    );
  });
});
