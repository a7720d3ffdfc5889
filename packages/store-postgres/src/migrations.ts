import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import * as t from 'io-ts';
import type pg from 'pg';
import { inTransaction } from './connection.js';
import { decodeRows } from './rows.js';

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

/** A `schema_migrations` row; `sha256` is null for one applied before hashes were recorded. */
const AppliedRow = t.type({ version: t.number, sha256: t.union([t.string, t.null]) });

/** The SHA-256 of a migration's text, line endings as LF (a CRLF checkout is the same file). */
function migrationHash(migration: Migration): string {
  return createHash('sha256').update(migration.sql.replaceAll('\r\n', '\n')).digest('hex');
}

/**
 * Brings the schema up to date. All pending migrations run in one transaction under an
 * advisory transaction lock, so hosts starting together apply each migration exactly once
 * (the others wait, then find nothing to do) and a failure leaves the schema unchanged.
 *
 * Each applied migration's SHA-256 is recorded, and a database that applied another text of a
 * migration (one edited after it ran) is refused, naming it: comparing version numbers alone, it would
 * keep the old text's functions silently. Rows applied before hashes were recorded take this file's
 * (trust on first use: the text they ran is not known).
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
    // Under the lock, as every migration: hosts of earlier versions insert rows without it.
    await client.query('ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS sha256 text');
    const { rows } = await client.query('SELECT version, sha256 FROM schema_migrations');
    const recorded = new Map(decodeRows(AppliedRow, rows, 'schema_migrations').map((r) => [r.version, r.sha256]));
    const applied: number[] = [];
    for (const migration of migrations) {
      const sha256 = migrationHash(migration);
      const was = recorded.get(migration.version);
      if (was === undefined) {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name, sha256) VALUES ($1, $2, $3)', [
          migration.version,
          migration.name,
          sha256,
        ]);
        applied.push(migration.version);
      } else if (was === null) {
        await client.query('UPDATE schema_migrations SET sha256 = $2 WHERE version = $1', [migration.version, sha256]);
      } else if (was !== sha256) {
        throw new Error(changedMessage(migration, was, sha256));
      }
    }
    const version = Math.max(0, ...recorded.keys(), ...applied);
    return { applied, version };
  });
}

function changedMessage(migration: Migration, recorded: string, file: string): string {
  const label = `${String(migration.version).padStart(3, '0')}_${migration.name}`;
  return (
    `migration ${label}: this database applied another text of it (sha256 ${recorded.slice(0, 12)}… recorded, ` +
    `${file.slice(0, 12)}… in this version's file), so it lacks what the file does now; migrate refuses rather ` +
    `than run on it. An applied migration must never change: its change belongs in a new migration`
  );
}
