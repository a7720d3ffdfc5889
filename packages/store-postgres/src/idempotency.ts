import type {
  AbandonParams,
  BeginOutcome,
  BeginParams,
  CompleteParams,
  IdempotencyScope,
  IdempotencyStore,
} from '@tron-safety/core';
import * as t from 'io-ts';
import type pg from 'pg';
import { decodeRow, PgDate } from './rows.js';

export const ClaimRow = t.type({
  kind: t.keyof({ started: null, conflict: null, in_progress: null, completed: null }),
  lease_expires_at: t.union([PgDate, t.null]),
  response_status: t.union([t.number, t.null]),
  response_headers: t.union([t.record(t.string, t.string), t.null]),
  response_body: t.union([t.string, t.null]),
});

/** A claim's outcome from `idempotency_begin` (alone, or inside begin_check). */
export function claimOutcome(row: Omit<t.TypeOf<typeof ClaimRow>, 'kind'> & { kind: string }): BeginOutcome {
  switch (row.kind) {
    case 'started':
    case 'conflict':
      return { kind: row.kind };
    case 'in_progress':
      if (!row.lease_expires_at) throw new Error('in-progress idempotency record without a lease');
      return { kind: 'in_progress', leaseExpiresAt: row.lease_expires_at };
    default:
      if (row.response_status === null || row.response_headers === null || row.response_body === null) {
        throw new Error('completed idempotency record without a response');
      }
      return {
        kind: 'completed',
        response: { status: row.response_status, headers: row.response_headers, body: row.response_body },
      };
  }
}

/**
 * Idempotency records. `expires_at` holds the lease end (in progress) or the retention end
 * (completed); a record is live while `expires_at > now`, with `now` the runtime's clock. Each
 * method is one call of a function of migration 004 (the same ones begin_check and finish_check use).
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  constructor(private readonly pool: pg.Pool) {}

  async begin(scope: IdempotencyScope, params: BeginParams): Promise<BeginOutcome> {
    const { rows } = await this.pool.query('SELECT * FROM idempotency_begin($1, $2, $3, $4, $5, $6)', [
      scope.organizationId,
      scope.key,
      params.fingerprint,
      params.owner,
      params.leaseExpiresAt,
      params.now,
    ]);
    const row = decodeRow(ClaimRow, rows, 'idempotency_records');
    if (!row) throw new Error('idempotency_begin returned no row');
    return claimOutcome(row);
  }

  async complete(scope: IdempotencyScope, params: CompleteParams): Promise<boolean> {
    const { rows } = await this.pool.query('SELECT idempotency_complete($1, $2, $3, $4, $5, $6, $7) AS stored', [
      scope.organizationId,
      scope.key,
      params.owner,
      params.retainUntil,
      params.response.status,
      JSON.stringify(params.response.headers),
      params.response.body,
    ]);
    return decodeRow(t.type({ stored: t.boolean }), rows, 'idempotency_records')?.stored ?? false;
  }

  async abandon(scope: IdempotencyScope, params: AbandonParams): Promise<void> {
    await this.pool.query('SELECT idempotency_abandon($1, $2, $3)', [scope.organizationId, scope.key, params.owner]);
  }

  /** One bounded statement: the `limit` records that expired first (over the expiry index). */
  async purgeExpired(now: Date, limit = 2_147_483_647): Promise<number> {
    // The outer condition is re-checked on the latest row version: a record taken over in the
    // meantime (a new lease) is not deleted.
    const result = await this.pool.query(
      `DELETE FROM idempotency_records r USING (
         SELECT organization_id, key FROM idempotency_records WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2) old
        WHERE r.organization_id = old.organization_id AND r.key = old.key AND r.expires_at <= $1`,
      [now, limit],
    );
    return result.rowCount ?? 0;
  }
}
