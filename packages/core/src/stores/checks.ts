import type { StoredResponse } from './idempotency.js';
import type { SlotOutcome, RateWindowOutcome } from './limits.js';
import type { Entitlements, OrganizationAccess } from './organizations.js';
import type { QuotaUsage } from './quota.js';
import type { UsageRecord } from './usage.js';

/**
 * A check's state in two calls: `begin` takes what a check needs before it runs (authenticate,
 * count the rate, take a concurrency slot, claim the Idempotency-Key, reserve a unit of quota)
 * and `finish` gives it all back once the answer is decided (bill or release, store the result,
 * free the slot, record usage). Each is one round trip to a database (a server-side function on
 * PostgreSQL). Their semantics are exactly those of the per-step methods of the other stores,
 * run in the order below; each step sees every step committed before it, so the race-proof
 * conditions of those methods (no oversold quota, one execution per key) hold unchanged.
 */

/**
 * Who is asking: an API key, by its SHA-256 (lower-case hex; only active keys authenticate), or
 * an organization another entry point has already authenticated (a signed-in portal member).
 */
export type CheckCredential = { apiKeyHash: string } | { organizationId: string };

export interface CheckWork {
  /** The request's network, checked against the entitlements before anything is claimed. */
  network: string;
  /** The Idempotency-Key claim, when the request has one (`IdempotencyStore.begin`). */
  idempotency: { key: string; fingerprint: string; owner: string; leaseExpiresAt: Date } | null;
  /** The quota reservation (`QuotaStore.reserve`), against the entitlements' monthly quota. */
  quota: { period: string; reservationId: string; expiresAt: Date };
}

export interface BeginCheckParams {
  credential: CheckCredential;
  now: Date;
  /** The one-minute rate window containing `now` (`LimitStore.hitRate`). */
  rateWindowStart: Date;
  /** The concurrency slot to take (`LimitStore.acquireSlot`); null: admission only (rate counted, nothing held). */
  slot: { slotId: string; expiresAt: Date } | null;
  /** What a valid request goes on to claim; null for a request that failed validation (it holds only its slot). */
  work: CheckWork | null;
}

/**
 * Where `begin` stopped. Steps run in order: authenticate → organization active → entitlements →
 * rate → slot (if asked) → work (if given): network → idempotency (if a key) → quota.
 */
export type BeginStage =
  /** Rate counted; no slot was asked. Holds nothing. */
  | { stage: 'admitted' }
  /** Over the rate limit (not counted). Holds nothing. */
  | { stage: 'rate_limited' }
  /** No free concurrency slot. Holds nothing. */
  | { stage: 'slot_busy'; slot: SlotOutcome }
  /** `work` was null: holds the slot. */
  | { stage: 'invalid' }
  /** The network is not in the entitlements: holds the slot. */
  | { stage: 'network_not_enabled' }
  /** The key is live with another fingerprint: holds the slot. */
  | { stage: 'conflict' }
  /** The key is executing elsewhere. Holds nothing (the slot was given back). */
  | { stage: 'in_progress'; leaseExpiresAt: Date }
  /** The key's result is stored: replay it. Holds nothing; `quota` is the period's usage now. */
  | { stage: 'completed'; response: StoredResponse; quota: QuotaUsage }
  /** The quota is used up: holds the slot and the key's claim (the refusal is stored under it). */
  | { stage: 'quota_exceeded'; quota: QuotaUsage }
  /** Everything taken: the slot, the key's claim (if any) and the reservation. */
  | { stage: 'started'; quota: QuotaUsage };

export type BeginCheckOutcome =
  /** No such key, a revoked key, or an unknown organization. */
  | { kind: 'unauthenticated' }
  | { kind: 'suspended'; organizationId: string }
  /** The organization's plan version is missing (a data error, not the caller's). */
  | { kind: 'no_entitlements'; access: OrganizationAccess }
  | ({
      kind: 'admitted';
      access: OrganizationAccess;
      entitlements: Entitlements;
      rate: RateWindowOutcome;
    } & BeginStage);

/** What `finish` gives back; every field is optional work (null: nothing of that kind is held). */
export interface FinishCheckParams {
  organizationId: string;
  now: Date;
  /** The slot to free (`LimitStore.releaseSlot`). */
  slotId: string | null;
  /** The reservation to commit (bill one unit) or release (`QuotaStore.commit` / `release`). */
  reservation: { reservationId: string; commit: boolean } | null;
  /**
   * The key's claim: `response` is stored for replay (`IdempotencyStore.complete`), or null to
   * abandon the claim so the key is free again (`IdempotencyStore.abandon`).
   */
  idempotency: { key: string; owner: string; response: StoredResponse | null; retainUntil: Date } | null;
  /** The check's usage record; its `billable` is set to whether this call billed a unit. */
  usage: Omit<UsageRecord, 'billable'> | null;
}

export interface FinishCheckOutcome {
  /**
   * True when the reservation was committed while still live: one unit billed. With a key, only while
   * the key's claim was still this check's: one taken over (or swept) since is released, not billed.
   */
  billed: boolean;
  /** The reservation's period after the commit or release; null when it was not live (nothing moved). */
  quota: QuotaUsage | null;
  /** True when the response was stored under the key (false: the claim was no longer this owner's). */
  stored: boolean;
  /**
   * True when it was given a slot, reservation or claim and none of them was still there (finished
   * or swept): this check was already finished, so the call changed nothing and recorded no usage.
   * A finish retried after its answer was lost counts the check once.
   */
  repeated: boolean;
}

export interface CheckStore {
  /**
   * One atomic call. Steps that refuse end it; what it holds afterwards is stated per stage.
   * A rejection means nothing was taken. An active API key that authenticates gets its
   * `lastUsedAt` set to `now` unless it was set less than `LAST_USED_RESOLUTION_MS` before.
   */
  begin(params: BeginCheckParams): Promise<BeginCheckOutcome>;
  /**
   * One atomic call, in this order: the idempotency claim (store or abandon), the reservation
   * (commit or release), the slot, the usage record. A rejection means none of it happened.
   * Repeating it changes nothing (`repeated`), so a finish whose answer was lost may be retried.
   * A check given a key commits only while it still holds the key's claim (`owner`, even past its
   * lease while nobody took it over): a claim that another check took over, whose lease ended by
   * that host's clock, or that was swept, is the other check's to bill and store, so this one's
   * reservation is released and its usage record is not billable. A key is billed once, with the
   * result stored under it, however far apart the hosts' clocks are.
   */
  finish(params: FinishCheckParams): Promise<FinishCheckOutcome>;
}
