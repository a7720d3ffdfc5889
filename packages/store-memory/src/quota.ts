import type {
  QuotaPeriodParams,
  QuotaStore,
  QuotaUsage,
  ReservationParams,
  ReserveOutcome,
  ReserveParams,
} from '@tron-safety/core';
import { monthOf } from '@tron-safety/core/internal';
import { Leases } from './leases.js';

/** How long after its month ended a counter is kept: far more than any clock skew between hosts. */
const ENDED_MONTH_KEPT_MS = 86_400_000;

/** One organization's period: used units and its outstanding reservations. */
interface Counter {
  organizationId: string;
  used: number;
  reservations: Leases;
}

/**
 * Monthly quota: a counter per organization and period holding its own reservations, so a count
 * looks only at that organization's outstanding reservations (at most its in-flight checks plus
 * crashed ones until the sweep drops them), never at every reservation in the store, and scans them only
 * when one of them may have expired (`Leases`). The sweep (`purgeExpired`) drops the counters of
 * months that ended more than a day ago once no live reservation can bill them any more, so memory
 * holds the current month's counters and the last one's, not one per organization and month ever
 * seen. The last month's stay: a begin reserves in the month of its own `now`, and a host whose
 * clock is behind (or stepped back) still begins in the month that just ended; dropping its counter
 * would let that begin bill the month's quota a second time.
 */
export class MemoryQuotaStore implements QuotaStore {
  /** Organization → period → counter: looked up without building a key string on every check. */
  readonly #counters = new Map<string, Map<string, Counter>>();
  /** Reservation id → its counter. */
  readonly #owners = new Map<string, Counter>();
  /** Counters with outstanding reservations: what the sweeper looks at. */
  readonly #pending = new Set<Counter>();
  /** Period → its counters: the sweeper drops an ended period's. */
  readonly #byPeriod = new Map<string, Set<Counter>>();

  async reserve(params: ReserveParams): Promise<ReserveOutcome> {
    return this.reserveNow(params);
  }

  /** `reserve` without a promise, for the check store. */
  reserveNow(params: ReserveParams): ReserveOutcome {
    const counter = this.#counter(params.organizationId, params.period);
    const reserved = counter.reservations.live(params.now.getTime());
    if (counter.used + reserved >= params.limit || this.#owners.has(params.reservationId)) {
      return { ok: false, usage: { used: counter.used, reserved } };
    }
    counter.reservations.set(params.reservationId, params.expiresAt.getTime());
    this.#owners.set(params.reservationId, counter);
    this.#pending.add(counter);
    return { ok: true, usage: { used: counter.used, reserved: reserved + 1 } };
  }

  async commit(params: ReservationParams): Promise<QuotaUsage | null> {
    return this.finalize(params, true);
  }

  async release(params: ReservationParams): Promise<QuotaUsage | null> {
    return this.finalize(params, false);
  }

  /** True while the reservation exists (live or expired, not yet finalized or reclaimed). */
  holds(organizationId: string, reservationId: string): boolean {
    return this.#owners.get(reservationId)?.organizationId === organizationId;
  }

  /**
   * Commit (`bill`) or release without a promise: removes the reservation; a live one bills one
   * unit of its own period when `bill`. Null unless it was live.
   */
  finalize(params: ReservationParams, bill: boolean): QuotaUsage | null {
    const counter = this.#owners.get(params.reservationId);
    if (counter === undefined || counter.organizationId !== params.organizationId) return null;
    const expiresAt = counter.reservations.endOf(params.reservationId)!;
    counter.reservations.delete(params.reservationId);
    this.#owners.delete(params.reservationId);
    if (counter.reservations.size === 0) this.#pending.delete(counter);
    const now = params.now.getTime();
    if (expiresAt <= now) return null;
    if (bill) counter.used++;
    return { used: counter.used, reserved: counter.reservations.live(now) };
  }

  async getUsage(params: QuotaPeriodParams): Promise<QuotaUsage> {
    return this.usageNow(params);
  }

  /** `getUsage` without a promise. */
  usageNow(params: QuotaPeriodParams): QuotaUsage {
    const counter = this.#counters.get(params.organizationId)?.get(params.period);
    return counter
      ? { used: counter.used, reserved: counter.reservations.live(params.now.getTime()) }
      : { used: 0, reserved: 0 };
  }

  /** Expired reservations, then the counters of ended months (each counts one toward `limit`). */
  async purgeExpired(now: Date, limit = Infinity): Promise<number> {
    let purged = 0;
    for (const counter of this.#pending) {
      if (purged >= limit) break;
      purged += counter.reservations.purge(now.getTime());
      if (counter.reservations.size === 0) this.#pending.delete(counter);
    }
    const current = monthOf(new Date(now.getTime() - ENDED_MONTH_KEPT_MS)).key;
    return purged + this.#dropEnded(current, limit - purged);
  }

  /**
   * Drops counters of periods before `current` (the month a day ago) holding no reservation. One
   * holding a reservation stays: a check begun before the month edge and finishing after it bills
   * its own month (`finalize`), and a sweep drops the counter once the reservation is finalized or
   * purged.
   */
  #dropEnded(current: string, limit: number): number {
    let dropped = 0;
    for (const [period, counters] of this.#byPeriod) {
      if (period >= current) continue;
      for (const counter of counters) {
        if (dropped >= limit) return dropped;
        if (counter.reservations.size > 0) continue;
        counters.delete(counter);
        const periods = this.#counters.get(counter.organizationId)!;
        periods.delete(period);
        if (periods.size === 0) this.#counters.delete(counter.organizationId);
        dropped++;
      }
      if (counters.size === 0) this.#byPeriod.delete(period);
    }
    return dropped;
  }

  /** Counters held, of every organization and period (for tests of the memory bound). */
  get size(): number {
    let size = 0;
    for (const counters of this.#byPeriod.values()) size += counters.size;
    return size;
  }

  #counter(organizationId: string, period: string): Counter {
    let periods = this.#counters.get(organizationId);
    if (!periods) this.#counters.set(organizationId, (periods = new Map()));
    let counter = periods.get(period);
    if (!counter) {
      // An expired reservation counts as released; the sweep drops it with its owner entry.
      const reservations = new Leases((id) => this.#owners.delete(id));
      periods.set(period, (counter = { organizationId, used: 0, reservations }));
      let counters = this.#byPeriod.get(period);
      if (!counters) this.#byPeriod.set(period, (counters = new Set()));
      counters.add(counter);
    }
    return counter;
  }
}
