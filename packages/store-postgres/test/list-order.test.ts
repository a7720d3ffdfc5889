// Lists name their order in code units (ORDER BY created_at, id COLLATE "C"), so a database whose
// default collation follows a locale (en_US and the like put `a` before `B`) lists ties as the memory
// store does. The columns here take an ICU locale's collation, as such a database gives them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import { createPostgresStores, migrate, type PostgresStores } from '../src/index.js';
import { startTestPostgres, type TestDatabase } from '@tron-safety/store-postgres/testing';

const server = await startTestPostgres();
after(() => server.stop());

const T0 = new Date('2026-11-24T10:00:00.000Z');
const LOCALE = 'und-x-icu';

describe('store-postgres: lists in a database whose collation follows a locale', { skip: server.skip }, () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let stores: PostgresStores;
  let skip: string | false = false;
  const base = randomUUID();
  const listed = [`${base}-0`, `${base}-B`, `${base}-a`];
  const inserted = [listed[2]!, listed[0]!, listed[1]!];

  before(async () => {
    database = await server.createDatabase();
    pool = database.pool(2);
    await migrate(pool);
    const icu = await pool.query('SELECT 1 FROM pg_collation WHERE collname = $1', [LOCALE]);
    if (icu.rowCount === 0) {
      skip = `this server has no ICU collation ${LOCALE}`;
      return;
    }
    for (const table of ['organizations', 'api_keys', 'portal_members'])
      await pool.query(`ALTER TABLE ${table} ALTER COLUMN id TYPE text COLLATE "${LOCALE}"`);
    const order = await pool.query(`SELECT 'a' < 'B' COLLATE "${LOCALE}" AS locale_first`);
    assert.equal(order.rows[0].locale_first, true, 'the locale orders a before B');
    stores = createPostgresStores({ pool });
  });
  after(() => database?.drop());

  test('Lists: organizations, keys and members created in the same millisecond are listed by id, in code units', async (t) => {
    if (skip) return t.skip(skip);
    const orgId = randomUUID();
    const entitlements = {
      rateLimitPerMinute: 1,
      maxConcurrentRequests: 1,
      monthlyQuota: 1,
      enabledNetworks: ['tron'],
    };
    for (const id of inserted) {
      const assignment = { kind: 'custom' as const, entitlements };
      await stores.organizations.createOrganization({
        id,
        name: 'o',
        status: 'active',
        assignment,
        createdAt: T0,
        updatedAt: T0,
      });
      await stores.apiKeys.insertKey({
        id,
        organizationId: orgId,
        label: 'k',
        hash: randomUUID().replaceAll('-', '').repeat(2),
        prefix: 'tsk_live_abcdefgh',
        createdAt: T0,
        revokedAt: null,
        replacedBy: null,
        lastUsedAt: null,
      });
      await stores.members.insertMember({
        id,
        organizationId: orgId,
        email: `${randomUUID()}@example.com`,
        role: 'viewer',
        passwordHash: null,
        invitation: null,
        createdAt: T0,
        updatedAt: T0,
      });
    }
    const organizations = (await stores.organizations.listOrganizations()).map((o) => o.id);
    assert.deepEqual(organizations, listed);
    assert.deepEqual(
      (await stores.apiKeys.listKeys(orgId)).map((k) => k.id),
      listed,
    );
    assert.deepEqual(
      (await stores.members.listMembers(orgId)).map((m) => m.id),
      listed,
    );
  });
});
