/**
 * Request rate (fixed one-minute windows, per organization) and concurrency slots (leases,
 * per organization). A store failure here makes the runtime fail closed (503).
 */
export interface RateWindowOutcome {
  allowed: boolean;
  /** Requests admitted in the window after this step. */
  count: number;
}

export type SlotOutcome = { ok: true; inFlight: number } | { ok: false; inFlight: number };

export interface RateHitParams {
  organizationId: string;
  windowStart: Date;
  limit: number;
  now: Date;
}

export interface AcquireSlotParams {
  organizationId: string;
  slotId: string;
  limit: number;
  now: Date;
  expiresAt: Date;
}

export interface ReleaseSlotParams {
  organizationId: string;
  slotId: string;
}

export interface LimitStore {
  /**
   * One atomic step: admits the request into the window starting at `windowStart` when fewer
   * than `limit` requests were admitted in it, counting it. Denied requests are not counted.
   */
  hitRate(params: RateHitParams): Promise<RateWindowOutcome>;
  /**
   * One atomic step: takes slot `slotId` until `expiresAt` if fewer than `limit` live slots
   * (expiry after `now`) are held by the organization.
   */
  acquireSlot(params: AcquireSlotParams): Promise<SlotOutcome>;
  /** Returns the slot (idempotent). */
  releaseSlot(params: ReleaseSlotParams): Promise<void>;
  /** Deletes windows that ended before `now` and slots whose lease ended: at most `limit` of each (default: all). */
  purgeExpired(now: Date, limit?: number): Promise<number>;
}
