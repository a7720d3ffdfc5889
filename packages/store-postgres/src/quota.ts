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
import { inTransaction } from './connection.js';
import { Count, decodeRow } from './rows.js';

const UsageRow = t.type({ used: t.number, reserved: Count });
const ReserveRow = t.type({ granted: t.boolean, used: t.number, reserved: Count, expired: Count });
const FinalizedRow = t.type({ used: t.number, reserved: Count, live: t.boolean });

/**
 * Deletes the period's reservations that expired at or before `now` and takes them off the
 * counter, in one statement. Rows are locked in id order, so concurrent callers never deadlock
 * on them; every writer locks reservation rows before the counter row.
 */
const RECLAIM_EXPIRED = `
  WITH expired AS (
    DELETE FROM quota_reservations WHERE id IN (
      SELECT id FROM quota_reservations
       WHERE organization_id = $1 AND period = $2 AND expires_at <= $3
       ORDER BY id FOR UPDATE)
    RETURNING 1)
  UPDATE quota_counters SET reserved = reserved - (SELECT count(*) FROM expired)
   WHERE organization_id = $1 AND period = $2 AND EXISTS (SELECT 1 FROM expired)
  RETURNING (SELECT count(*) FROM expired) AS reclaimed`;

/**
 * Live reserved units: the counter minus reservations already expired but not yet reclaimed
 * (other than `except`, a reservation the statement itself deletes).
 */
const LIVE_RESERVED = (alias: string, period: string, now: string, except = 'NULL') => `${alias}.reserved - (
    SELECT count(*) FROM quota_reservations r
     WHERE r.organization_id = ${alias}.organization_id AND r.period = ${period} AND r.expires_at <= ${now}
       AND r.id IS DISTINCT FROM ${except})`;

/**
 * Monthly quota: a counter row per organization and period (`used`, `reserved`) plus one row
 * per outstanding reservation, always changed together in one statement or transaction.
 * Reserving is a conditional upsert of the counter (`used + reserved < limit`), which
 * PostgreSQL re-checks on the latest row version when callers race, so no number of host
 * processes can over-reserve.
 */
export class PostgresQuotaStore implements QuotaStore {
  constructor(private readonly pool: pg.Pool) {}

  async reserve(params: ReserveParams): Promise<ReserveOutcome> {
    try {
      // Fast path, one statement: the counter still counts expired reservations until they are
      // reclaimed, so this can only err towards denying. Only a denial with expired reservations
      // in the period takes the slow path: reclaim them and try again, in one transaction.
      const first = await tryReserve(this.pool, params);
      if (first.ok || first.expired === 0) return { ok: first.ok, usage: first.usage };
      return await inTransaction(this.pool, async (client) => {
        await client.query(RECLAIM_EXPIRED, [params.organizationId, params.period, params.now]);
        const second = await tryReserve(client, params);
        return { ok: second.ok, usage: second.usage };
      });
    } catch (error) {
      // A reservation id that is already taken reserves nothing (the statement rolled back).
      if (isUniqueViolation(error, 'quota_reservations_pkey')) {
        return { ok: false, usage: await readUsage(this.pool, params.organizationId, params.period, params.now) };
      }
      throw error;
    }
  }

  async commit(params: ReservationParams): Promise<QuotaUsage | null> {
    // An expired reservation is deleted and taken off `reserved` but bills nothing.
    return this.#finalize(params, 'q.used + CASE WHEN gone.live THEN 1 ELSE 0 END');
  }

  async release(params: ReservationParams): Promise<QuotaUsage | null> {
    return this.#finalize(params, 'q.used');
  }

  async getUsage(params: QuotaPeriodParams): Promise<QuotaUsage> {
    return readUsage(this.pool, params.organizationId, params.period, params.now);
  }

