import type {
  QuotaPeriodParams,
  QuotaStore,
  QuotaUsage,
  ReservationParams,
  ReserveOutcome,
  ReserveParams,
} from '@tron-safety/core';
import * as t from 'io-ts';
import type pg from 'pg';
import { Count, decodeRow, decodeRows } from './rows.js';

const UsageRow = t.type({ used: t.number, reserved: t.number });
const ReserveRow = t.type({ granted: t.boolean, used: t.number, reserved: t.number });
const FinalizedRow = t.type({ live: t.boolean, used: t.number, reserved: t.number });

/**
 * Monthly quota: a counter row per organization and period (`used`, `reserved`) plus one row
 * per outstanding reservation, always changed together by one function of migration 004
 * (`quota_reserve`, `quota_finalize`, `quota_reclaim`), the same ones begin_check and
 * finish_check use. Reserving is a conditional upsert of the counter (`used + reserved < limit`),
 * which PostgreSQL re-checks on the latest row version when callers race, so no number of host
 * processes can over-reserve.
 */
export class PostgresQuotaStore implements QuotaStore {
  constructor(private readonly pool: pg.Pool) {}

  async reserve(params: ReserveParams): Promise<ReserveOutcome> {
    const { rows } = await this.pool.query('SELECT * FROM quota_reserve($1, $2, $3, $4, $5, $6)', [
      params.organizationId,
      params.period,
      params.limit,
      params.reservationId,
      params.expiresAt,
      params.now,
    ]);
    const row = decodeRow(ReserveRow, rows, 'quota_counters');
    if (!row) throw new Error('quota_reserve returned no row');
    return { ok: row.granted, usage: { used: row.used, reserved: row.reserved } };
  }

  async commit(params: ReservationParams): Promise<QuotaUsage | null> {
    return this.#finalize(params, true);
  }

  async release(params: ReservationParams): Promise<QuotaUsage | null> {
    return this.#finalize(params, false);
  }

  async getUsage(params: QuotaPeriodParams): Promise<QuotaUsage> {
    const { rows } = await this.pool.query({
      name: 'quota_usage',
      text: 'SELECT used, reserved FROM quota_usage($1, $2, $3)',
      values: [params.organizationId, params.period, params.now],
    });
    return decodeRow(UsageRow, rows, 'quota_counters') ?? { used: 0, reserved: 0 };
  }

  /**
   * Reclaims expired reservations in bounded statements: up to `limit` in all, one counter per
   * statement (a sweeper never holds two counter rows, so sweepers in several hosts cannot
   * deadlock with each other or with reserve).
   */
  async purgeExpired(now: Date, limit = 2_147_483_647): Promise<number> {
    const { rows } = await this.pool.query(
      'SELECT DISTINCT organization_id, period FROM quota_reservations WHERE expires_at <= $1 LIMIT $2',
      [now, limit],
    );
    const periods = decodeRows(t.type({ organization_id: t.string, period: t.string }), rows, 'quota_reservations');
    let purged = 0;
    for (const { organization_id, period } of periods) {
      if (purged >= limit) break;
      const reclaimed = await this.pool.query('SELECT quota_reclaim($1, $2, $3, $4) AS reclaimed', [
        organization_id,
        period,
        now,
        limit - purged,
      ]);
      purged += decodeRow(t.type({ reclaimed: Count }), reclaimed.rows, 'quota_reservations')?.reclaimed ?? 0;
    }
    return purged;
  }

  /**
   * Deletes up to `limit` counters of periods before `firstKeptPeriod` ('YYYY-MM') that hold no
   * reservation: past the usage retention a month's counter is history nobody reads, and without
   * this the table grew by one row per organization and month for good.
   */
  async purgeCountersBefore(firstKeptPeriod: string, limit = 2_147_483_647): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM quota_counters WHERE ctid IN (
         SELECT ctid FROM quota_counters WHERE period < $1 AND reserved = 0 LIMIT $2)`,
      [firstKeptPeriod, limit],
    );
    return rowCount ?? 0;
  }

  /** Deletes the reservation and moves its counter in one call: never billing twice. Null unless it was live. */
  async #finalize(params: ReservationParams, commit: boolean): Promise<QuotaUsage | null> {
    const { rows } = await this.pool.query('SELECT live, used, reserved FROM quota_finalize($1, $2, $3, $4)', [
      params.organizationId,
      params.reservationId,
      params.now,
      commit,
    ]);
    const row = decodeRow(FinalizedRow, rows, 'quota_counters');
    return row?.live ? { used: row.used, reserved: row.reserved } : null;
  }
}
