import type {
  ApiKeyRecord,
  ApiKeyStore,
  KeyCapReached,
  KeyCaps,
  RotateKeyParams,
  RotateOutcome,
} from '@tron-safety/core';
import { keyCapReached } from '@tron-safety/core/internal';
import * as t from 'io-ts';
import { err, ok } from 'neverthrow';
import type pg from 'pg';
import { inTransaction } from './connection.js';
import { Count, decodeRow, decodeRows, PgDate } from './rows.js';

const ApiKeyRow = t.type({
  id: t.string,
  organization_id: t.string,
  label: t.string,
  hash: t.string,
  prefix: t.string,
  created_at: PgDate,
  revoked_at: t.union([PgDate, t.null]),
  replaced_by: t.union([t.string, t.null]),
  last_used_at: t.union([PgDate, t.null]),
});

const COLUMNS = 'id, organization_id, label, hash, prefix, created_at, revoked_at, replaced_by, last_used_at';
const KeyCountsRow = t.type({ kept: Count, active: Count });

/**
 * Advisory lock class of an organization's capped key inserts and rotations ("keys" in ASCII), object =
 * hash of the organization id: each counts the keys and inserts under it, so concurrent ones see each
 * other's rows and cannot pass a cap by their number. Uncapped inserts (a seed file's) take no lock.
 */
const KEYS_LOCK_CLASS = 1801812339;

/** API keys, stored only as their SHA-256 (the core hashes; this store never sees a full key). */
export class PostgresApiKeyStore implements ApiKeyStore {
  constructor(private readonly pool: pg.Pool) {}

  async insertKey(record: ApiKeyRecord, caps?: KeyCaps): Promise<boolean | KeyCapReached> {
    if (!caps) return insertRow(this.pool, record);
    return inTransaction(this.pool, async (client) => {
      const capReached = keyCapReached(await lockedCounts(client, record.organizationId), caps);
      return capReached ?? insertRow(client, record);
    });
  }

  async findKeyByHash(hash: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.pool.query(`SELECT ${COLUMNS} FROM api_keys WHERE hash = $1`, [hash]);
    const row = decodeRow(ApiKeyRow, rows, 'api_keys');
    return row ? toRecord(row) : null;
  }

  async listKeys(organizationId: string): Promise<ApiKeyRecord[]> {
    const { rows } = await this.pool.query(
      `SELECT ${COLUMNS} FROM api_keys WHERE organization_id = $1 ORDER BY created_at, id COLLATE "C"`,
      [organizationId],
    );
    return decodeRows(ApiKeyRow, rows, 'api_keys').map(toRecord);
  }

  async revokeKey(organizationId: string, keyId: string, now: Date): Promise<ApiKeyRecord | null> {
    const { rows } = await this.pool.query(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3)
        WHERE organization_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
      [organizationId, keyId, now],
    );
    const row = decodeRow(ApiKeyRow, rows, 'api_keys');
    return row ? toRecord(row) : null;
  }

  async rotateKey({ organizationId, keyId, replacement, now, caps }: RotateKeyParams): Promise<RotateOutcome> {
    return inTransaction(this.pool, async (client) => {
      const exists = async () =>
        (await client.query('SELECT 1 FROM api_keys WHERE organization_id = $1 AND id = $2', [organizationId, keyId]))
          .rowCount === 1;
      if (caps && keyCapReached(await lockedCounts(client, organizationId), caps))
        return err((await exists()) ? 'kept_keys' : 'not_found');
      // The conditional UPDATE is the check: of two concurrent rotations only one finds the key active.
      const revoked = await client.query(
        `UPDATE api_keys SET revoked_at = $3, replaced_by = $4
          WHERE organization_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
        [organizationId, keyId, now, replacement.id],
      );
      const old = decodeRow(ApiKeyRow, revoked.rows, 'api_keys');
      if (!old) return err((await exists()) ? 'revoked' : 'not_found');
      // A clash of the replacement's id or hash throws and rolls the revocation back.
      const created = await client.query(
        `INSERT INTO api_keys (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
        keyParams(replacement),
      );
      return ok({ revoked: toRecord(old), created: toRecord(decodeRows(ApiKeyRow, created.rows, 'api_keys')[0]!) });
    });
  }
}

/** Inserts the row; false when its id or hash exists. */
async function insertRow(db: pg.Pool | pg.PoolClient, record: ApiKeyRecord): Promise<boolean> {
  // No conflict target: a clash on the id or on the hash both mean "not inserted".
  const result = await db.query(
    `INSERT INTO api_keys (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
    keyParams(record),
  );
  return result.rowCount === 1;
}

/** Takes the organization's key lock until the transaction ends, then counts its keys. */
async function lockedCounts(client: pg.PoolClient, organizationId: string) {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [KEYS_LOCK_CLASS, organizationId]);
  // Read after the lock is granted: it sees every key a capped insert committed before.
  const { rows } = await client.query(
    'SELECT count(*) AS kept, count(*) FILTER (WHERE revoked_at IS NULL) AS active FROM api_keys WHERE organization_id = $1',
    [organizationId],
  );
  return decodeRow(KeyCountsRow, rows, 'api_keys')!;
}

function keyParams(r: ApiKeyRecord): unknown[] {
  return [r.id, r.organizationId, r.label, r.hash, r.prefix, r.createdAt, r.revokedAt, r.replacedBy, r.lastUsedAt];
}

function toRecord(row: t.TypeOf<typeof ApiKeyRow>): ApiKeyRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    label: row.label,
    hash: row.hash,
    prefix: row.prefix,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    replacedBy: row.replaced_by,
    lastUsedAt: row.last_used_at,
  };
}
