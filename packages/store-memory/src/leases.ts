/**
 * Ids with the instant each one's lease ends (one organization's concurrency slots, or its quota
 * reservations of one period), counting the live ones. A count scans the leases only when one of
 * them may have ended: it keeps a lower bound of the soonest end (exact after each scan, left as it
 * was when a lease is deleted), so with leases tens of seconds long a busy organization's count is
 * O(1), not O(its checks in flight).
 */
export class Leases {
  readonly #ends = new Map<string, number>();
  /** No lease ends before this instant (ms). */
  #soonest = Infinity;

  constructor(
    /** Called with each id a count finds ended, as it is dropped. */
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
    this.#ends.set(id, endsAt);
    if (endsAt < this.#soonest) this.#soonest = endsAt;
  }

  delete(id: string): boolean {
    return this.#ends.delete(id);
  }

  /** Drops the leases ended at `now` (an end at `now` has ended) and answers how many are live. */
  live(now: number): number {
    if (now < this.#soonest) return this.#ends.size;
    let soonest = Infinity;
    for (const [id, endsAt] of this.#ends) {
      if (endsAt <= now) {
        this.#ends.delete(id);
        this.onEnded(id);
      } else if (endsAt < soonest) soonest = endsAt;
    }
    this.#soonest = soonest;
    return this.#ends.size;
  }
}
