import type {
  BeginCheckOutcome,
  BeginCheckParams,
  CheckCredential,
  CheckStore,
  CheckWork,
  Entitlements,
  FinishCheckOutcome,
  FinishCheckParams,
  OrganizationAccess,
  BeginStage,
  UsageRecord,
} from '@tron-safety/core';
import { entitlementsOf } from '@tron-safety/core/internal';
import type { MemoryStores } from './index.js';

/** The stores a check goes through, without promises (begin and finish are one synchronous step each). */
export type MemoryStoreParts = Pick<
  MemoryStores,
  'organizations' | 'apiKeys' | 'idempotency' | 'quota' | 'limits' | 'usage'
>;

/**
 * Begin and finish over the other memory stores' steps, run without yielding in between: each
 * call is atomic here as the PostgreSQL function is there, and answers in one microtask.
 */
export class MemoryCheckStore implements CheckStore {
  constructor(private readonly parts: MemoryStoreParts) {}

  async begin(params: BeginCheckParams): Promise<BeginCheckOutcome> {
    const access = this.#authenticate(params.credential, params.now);
    if (!access) return { kind: 'unauthenticated' };
    const { organization } = access;
    if (organization.status !== 'active') return { kind: 'suspended', organizationId: organization.id };
    const entitlements = entitlementsOf(access);
    if (!entitlements) return { kind: 'no_entitlements', access };
    const rate = this.parts.limits.hit({
      organizationId: organization.id,
      windowStart: params.rateWindowStart,
      limit: entitlements.rateLimitPerMinute,
      now: params.now,
    });
    const stage = this.#admit(params, organization.id, entitlements, rate.allowed);
    return { kind: 'admitted', access, entitlements, rate, ...stage };
  }

  #authenticate(credential: CheckCredential, now: Date): OrganizationAccess | null {
    if ('organizationId' in credential) return this.parts.organizations.access(credential.organizationId);
    const key = this.parts.apiKeys.use(credential.apiKeyHash, now);
    return key ? this.parts.organizations.access(key.organizationId) : null;
  }

  /** The steps after the rate: slot, then the work. */
  #admit(params: BeginCheckParams, organizationId: string, entitlements: Entitlements, allowed: boolean): BeginStage {
    if (!allowed) return { stage: 'rate_limited' };
    if (!params.slot) return { stage: 'admitted' };
    const { slotId, expiresAt } = params.slot;
    const { limits } = this.parts;
    const slot = limits.acquire({
      organizationId,
      slotId,
      limit: entitlements.maxConcurrentRequests,
      now: params.now,
      expiresAt,
    });
    if (!slot.ok) return { stage: 'slot_busy', slot };
    if (!params.work) return { stage: 'invalid' };
    const stage = this.#work(params.work, organizationId, entitlements, params.now);
    if (stage.stage === 'in_progress' || stage.stage === 'completed') limits.release({ organizationId, slotId });
    return stage;
  }

  #work(work: CheckWork, organizationId: string, entitlements: Entitlements, now: Date): BeginStage {
    if (!entitlements.enabledNetworks.includes(work.network)) return { stage: 'network_not_enabled' };
    const { idempotency, quota } = this.parts;
    if (work.idempotency) {
      const { key, fingerprint, owner, leaseExpiresAt } = work.idempotency;
      const begun = idempotency.claim({ organizationId, key }, { fingerprint, owner, leaseExpiresAt, now });
      if (begun.kind === 'conflict') return { stage: 'conflict' };
      if (begun.kind === 'in_progress') return { stage: 'in_progress', leaseExpiresAt: begun.leaseExpiresAt };
      if (begun.kind === 'completed') {
        const usage = quota.usageNow({ organizationId, period: work.quota.period, now });
        return { stage: 'completed', response: begun.response, quota: usage };
      }
    }
    const { period, reservationId, expiresAt } = work.quota;
    const limit = entitlements.monthlyQuota;
    const reserved = quota.reserveNow({ organizationId, period, limit, reservationId, now, expiresAt });
    return reserved.ok
      ? { stage: 'started', quota: reserved.usage }
      : { stage: 'quota_exceeded', quota: reserved.usage };
  }

  async finish(params: FinishCheckParams): Promise<FinishCheckOutcome> {
    const { organizationId, now, reservation } = params;
    const { idempotency, quota, limits, usage } = this.parts;
    let stored = false;
    let held = 0;
    // A check with a key bills only while it still holds the key's claim (see `CheckStore.finish`).
    let claimed = true;
    if (params.idempotency) {
      const { key, owner, response, retainUntil } = params.idempotency;
      const scope = { organizationId, key };
      if (response) stored = idempotency.store(scope, { owner, response, now, retainUntil });
      claimed = stored || (!response && idempotency.release(scope, { owner }));
      if (claimed) held++;
    }
    if (reservation && quota.holds(organizationId, reservation.reservationId)) held++;
    const commit = reservation !== null && reservation.commit && claimed;
    const finalized = reservation
      ? quota.finalize({ organizationId, reservationId: reservation.reservationId, now }, commit)
      : null;
    const billed = commit && finalized !== null;
    if (params.slotId !== null && limits.release({ organizationId, slotId: params.slotId })) held++;
    const given = params.idempotency !== null || reservation !== null || params.slotId !== null;
    const repeated = given && held === 0;
    if (params.usage && !repeated) usage.record(billedUsage(params.usage, billed));
    return { billed, quota: finalized, stored, repeated };
  }
}

/** The usage record `finish` was given, with whether it billed (built field by field: no spread on the hot path). */
function billedUsage(usage: NonNullable<FinishCheckParams['usage']>, billable: boolean): UsageRecord {
  const { organizationId, at, network, overallState, coverage, latencyMs, errorCode } = usage;
  return { organizationId, at, network, overallState, coverage, billable, latencyMs, errorCode };
}
