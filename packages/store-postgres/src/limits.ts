import type {
  AcquireSlotParams,
  LimitStore,
  RateHitParams,
  RateWindowOutcome,
  ReleaseSlotParams,
  SlotOutcome,
} from '@tron-safety/core';
import * as t from 'io-ts';
import type pg from 'pg';
import { decodeRow } from './rows.js';

/** Rate windows (one row per organization, its latest one-minute window) and slot leases. */
export class PostgresLimitStore implements LimitStore {
  constructor(private readonly pool: pg.Pool) {}

  async hitRate(params: RateHitParams): Promise<RateWindowOutcome> {
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

  async acquireSlot(params: AcquireSlotParams): Promise<SlotOutcome> {
    // One call of a server-side function (migration 002): it takes a per-organization advisory
    // transaction lock, counts the live leases in a snapshot taken after the lock, and inserts.
    const { rows } = await this.pool.query('SELECT ok, in_flight FROM acquire_concurrency_slot($1, $2, $3, $4, $5)', [
      params.organizationId,
      params.slotId,
      params.limit,
      params.now,
      params.expiresAt,
    ]);
    const row = decodeRow(t.type({ ok: t.boolean, in_flight: t.number }), rows, 'concurrency_slots');
    if (!row) throw new Error('acquire_concurrency_slot returned no row');
    return { ok: row.ok, inFlight: row.in_flight };
  }

  async releaseSlot(params: ReleaseSlotParams): Promise<void> {
    await this.pool.query('DELETE FROM concurrency_slots WHERE organization_id = $1 AND slot_id = $2', [
      params.organizationId,
      params.slotId,
    ]);
  }

  async purgeExpired(now: Date): Promise<number> {
    const windows = await this.pool.query(`DELETE FROM rate_windows WHERE window_start + interval '1 minute' <= $1`, [
      now,
    ]);
    const slots = await this.pool.query('DELETE FROM concurrency_slots WHERE expires_at <= $1', [now]);
    return (windows.rowCount ?? 0) + (slots.rowCount ?? 0);
  }
}
