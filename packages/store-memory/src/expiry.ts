/**
 * Items in the order they were pushed, each with the time it expires: `popDue` takes them from
 * the front while their time has come, amortized O(1) per item. An item pushed with an earlier
 * time than one before it waits for that one; stores use this only to reclaim memory (liveness is
 * always decided on read), so an item reclaimed late is never an item treated as gone too early.
 */
export class ExpiryQueue<T> {
  #times: number[] = [];
  #items: T[] = [];
  #head = 0;

  push(expiresAt: number, item: T): void {
    this.#times.push(expiresAt);
    this.#items.push(item);
  }

  /** Whether the front item is due at `now` (a check that costs nothing when nothing is). */
  due(now: number): boolean {
    return this.#head < this.#times.length && this.#times[this.#head]! <= now;
  }

  /** Calls `expire` on each item due at `now` (at most `limit`); returns how many were due. */
  popDue(now: number, expire: (item: T) => void, limit = Infinity): number {
    let popped = 0;
    while (popped < limit && this.#head < this.#times.length && this.#times[this.#head]! <= now) {
      const item = this.#items[this.#head]!;
      this.#items[this.#head] = undefined as T;
      this.#head++;
      popped++;
      expire(item);
    }
    this.#compact();
    return popped;
  }

  get size(): number {
    return this.#times.length - this.#head;
  }

  /** Drops the consumed front once it is most of the arrays (amortized O(1)). */
  #compact(): void {
    if (this.#head < 1024 || this.#head * 2 < this.#times.length) return;
    this.#times = this.#times.slice(this.#head);
    this.#items = this.#items.slice(this.#head);
    this.#head = 0;
  }
}

/**
 * How long past its lease a write leaves a claim or slot its owner may still finish with: a late
 * finish still stores its result (`IdempotencyStore.complete`) and is counted, not taken for a
 * repeated one, as with PostgreSQL until its sweep. A sweep (`purgeExpired`) reclaims them at the
 * lease's end, as PostgreSQL's does.
 */
export const WRITE_RECLAIM_GRACE_MS = 60_000;
