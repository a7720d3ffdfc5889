import type {
  AbandonParams,
  BeginOutcome,
  BeginParams,
  CompleteParams,
  IdempotencyScope,
  IdempotencyStore,
} from '@tron-safety/core';
import { ExpiryQueue, WRITE_RECLAIM_GRACE_MS } from './expiry.js';
import { frozenCopy } from './frozen.js';

type Entry =
  | { state: 'in_progress'; fingerprint: string; owner: string; expiresAt: number }
  | { state: 'completed'; fingerprint: string; response: CompleteParams['response']; expiresAt: number };

/** Expired records reclaimed by each write, so memory follows the traffic without a sweeper. */
const RECLAIM_PER_WRITE = 4;

/**
 * Idempotency records in a Map. Leases and retentions are reclaimed in time order (one queue
 * each: every lease is about as long as the next, and so is every retention), never by scanning.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #records = new Map<string, Entry>();
  readonly #leases = new ExpiryQueue<{ id: string; entry: Entry }>();
  readonly #retained = new ExpiryQueue<{ id: string; entry: Entry }>();

  async begin(scope: IdempotencyScope, params: BeginParams): Promise<BeginOutcome> {
    return this.claim(scope, params);
  }

  /** `begin` without a promise, for the check store. */
  claim(scope: IdempotencyScope, params: BeginParams): BeginOutcome {
    const now = params.now.getTime();
    const claimsEnded = now - WRITE_RECLAIM_GRACE_MS;
    if (this.#leases.due(claimsEnded) || this.#retained.due(now)) this.#reclaim(now, RECLAIM_PER_WRITE, claimsEnded);
    const id = scopeKey(scope);
    const entry = this.#records.get(id);
    if (entry && entry.expiresAt > now) {
      if (entry.fingerprint !== params.fingerprint) return { kind: 'conflict' };
      return entry.state === 'in_progress'
        ? { kind: 'in_progress', leaseExpiresAt: new Date(entry.expiresAt) }
        : { kind: 'completed', response: entry.response };
    }
    const started: Entry = {
      state: 'in_progress',
      fingerprint: params.fingerprint,
      owner: params.owner,
      expiresAt: params.leaseExpiresAt.getTime(),
    };
    this.#records.set(id, started);
    this.#leases.push(started.expiresAt, { id, entry: started });
    return { kind: 'started' };
  }

  async complete(scope: IdempotencyScope, params: CompleteParams): Promise<boolean> {
    return this.store(scope, params);
  }

  /** `complete` without a promise. The response is kept as given (frozen), not copied. */
  store(scope: IdempotencyScope, params: CompleteParams): boolean {
    const id = scopeKey(scope);
    const entry = this.#records.get(id);
    if (!entry || entry.state !== 'in_progress' || entry.owner !== params.owner) return false;
    const completed: Entry = {
      state: 'completed',
      fingerprint: entry.fingerprint,
      response: Object.isFrozen(params.response) ? params.response : frozenCopy(params.response),
      expiresAt: params.retainUntil.getTime(),
    };
    this.#records.set(id, completed);
    this.#retained.push(completed.expiresAt, { id, entry: completed });
    return true;
  }

  async abandon(scope: IdempotencyScope, params: AbandonParams): Promise<void> {
    this.release(scope, params);
  }

  /** `abandon` without a promise; true when the claim was still this owner's. */
  release(scope: IdempotencyScope, params: AbandonParams): boolean {
    const id = scopeKey(scope);
    const entry = this.#records.get(id);
    return entry?.state === 'in_progress' && entry.owner === params.owner && this.#records.delete(id);
  }

  async purgeExpired(now: Date, limit = Infinity): Promise<number> {
    return this.#reclaim(now.getTime(), limit, now.getTime());
  }

  /**
   * Deletes records whose queue entry is due, if the record is still that entry (not replaced
   * since): retentions ended at `now`, in-progress leases ended at `claimsEnded`.
   */
  #reclaim(now: number, limit: number, claimsEnded: number): number {
    let purged = 0;
    const expireAt =
      (at: number) =>
      ({ id, entry }: { id: string; entry: Entry }) => {
        if (this.#records.get(id) === entry && entry.expiresAt <= at) {
          this.#records.delete(id);
          purged++;
        }
      };
    this.#leases.popDue(claimsEnded, expireAt(claimsEnded), limit);
    this.#retained.popDue(now, expireAt(now), limit);
    return purged;
  }

  /** Records held, live or not yet reclaimed (for tests of the memory bound). */
  get size(): number {
    return this.#records.size;
  }
}

const scopeKey = (scope: IdempotencyScope) => `${scope.organizationId}\u0000${scope.key}`;
