import type {
  AbandonParams,
  BeginOutcome,
  BeginParams,
  CompleteParams,
  IdempotencyScope,
  IdempotencyStore,
  StoredResponse,
} from '@tron-safety/core';
import * as t from 'io-ts';
import type pg from 'pg';
import { decodeRow, PgDate } from './rows.js';

const LiveRecordRow = t.type({
  fingerprint: t.string,
  state: t.keyof({ in_progress: null, completed: null }),
  expires_at: PgDate,
  response_status: t.union([t.number, t.null]),
  response_headers: t.union([t.record(t.string, t.string), t.null]),
  response_body: t.union([t.string, t.null]),
});

/**
 * How often `begin` retries when the record it lost to is gone by the time it reads it
 * (abandoned or expired in between). Each retry means another request changed the key; a
 * handful in a row only happens under a storm on one key, and then failing is honest.
 */
const BEGIN_ATTEMPTS = 5;

/**
 * Idempotency records. `expires_at` holds the lease end (in progress) or the retention end
 * (completed); a record is live while `expires_at > now`, with `now` the runtime's clock.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  constructor(private readonly pool: pg.Pool) {}

  async begin(scope: IdempotencyScope, params: BeginParams): Promise<BeginOutcome> {
    for (let attempt = 0; attempt < BEGIN_ATTEMPTS; attempt++) {
      // Claim: insert, or take over a record that is no longer live; one statement, so of any
      // number of concurrent callers (in any number of processes) exactly one gets a row back.
      const claimed = await this.pool.query(
        `INSERT INTO idempotency_records AS r (organization_id, key, fingerprint, state, owner, expires_at)
         VALUES ($1, $2, $3, 'in_progress', $4, $5)
         ON CONFLICT (organization_id, key) DO UPDATE SET
           fingerprint = EXCLUDED.fingerprint, state = 'in_progress', owner = EXCLUDED.owner,
           expires_at = EXCLUDED.expires_at,
           response_status = NULL, response_headers = NULL, response_body = NULL
         WHERE r.expires_at <= $6
         RETURNING 1`,
        [scope.organizationId, scope.key, params.fingerprint, params.owner, params.leaseExpiresAt, params.now],
      );
      if (claimed.rowCount === 1) return { kind: 'started' };
      const { rows } = await this.pool.query(
        `SELECT fingerprint, state, expires_at, response_status, response_headers, response_body
           FROM idempotency_records WHERE organization_id = $1 AND key = $2 AND expires_at > $3`,
        [scope.organizationId, scope.key, params.now],
      );
      const live = decodeRow(LiveRecordRow, rows, 'idempotency_records');
      if (!live) continue;
      if (live.fingerprint !== params.fingerprint) return { kind: 'conflict' };
      if (live.state === 'in_progress') return { kind: 'in_progress', leaseExpiresAt: live.expires_at };
      if (live.response_status === null || live.response_headers === null || live.response_body === null) {
        throw new Error('completed idempotency record without a response');
      }
      return {
        kind: 'completed',
        response: { status: live.response_status, headers: live.response_headers, body: live.response_body },
      };
    }
    throw new Error(`idempotency key changed hands ${BEGIN_ATTEMPTS} times while claiming it`);
  }

  async complete(scope: IdempotencyScope, params: CompleteParams): Promise<boolean> {
    // Headers as json text (key order kept) and the body as text: replayed exactly as given.
    const result = await this.pool.query(
      `UPDATE idempotency_records SET state = 'completed', owner = NULL, expires_at = $4,
         response_status = $5, response_headers = $6::json, response_body = $7
       WHERE organization_id = $1 AND key = $2 AND state = 'in_progress' AND owner = $3`,
      [
        scope.organizationId,
        scope.key,
        params.owner,
        params.retainUntil,
        params.response.status,
        JSON.stringify(params.response.headers),
        params.response.body,
      ],
    );
    return result.rowCount === 1;
  }

  async abandon(scope: IdempotencyScope, params: AbandonParams): Promise<void> {
    await this.pool.query(
      `DELETE FROM idempotency_records
        WHERE organization_id = $1 AND key = $2 AND state = 'in_progress' AND owner = $3`,
      [scope.organizationId, scope.key, params.owner],
    );
  }

  async purgeExpired(now: Date): Promise<number> {
    const result = await this.pool.query('DELETE FROM idempotency_records WHERE expires_at <= $1', [now]);
    return result.rowCount ?? 0;
  }
}
