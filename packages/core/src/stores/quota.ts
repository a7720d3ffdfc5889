/**
 * Monthly quota per organization and UTC calendar month (`period` = `YYYY-MM`): `used`
 * billable units and outstanding reservations. A reservation is a lease: one whose
 * `expiresAt` is at or before `now` counts as released everywhere (a crashed request cannot
 * hold quota forever) and can no longer be committed.
 */
export interface QuotaUsage {
  used: number;
  reserved: number;
}

export type ReserveOutcome = { ok: true; usage: QuotaUsage } | { ok: false; usage: QuotaUsage };

export interface ReserveParams {
  organizationId: string;
  period: string;
  limit: number;
  reservationId: string;
  now: Date;
  expiresAt: Date;
}

/** One reservation of the organization, to commit or release. */
export interface ReservationParams {
  organizationId: string;
  reservationId: string;
  now: Date;
}

export interface QuotaPeriodParams {
  organizationId: string;
  period: string;
  now: Date;
}

export interface QuotaStore {
  /**
   * One atomic step: if `used + reserved < limit` (live reservations only), records reservation
   * `reservationId` in `period` until `expiresAt`. `usage` is the state after the step.
   */
  reserve(params: ReserveParams): Promise<ReserveOutcome>;
  /**
   * Turns a live reservation into one used unit of its own period (reserved − 1, used + 1).
   * Null when the reservation is unknown, already finalized or expired (then nothing is billed).
   */
  commit(params: ReservationParams): Promise<QuotaUsage | null>;
  /** Drops the reservation (idempotent). Null when it was not live. */
  release(params: ReservationParams): Promise<QuotaUsage | null>;
  /** Used and live reserved units of `period`. */
  getUsage(params: QuotaPeriodParams): Promise<QuotaUsage>;
  /**
   * Deletes expired reservations (they already count as released): at most `limit` (default: all).
   * A store may also drop counters of months that ended more than a day before `now` and that no
   * live reservation can bill any more (memory does; PostgreSQL's `sweep` drops them only past the
   * usage retention): a begin reads the month of its own `now`, which a host whose clock is behind
   * still places in the ended month.
   */
  purgeExpired(now: Date, limit?: number): Promise<number>;
}
