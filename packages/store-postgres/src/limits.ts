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
    // One call of `rate_hit` (migration 004), the same step begin_check takes.
    const { rows } = await this.pool.query('SELECT allowed, count FROM rate_hit($1, $2, $3)', [
      params.organizationId,
      params.windowStart,
      params.limit,
    ]);
    const row = decodeRow(t.type({ allowed: t.boolean, count: t.number }), rows, 'rate_windows');
    if (!row) throw new Error('rate_hit returned no row');
    return row;
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

  /** Two bounded statements: up to `limit` ended windows and up to `limit` expired slots, oldest first. */
  async purgeExpired(now: Date, limit = 2_147_483_647): Promise<number> {
    const windows = await this.pool.query(
      `DELETE FROM rate_windows w USING (
         SELECT organization_id FROM rate_windows WHERE window_start <= $1::timestamptz - interval '1 minute'
          ORDER BY window_start LIMIT $2) old
        WHERE w.organization_id = old.organization_id AND w.window_start <= $1::timestamptz - interval '1 minute'`,
      [now, limit],
    );
    const slots = await this.pool.query(
      `DELETE FROM concurrency_slots s USING (
         SELECT organization_id, slot_id FROM concurrency_slots WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2) old
        WHERE s.organization_id = old.organization_id AND s.slot_id = old.slot_id AND s.expires_at <= $1`,
      [now, limit],
    );
    return (windows.rowCount ?? 0) + (slots.rowCount ?? 0);
  }
}
