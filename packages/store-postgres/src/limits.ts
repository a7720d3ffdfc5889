import type { LimitStore, RateWindowOutcome, SlotOutcome } from '@tron-safety/core';
import * as t from 'io-ts';
import type pg from 'pg';
import { inTransaction } from './connection.js';
import { Count, decodeRow } from './rows.js';

/**
 * Advisory lock class of the concurrency slots (the object id is the organization's hash).
 * Hash collisions only make two organizations share a lock, never a count.
 */
const SLOT_LOCK_CLASS = 0x736c6f74; // "slot"

/** Rate windows (one row per organization, its latest one-minute window) and slot leases. */
export class PostgresLimitStore implements LimitStore {
  constructor(private readonly pool: pg.Pool) {}

  async hitRate(params: { organizationId: string; windowStart: Date; limit: number; now: Date }): Promise<RateWindowOutcome> {
    // One statement: start a newer window at 1, or count into the current one while under the
    // limit. A host whose clock lags (an older windowStart) counts into the newer window rather
    // than resetting it. Denied requests change nothing.
    const { rows } = await this.pool.query(
      `INSERT INTO rate_windows AS w (organization_id, window_start, count)
       SELECT $1, $2, 1 WHERE $3::integer >= 1
       ON CONFLICT (organization_id) DO UPDATE SET
         window_start = GREATEST(w.window_start, EXCLUDED.window_start),
         count = CASE WHEN EXCLUDED.window_start > w.window_start THEN 1 ELSE w.count + 1 END
       WHERE EXCLUDED.window_start > w.window_start OR w.count < $3::integer
       RETURNING count`,
      [params.organizationId, params.windowStart, params.limit],
    );
    const admitted = decodeRow(t.type({ count: t.number }), rows, 'rate_windows');
    if (admitted) return { allowed: true, count: admitted.count };
    const current = await this.pool.query(
      'SELECT count FROM rate_windows WHERE organization_id = $1 AND window_start >= $2',
      [params.organizationId, params.windowStart],
    );
    return { allowed: false, count: decodeRow(t.type({ count: t.number }), current.rows, 'rate_windows')?.count ?? 0 };
  }

  async acquireSlot(params: {
    organizationId: string;
    slotId: string;
    limit: number;
    now: Date;
    expiresAt: Date;
  }): Promise<SlotOutcome> {
    return inTransaction(this.pool, async (client) => {
      // Serializes acquisitions per organization; the count below runs in a snapshot taken after
      // the lock, so it sees every slot committed before. Released at COMMIT or ROLLBACK.
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [SLOT_LOCK_CLASS, params.organizationId]);
      const { rows } = await client.query(
        `WITH live AS (
           SELECT count(*) AS n FROM concurrency_slots WHERE organization_id = $1 AND expires_at > $3),
         taken AS (
           INSERT INTO concurrency_slots (organization_id, slot_id, expires_at)
           SELECT $1, $2, $4 FROM live WHERE n < $5::integer
           ON CONFLICT (organization_id, slot_id) DO UPDATE SET expires_at = EXCLUDED.expires_at
           RETURNING 1)
         SELECT n, (SELECT count(*) FROM taken) AS taken FROM live`,
        [params.organizationId, params.slotId, params.now, params.expiresAt, params.limit],
      );
      const row = decodeRow(t.type({ n: Count, taken: Count }), rows, 'concurrency_slots');
      if (!row) throw new Error('slot count returned no row');
      return row.taken === 1 ? ({ ok: true, inFlight: row.n + 1 } as const) : ({ ok: false, inFlight: row.n } as const);
    });
  }

  async releaseSlot(params: { organizationId: string; slotId: string }): Promise<void> {
    await this.pool.query('DELETE FROM concurrency_slots WHERE organization_id = $1 AND slot_id = $2', [
      params.organizationId,
      params.slotId,
    ]);
  }

  async purgeExpired(now: Date): Promise<number> {
    const windows = await this.pool.query(
      `DELETE FROM rate_windows WHERE window_start + interval '1 minute' <= $1`,
      [now],
    );
    const slots = await this.pool.query('DELETE FROM concurrency_slots WHERE expires_at <= $1', [now]);
    return (windows.rowCount ?? 0) + (slots.rowCount ?? 0);
  }
}
