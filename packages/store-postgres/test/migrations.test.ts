import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { loadMigrations, migrate } from '../src/index.js';
import { startTestPostgres } from './postgres.js';

const server = await startTestPostgres();

describe('store-postgres: migrations', { skip: server.skip }, () => {
  after(() => server.stop());

  test('the package ships numbered migrations in order', async () => {
    const migrations = await loadMigrations();
    assert.ok(migrations.length >= 1);
    assert.deepEqual(migrations.map((m) => m.version), [...migrations.map((m) => m.version)].sort((a, b) => a - b));
    assert.equal(migrations[0]!.version, 1);
  });

  test('applying twice is a no-op the second time', async () => {
    const database = await server.createDatabase();
    try {
      const pool = database.pool(2);
      const all = (await loadMigrations()).map((m) => m.version);
      assert.deepEqual(await migrate(pool), { applied: all, version: Math.max(...all) });
      assert.deepEqual(await migrate(pool), { applied: [], version: Math.max(...all) });
      const { rows } = await pool.query('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(rows.map((r) => r.version), all);
    } finally {
      await database.drop();
    }
  });

  test('8 hosts starting at once on an empty database: each migration applied exactly once, nobody fails', async () => {
    const database = await server.createDatabase();
    try {
      const results = await Promise.all(Array.from({ length: 8 }, () => migrate(database.pool(1))));
      const applied = results.flatMap((r) => r.applied);
      const all = (await loadMigrations()).map((m) => m.version);
      assert.deepEqual(applied.sort((a, b) => a - b), all);
      assert.equal(results.filter((r) => r.applied.length > 0).length, 1);
      assert.ok(results.every((r) => r.version === Math.max(...all)));
    } finally {
      await database.drop();
    }
  });

  test('a failing migration leaves the schema as it was; later runs resume', async () => {
    const database = await server.createDatabase();
    try {
      const pool = database.pool(2);
      const good = { version: 1, name: 'good', sql: 'CREATE TABLE good (id integer)' };
      const bad = { version: 2, name: 'bad', sql: 'CREATE TABLE bad (id integer); SELECT no_such_function()' };
      await assert.rejects(migrate(pool, { migrations: [good, bad] }), /no_such_function/);
      const tables = await pool.query(`SELECT to_regclass('good') AS good, to_regclass('bad') AS bad, to_regclass('schema_migrations') AS log`);
      assert.deepEqual(tables.rows[0], { good: null, bad: null, log: null }, 'all or nothing');
      const fixed = { ...bad, sql: 'CREATE TABLE bad (id integer)' };
      assert.deepEqual(await migrate(pool, { migrations: [good, fixed] }), { applied: [1, 2], version: 2 });
      assert.deepEqual(await migrate(pool, { migrations: [good, fixed] }), { applied: [], version: 2 });
    } finally {
      await database.drop();
    }
  });
});
