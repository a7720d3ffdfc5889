import type {
  AcquireSlotParams,
  LimitStore,
  RateHitParams,
  RateWindowOutcome,
  ReleaseSlotParams,
  SlotOutcome,
} from '@tron-safety/core';
import { ExpiryQueue, WRITE_RECLAIM_GRACE_MS } from './expiry.js';
import { Leases } from './leases.js';

const WINDOW_MS = 60_000;
/** Ended windows and slots reclaimed by each write, so memory follows the traffic without a sweeper. */
const RECLAIM_PER_WRITE = 4;

/**
 * Rate windows (the latest per organization) and slot leases (per organization). Ended windows
 * and expired slots are reclaimed in time order; acquiring a slot looks only at that
 * organization's slots (at most its limit plus crashed ones until their leases end), and scans
 * them only when one of them may have expired (`Leases`).
 */
export class MemoryLimitStore implements LimitStore {
  readonly #windows = new Map<string, { windowStart: number; count: number }>();
  readonly #slots = new Map<string, Leases>();
  readonly #windowEnds = new ExpiryQueue<string>();
  readonly #slotEnds = new ExpiryQueue<{ organizationId: string; slotId: string }>();

  async hitRate(params: RateHitParams): Promise<RateWindowOutcome> {
    return this.hit(params);
  }

  /** `hitRate` without a promise, for the check store. */
  hit(params: RateHitParams): RateWindowOutcome {
    const now = params.now.getTime();
    this.#reclaimOnWrite(now);
    const start = params.windowStart.getTime();
    const current = this.#windows.get(params.organizationId);
    // A lagging clock (an older window start) counts into the newer window, as in SQL.
    const newer = !current || start > current.windowStart;
    const count = newer ? 0 : current.count;
    if (count >= params.limit) return { allowed: false, count };
    if (newer) {
      this.#windows.set(params.organizationId, { windowStart: start, count: 1 });
      this.#windowEnds.push(start + WINDOW_MS, params.organizationId);
    } else current.count++;
    return { allowed: true, count: count + 1 };
  }

  async acquireSlot(params: AcquireSlotParams): Promise<SlotOutcome> {
    return this.acquire(params);
  }

  /** `acquireSlot` without a promise. */
  acquire(params: AcquireSlotParams): SlotOutcome {
    const now = params.now.getTime();
    this.#reclaimOnWrite(now);
    let slots = this.#slots.get(params.organizationId);
    if (!slots) this.#slots.set(params.organizationId, (slots = new Leases()));
    const inFlight = slots.live(now);
    if (inFlight >= params.limit) return { ok: false, inFlight };
    const expiresAt = params.expiresAt.getTime();
    slots.set(params.slotId, expiresAt);
    this.#slotEnds.push(expiresAt, { organizationId: params.organizationId, slotId: params.slotId });
    // Not `slots.size`: a slot whose lease ended stays until it is reclaimed.
    return { ok: true, inFlight: inFlight + 1 };
  }

  async releaseSlot(params: ReleaseSlotParams): Promise<void> {
    this.release(params);
  }

  /** `releaseSlot` without a promise; true when the slot was still held. */
  release(params: ReleaseSlotParams): boolean {
    const slots = this.#slots.get(params.organizationId);
    if (!slots) return false;
    const held = slots.delete(params.slotId);
    if (slots.size === 0) this.#slots.delete(params.organizationId);
    return held;
  }

  /**
   * With a `limit`, what the queues hold due (they stop at an entry not yet due, which a clock
   * stepped back can put before due ones); with none, every ended window and slot of every
   * organization, so "default: all" holds.
   */
  async purgeExpired(now: Date, limit = Infinity): Promise<number> {
    const purged = this.#reclaim(now.getTime(), limit);
    return limit === Infinity ? purged + this.#reclaimAll(now.getTime()) : purged;
  }

  /** Ended windows and slots the queues did not reach: a look at each organization's. */
  #reclaimAll(at: number): number {
    let purged = 0;
    for (const [organizationId, window] of this.#windows) {
      if (window.windowStart + WINDOW_MS > at) continue;
      this.#windows.delete(organizationId);
      purged++;
    }
    for (const [organizationId, slots] of this.#slots) {
      purged += slots.purge(at);
      if (slots.size === 0) this.#slots.delete(organizationId);
    }
    return purged;
  }

  /** A few ended windows, and slots ended a grace ago (`WRITE_RECLAIM_GRACE_MS`), so no sweeper is needed. */
  #reclaimOnWrite(now: number): void {
    const slotsEnded = now - WRITE_RECLAIM_GRACE_MS;
    if (this.#windowEnds.due(now) || this.#slotEnds.due(slotsEnded)) this.#reclaim(now, RECLAIM_PER_WRITE, slotsEnded);
  }

  /** Ended windows at `at` and slots ended at `slotsEnded`, in time order. */
  #reclaim(at: number, limit: number, slotsEnded = at): number {
    let purged = 0;
    this.#windowEnds.popDue(
      at,
      (organizationId) => {
        const window = this.#windows.get(organizationId);
        if (window && window.windowStart + WINDOW_MS <= at) {
          this.#windows.delete(organizationId);
          purged++;
        }
      },
      limit,
    );
    this.#slotEnds.popDue(
      slotsEnded,
      ({ organizationId, slotId }) => {
        const slots = this.#slots.get(organizationId);
        const expiresAt = slots?.endOf(slotId);
        if (slots && expiresAt !== undefined && expiresAt <= slotsEnded) {
          this.release({ organizationId, slotId });
          purged++;
        }
      },
      limit,
    );
    return purged;
  }
}
