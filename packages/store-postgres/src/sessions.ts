import type {
  AddSignInFailureParams,
  SessionRecord,
  SessionStore,
  SignInFailureParams,
  TouchSessionParams,
} from '@tron-safety/core';
import * as t from 'io-ts';
import type pg from 'pg';
import { Count, decodeRow, decodeRows, PgDate } from './rows.js';

const SessionRow = t.type({
  token_hash: t.string,
  member_id: t.string,
  organization_id: t.string,
  created_at: PgDate,
  expires_at: PgDate,
  idle_expires_at: PgDate,
});
const CountRow = t.type({ count: Count });

const COLUMNS = 'token_hash, member_id, organization_id, created_at, expires_at, idle_expires_at';

/** Portal sessions (token SHA-256 only) and the sign-in failure windows, shared by every host. */
export class PostgresSessionStore implements SessionStore {
  constructor(private readonly pool: pg.Pool) {}

  async createSession(record: SessionRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO portal_sessions (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, LEAST($6::timestamptz, $5::timestamptz))`,
      [
        record.tokenHash,
        record.memberId,
        record.organizationId,
        record.createdAt,
        record.expiresAt,
        record.idleExpiresAt,
      ],
    );
  }

  async touchSession(params: TouchSessionParams): Promise<SessionRecord | null> {
    const { rows } = await this.pool.query(
      `UPDATE portal_sessions SET idle_expires_at = LEAST($3::timestamptz, expires_at)
        WHERE token_hash = $1 AND expires_at > $2 AND idle_expires_at > $2
        RETURNING ${COLUMNS}`,
      [params.tokenHash, params.now, params.idleExpiresAt],
    );
    const row = decodeRow(SessionRow, rows, 'portal_sessions');
    return row ? toRecord(row) : null;
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.pool.query('DELETE FROM portal_sessions WHERE token_hash = $1', [tokenHash]);
  }

  async deleteMemberSessions(memberId: string): Promise<number> {
    const result = await this.pool.query('DELETE FROM portal_sessions WHERE member_id = $1', [memberId]);
    return result.rowCount ?? 0;
  }

  async addSignInFailure(params: AddSignInFailureParams): Promise<number> {
    const { rows } = await this.pool.query(
      `INSERT INTO portal_sign_in_failures (key, window_start, count, expires_at) VALUES ($1, $2, 1, $3)
       ON CONFLICT (key, window_start) DO UPDATE SET count = portal_sign_in_failures.count + 1
       RETURNING count`,
      [params.key, params.windowStart, params.expiresAt],
    );
    return decodeRows(CountRow, rows, 'portal_sign_in_failures')[0]?.count ?? 0;
  }

  async forgiveSignInFailure(params: SignInFailureParams): Promise<void> {
    await this.pool.query(
      'UPDATE portal_sign_in_failures SET count = count - 1 WHERE key = $1 AND window_start = $2 AND count > 0',
      [params.key, params.windowStart],
    );
  }

  async purgeExpired(now: Date, limit = 2_147_483_647): Promise<number> {
    return (
      (await this.#purgeBatch('portal_sessions', 'idle_expires_at', now, limit)) +
      (await this.#purgeBatch('portal_sign_in_failures', 'expires_at', now, limit))
    );
  }

  /** Deletes up to `limit` rows whose `column` is at or before `now`, in one statement. */
  async #purgeBatch(table: string, column: string, now: Date, limit: number): Promise<number> {
    const result = await this.pool.query(
      `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${column} <= $1 LIMIT $2)`,
      [now, limit],
    );
    return result.rowCount ?? 0;
  }
}

function toRecord(row: t.TypeOf<typeof SessionRow>): SessionRecord {
  return {
    tokenHash: row.token_hash,
    memberId: row.member_id,
    organizationId: row.organization_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    idleExpiresAt: row.idle_expires_at,
  };
}
