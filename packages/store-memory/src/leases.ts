/**
 * Ids with the instant each one's lease ends (one organization's concurrency slots, or its quota
 * reservations of one period), counting the live ones. A count never deletes: a lease ended at
 * one caller's `now` may still be live at another's (a host whose clock is behind finishing its
 * check), so ended leases stay until `purge` (the sweep) or the owner deletes them. A count scans
 * the leases only when `now` leaves the span the last scan answered for: no lease ends inside
 * [`#ended`, `#soonest`), so any `now` in it sees the same live leases, and with leases tens of
 * seconds long a busy organization's count is O(1), not O(its checks in flight).
 */
export class Leases {
  readonly #ends = new Map<string, number>();
  /** Every lease counted out ends at or before this instant (ms)… */
  #ended = -Infinity;
  /** …and every one counted live at or after this one. */
  #soonest = Infinity;
  /** Leases counted live (ending at or after `#soonest`). */
  #live = 0;

  constructor(
    /** Called with each id `purge` drops. */
    private readonly onEnded: (id: string) => void = () => {},
  ) {}

  get size(): number {
    return this.#ends.size;
  }

  /** The instant `id`'s lease ends (ms), live or ended but not yet dropped. */
  endOf(id: string): number | undefined {
    return this.#ends.get(id);
  }

  set(id: string, endsAt: number): void {
    this.delete(id);
    this.#ends.set(id, endsAt);
    if (endsAt <= this.#ended) return;
    // Counted live; one ending inside the span narrows it.
    this.#live++;
    if (endsAt < this.#soonest) this.#soonest = endsAt;
  }

  delete(id: string): boolean {
    const endsAt = this.#ends.get(id);
    if (endsAt === undefined) return false;
    this.#ends.delete(id);
    if (endsAt > this.#ended) this.#live--;
    return true;
  }

  /** How many leases are live at `now` (a lease ending at `now` has ended). Deletes nothing. */
  live(now: number): number {
    if (now >= this.#ended && now < this.#soonest) return this.#live;
    let ended = -Infinity;
    let soonest = Infinity;
    let live = 0;
    for (const endsAt of this.#ends.values()) {
      if (endsAt > now) {
        live++;
        if (endsAt < soonest) soonest = endsAt;
      } else if (endsAt > ended) ended = endsAt;
    }
    this.#ended = ended;
    this.#soonest = soonest;
    this.#live = live;
    return live;
  }

  /** Drops the leases ended at `now`, calling `onEnded` for each; answers how many. */
  purge(now: number): number {
    let purged = 0;
    for (const [id, endsAt] of this.#ends) {
      if (endsAt > now) continue;
      this.#ends.delete(id);
      this.onEnded(id);
      purged++;
    }
    // An empty span forces the recount of what is left (all live at `now`).
    this.#soonest = -Infinity;
    this.live(now);
    return purged;
  }
}
