/**
 * Idempotency records, scoped per organization (not per API key: they survive rotation).
 *
 * A record is `in_progress` under a lease (owner token + expiry) while a check executes, then
 * `completed` with the stored response until its retention ends. A lease that expired (the
 * executing process crashed) or a retention that ended makes the key free again.
 */
export interface StoredResponse {
  status: number;
  /** The response's own headers (Content-Type, X-Request-ID, Retry-After…), replayed unchanged. */
  headers: Record<string, string>;
  /** Serialized JSON body, replayed byte for byte. */
  body: string;
}

export interface IdempotencyScope {
  organizationId: string;
  key: string;
}

export type BeginOutcome =
  /** The caller now holds the record under `owner` until `leaseExpiresAt`, and must complete or abandon it. */
  | { kind: 'started' }
  /** Same body, still executing elsewhere. */
  | { kind: 'in_progress'; leaseExpiresAt: Date }
  /** Same body, finished: replay `response`. */
  | { kind: 'completed'; response: StoredResponse }
  /** A live record with a different fingerprint. */
  | { kind: 'conflict' };

export interface BeginParams {
  fingerprint: string;
  owner: string;
  now: Date;
  leaseExpiresAt: Date;
}

export interface CompleteParams {
  owner: string;
  response: StoredResponse;
  now: Date;
  retainUntil: Date;
}

export interface AbandonParams {
  owner: string;
}

export interface IdempotencyStore {
  /**
   * One atomic step: if there is no live record (none, or its lease / retention ended at or
   * before `now`), creates an in-progress record for `fingerprint` owned by `owner` and answers
   * `started`; otherwise answers from the live record (fingerprint differs → `conflict` first).
   */
  begin(scope: IdempotencyScope, params: BeginParams): Promise<BeginOutcome>;
  /**
   * Stores the response if `owner` still holds the in-progress record (even past its lease,
   * provided nobody took it over). Returns false when the record is no longer this owner's.
   */
  complete(scope: IdempotencyScope, params: CompleteParams): Promise<boolean>;
  /** Deletes the in-progress record if `owner` holds it, freeing the key for a corrected retry. */
  abandon(scope: IdempotencyScope, params: AbandonParams): Promise<void>;
  /**
   * Deletes completed records retained until at or before `now`, and in-progress records whose
   * lease ended: at most `limit` (default: all), oldest expiry first. Returns how many; a sweeper
   * repeats while a full batch comes back.
   */
  purgeExpired(now: Date, limit?: number): Promise<number>;
}
