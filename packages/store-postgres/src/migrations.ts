import { readdir, readFile } from 'node:fs/promises';
import type pg from 'pg';
import { inTransaction } from './connection.js';

/** The package's numbered SQL files (`NNN_name.sql`), beside `src/` and `dist/` alike. */
const MIGRATIONS_DIR = new URL('../migrations/', import.meta.url);

/**
 * Advisory lock key of the runner (an arbitrary constant, "tron-saf" in ASCII). Advisory locks
 * are per database, so databases on one server do not block each other.
 */
const MIGRATION_LOCK_KEY = 0x74726f6e_2d736166n;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export async function loadMigrations(dir: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const migrations: Migration[] = [];
  for (const file of (await readdir(dir)).sort()) {
    const match = /^(\d+)_([\w-]+)\.sql$/.exec(file);
    if (!match) continue;
    migrations.push({ version: Number(match[1]), name: match[2]!, sql: await readFile(new URL(file, dir), 'utf8') });
  }
  const versions = migrations.map((m) => m.version);
  if (new Set(versions).size !== versions.length) throw new Error(`duplicate migration versions in ${dir.pathname}`);
  return migrations.sort((a, b) => a.version - b.version);
}

export interface MigrateResult {
  /** Versions this call applied (empty when the schema was already current). */
  applied: number[];
  /** The schema's version afterwards. */
  version: number;
}

/**
 * Brings the schema up to date. All pending migrations run in one transaction under an
 * advisory transaction lock, so hosts starting together apply each migration exactly once
 * (the others wait, then find nothing to do) and a failure leaves the schema unchanged.
 */
export async function migrate(
  pool: pg.Pool,
  options: { migrations?: Migration[]; timeoutMs?: number } = {},
): Promise<MigrateResult> {
  const migrations = options.migrations ?? (await loadMigrations());
  const timeoutMs = Math.max(1, Math.trunc(options.timeoutMs ?? 60_000));
  return inTransaction(pool, async (client) => {
    // A migration may legitimately outlast the pool's per-statement timeouts.
    await client.query(`SET LOCAL statement_timeout = ${timeoutMs}`);
    await client.query(`SET LOCAL lock_timeout = ${timeoutMs}`);
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer     PRIMARY KEY,
      name       text        NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((r) => r.version));
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    const version = Math.max(0, ...done, ...applied);
    return { applied, version };
  });
}