  async purgeExpired(now: Date): Promise<number> {
    // One counter per statement: a sweeper never holds two counter rows, so sweepers running
    // in several hosts cannot deadlock with each other or with reserve.
    const { rows } = await this.pool.query(
      'SELECT DISTINCT organization_id, period FROM quota_reservations WHERE expires_at <= $1',
      [now],
    );
    let purged = 0;
    for (const row of rows as Array<{ organization_id: string; period: string }>) {
      const result = await this.pool.query(RECLAIM_EXPIRED, [row.organization_id, row.period, now]);
      purged += decodeRow(t.type({ reclaimed: Count }), result.rows, 'quota_reservations')?.reclaimed ?? 0;
    }
    return purged;
  }

  /**
   * Deletes the reservation and adjusts its counter in one statement: idempotent (a second call
   * finds no row) and never billing twice. Null unless the reservation was live.
   */
  async #finalize(params: ReservationParams, used: string) {
    const { rows } = await this.pool.query(
      `WITH gone AS (
         DELETE FROM quota_reservations WHERE id = $1 AND organization_id = $2
         RETURNING organization_id, period, expires_at > $3 AS live)
       UPDATE quota_counters q SET used = ${used}, reserved = q.reserved - 1
         FROM gone WHERE q.organization_id = gone.organization_id AND q.period = gone.period
       RETURNING q.used, ${LIVE_RESERVED('q', 'gone.period', '$3', '$1')} AS reserved, gone.live`,
      [params.reservationId, params.organizationId, params.now],
    );
    const row = decodeRow(FinalizedRow, rows, 'quota_counters');
    return row?.live ? { used: row.used, reserved: row.reserved } : null;
  }
}

/**
 * The conditional reservation in one statement: bump the counter if `used + reserved < limit`
 * (PostgreSQL re-checks that on the latest row version when callers race) and insert the
 * reservation row only if it was bumped. Also answers the usage and how many reservations of
 * the period have expired but are still counted.
 */
async function tryReserve(db: pg.Pool | pg.PoolClient, params: ReserveParams) {
  const { rows } = await db.query(
    `WITH counter AS (
       INSERT INTO quota_counters AS q (organization_id, period, used, reserved)
       SELECT $1, $2, 0, 1 WHERE $3::integer >= 1
       ON CONFLICT (organization_id, period) DO UPDATE SET reserved = q.reserved + 1
       WHERE q.used + q.reserved < $3::integer
       RETURNING q.used, q.reserved),
     reservation AS (
       INSERT INTO quota_reservations (id, organization_id, period, expires_at)
       SELECT $4, $1, $2, $5 FROM counter
       RETURNING id),
     expired AS (
       SELECT count(*) AS n FROM quota_reservations
        WHERE organization_id = $1 AND period = $2 AND expires_at <= $6)
     SELECT true AS granted, c.used, c.reserved - e.n AS reserved, e.n AS expired FROM counter c, expired e
     UNION ALL
     SELECT false, q.used, q.reserved - e.n, e.n FROM quota_counters q, expired e
      WHERE q.organization_id = $1 AND q.period = $2 AND NOT EXISTS (SELECT 1 FROM counter)`,
    [params.organizationId, params.period, params.limit, params.reservationId, params.expiresAt, params.now],
  );
  const row = decodeRow(ReserveRow, rows, 'quota_counters');
  // No row: denied against a counter created after this statement's snapshot (or a limit below 1).
  if (!row)
    return { ok: false, usage: await readUsage(db, params.organizationId, params.period, params.now), expired: 0 };
  return { ok: row.granted, usage: { used: row.used, reserved: row.reserved }, expired: row.expired };
}

async function readUsage(
  db: pg.Pool | pg.PoolClient,
  organizationId: string,
  period: string,
  now: Date,
): Promise<QuotaUsage> {
  const { rows } = await db.query(
    `SELECT q.used, ${LIVE_RESERVED('q', '$2', '$3')} AS reserved
       FROM quota_counters q WHERE q.organization_id = $1 AND q.period = $2`,
    [organizationId, period, now],
  );
  return decodeRow(UsageRow, rows, 'quota_counters') ?? { used: 0, reserved: 0 };
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === '23505' &&
    (error as { constraint?: unknown }).constraint === constraint
  );
}
