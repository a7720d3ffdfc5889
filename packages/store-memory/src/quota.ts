import type {
  QuotaPeriodParams,
  QuotaStore,
  QuotaUsage,
  ReservationParams,
  ReserveOutcome,
  ReserveParams,
} from '@tron-safety/core';
import { Leases } from './leases.js';

/** One organization's period: used units and its outstanding reservations. */
interface Counter {
  organizationId: string;
  used: number;
  reservations: Leases;
}

/**
 * Monthly quota: a counter per organization and period holding its own reservations, so a count
 * looks only at that organization's outstanding reservations (at most its in-flight checks plus
 * crashed ones until they expire), never at every reservation in the store, and scans them only
 * when one of them may have expired (`Leases`).
 */
export class MemoryQuotaStore implements QuotaStore {
  /** Organization → period → counter: looked up without building a key string on every check. */
  readonly #counters = new Map<string, Map<string, Counter>>();
  /** Reservation id → its counter. */
  readonly #owners = new Map<string, Counter>();
  /** Counters with outstanding reservations: what the sweeper looks at. */
  readonly #pending = new Set<Counter>();

  async reserve(params: ReserveParams): Promise<ReserveOutcome> {
    return this.reserveNow(params);
  }

  /** `reserve` without a promise, for the check store. */
  reserveNow(params: ReserveParams): ReserveOutcome {
    const counter = this.#counter(params.organizationId, params.period);
    const reserved = this.#live(counter, params.now.getTime());
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
    return { used: counter.used, reserved: this.#live(counter, now) };
  }

  async getUsage(params: QuotaPeriodParams): Promise<QuotaUsage> {
    return this.usageNow(params);
  }

  /** `getUsage` without a promise. */
  usageNow(params: QuotaPeriodParams): QuotaUsage {
    const counter = this.#counters.get(params.organizationId)?.get(params.period);
    return counter
      ? { used: counter.used, reserved: this.#live(counter, params.now.getTime()) }
      : { used: 0, reserved: 0 };
  }

  async purgeExpired(now: Date, limit = Infinity): Promise<number> {
    let purged = 0;
    for (const counter of this.#pending) {
      if (purged >= limit) break;
      const before = counter.reservations.size;
      purged += before - this.#live(counter, now.getTime());
    }
    return purged;
  }

  #counter(organizationId: string, period: string): Counter {
    let periods = this.#counters.get(organizationId);
    if (!periods) this.#counters.set(organizationId, (periods = new Map()));
    let counter = periods.get(period);
    if (!counter) {
      // An expired reservation counts as released: dropped with its owner entry.
      const reservations = new Leases((id) => this.#owners.delete(id));
      periods.set(period, (counter = { organizationId, used: 0, reservations }));
    }
    return counter;
  }

  /** Drops the counter's expired reservations (they count as released) and answers the live ones. */
  #live(counter: Counter, now: number): number {
    const live = counter.reservations.live(now);
    if (live === 0) this.#pending.delete(counter);
    return live;
  }
}
