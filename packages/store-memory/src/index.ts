import type {
  AbandonParams,
  AcquireSlotParams,
  ApiKeyRecord,
  ApiKeyStore,
  BeginOutcome,
  BeginParams,
  CompleteParams,
  IdempotencyScope,
  IdempotencyStore,
  LimitStore,
  Organization,
  OrganizationAccess,
  OrganizationStore,
  Plan,
  QuotaPeriodParams,
  QuotaStore,
  QuotaUsage,
  RateHitParams,
  ReleaseSlotParams,
  ReservationParams,
  ReserveParams,
  SafetyStores,
  StoredResponse,
  UsageRecord,
  UsageStore,
  UsageSummary,
  UsageWindowParams,
} from '@tron-safety/core';
import { MemoryMemberStore } from './members.js';
import { MemorySessionStore } from './sessions.js';
import { MemorySanctionsListStore } from './sanctions-lists.js';

export { MemorySanctionsListStore };

/**
 * Every store in one process's memory. Each method runs without yielding between its read and
 * its write, which is what makes it atomic here (the PostgreSQL store uses one statement or
 * transaction for the same step). Values are copied in and out, so callers never share state.
 */
export function createMemoryStores(options: MemoryStoreOptions = {}): SafetyStores {
  return {
    organizations: new MemoryOrganizationStore(),
    apiKeys: new MemoryApiKeyStore(),
    idempotency: new MemoryIdempotencyStore(),
    quota: new MemoryQuotaStore(),
    limits: new MemoryLimitStore(),
    usage: new MemoryUsageStore(options.usageRetentionDays ?? 90),
    members: new MemoryMemberStore(),
    sessions: new MemorySessionStore(),
    sanctionsLists: new MemorySanctionsListStore(),
  };
}

export interface MemoryStoreOptions {
  /** Usage records older than this (relative to the newest appended one) are dropped; default 90 (the longest report). */
  usageRetentionDays?: number;
}

export { MemoryMemberStore } from './members.js';
export { MemorySessionStore } from './sessions.js';

/** Writes between the amortized purges that keep a long-running process's memory bounded. */
const PURGE_EVERY = 1024;

/** Deep copy of the plain data the stores hold (objects, arrays, Dates, primitives); structuredClone is several times slower. */
function copy<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map(copy) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copy((value as Record<string, unknown>)[key]);
  return out as T;
}

export class MemoryOrganizationStore implements OrganizationStore {
  readonly #plans = new Map<string, Plan>();
  readonly #organizations = new Map<string, Organization>();

  async putPlan(plan: Plan): Promise<void> {
    this.#plans.set(planKey(plan.code, plan.version), copy(plan));
  }

  async getPlan(code: string, version: number): Promise<Plan | null> {
    const plan = this.#plans.get(planKey(code, version));
    return plan ? copy(plan) : null;
  }

  async latestPlan(code: string): Promise<Plan | null> {
    let latest: Plan | null = null;
    for (const plan of this.#plans.values()) {
      if (plan.code === code && (!latest || plan.version > latest.version)) latest = plan;
    }
    return latest ? copy(latest) : null;
  }

  async listPlans(): Promise<Plan[]> {
    return [...this.#plans.values()]
      .sort((a, b) => (a.code === b.code ? a.version - b.version : a.code < b.code ? -1 : 1))
      .map(copy);
  }

  async createOrganization(organization: Organization): Promise<boolean> {
    if (this.#organizations.has(organization.id)) return false;
    this.#organizations.set(organization.id, copy(organization));
    return true;
  }

  async putOrganization(organization: Organization): Promise<void> {
    this.#organizations.set(organization.id, copy(organization));
  }

  async getOrganization(id: string): Promise<OrganizationAccess | null> {
    const organization = this.#organizations.get(id);
    if (!organization) return null;
    const { assignment } = organization;
    const plan =
      assignment.kind === 'plan' ? (this.#plans.get(planKey(assignment.code, assignment.version)) ?? null) : null;
    return { organization: copy(organization), plan: plan ? copy(plan) : null };
  }

  async listOrganizations(): Promise<Organization[]> {
    return [...this.#organizations.values()].map(copy);
  }

  async updateOrganization(
    id: string,
    update: { status?: Organization['status']; assignment?: Organization['assignment']; updatedAt: Date },
  ): Promise<Organization | null> {
    const current = this.#organizations.get(id);
    if (!current) return null;
    const next: Organization = {
      ...current,
      status: update.status ?? current.status,
      assignment: update.assignment ? copy(update.assignment) : current.assignment,
      updatedAt: update.updatedAt,
    };
    this.#organizations.set(id, next);
    return copy(next);
  }
}

const planKey = (code: string, version: number) => `${code}\u0000${version}`;

export class MemoryApiKeyStore implements ApiKeyStore {
  readonly #byId = new Map<string, ApiKeyRecord>();
  readonly #idByHash = new Map<string, string>();

  async insertKey(record: ApiKeyRecord): Promise<boolean> {
    if (this.#byId.has(record.id) || this.#idByHash.has(record.hash)) return false;
    this.#put(record);
    return true;
  }

  async findKeyByHash(hash: string): Promise<ApiKeyRecord | null> {
    const id = this.#idByHash.get(hash);
    const record = id === undefined ? undefined : this.#byId.get(id);
    return record ? copy(record) : null;
  }

  async listKeys(organizationId: string): Promise<ApiKeyRecord[]> {
    return [...this.#byId.values()]
      .filter((k) => k.organizationId === organizationId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map(copy);
  }

  async revokeKey(organizationId: string, keyId: string, now: Date): Promise<ApiKeyRecord | null> {
    const record = this.#byId.get(keyId);
    if (!record || record.organizationId !== organizationId) return null;
    if (!record.revokedAt) record.revokedAt = new Date(now);
    return copy(record);
  }

  async rotateKey(organizationId: string, keyId: string, replacement: ApiKeyRecord, now: Date) {
    const record = this.#byId.get(keyId);
    if (!record || record.organizationId !== organizationId) return { ok: false, reason: 'not_found' } as const;
    if (record.revokedAt) return { ok: false, reason: 'revoked' } as const;
    if (this.#byId.has(replacement.id) || this.#idByHash.has(replacement.hash)) {
      throw new Error('replacement key id or hash already exists');
    }
    record.revokedAt = new Date(now);
    record.replacedBy = replacement.id;
    this.#put(replacement);
    return { ok: true, revoked: copy(record), created: copy(replacement) } as const;
  }

  #put(record: ApiKeyRecord): void {
    this.#byId.set(record.id, copy(record));
    this.#idByHash.set(record.hash, record.id);
  }
}

type IdempotencyEntry =
  | { state: 'in_progress'; fingerprint: string; owner: string; leaseExpiresAt: number }
  | { state: 'completed'; fingerprint: string; response: StoredResponse; retainUntil: number };

export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #records = new Map<string, IdempotencyEntry>();
  #writes = 0;

  async begin(scope: IdempotencyScope, params: BeginParams): Promise<BeginOutcome> {
    const id = scopeKey(scope);
    const entry = this.#records.get(id);
    if (entry && isLive(entry, params.now.getTime())) {
      if (entry.fingerprint !== params.fingerprint) return { kind: 'conflict' };
      return entry.state === 'in_progress'
        ? { kind: 'in_progress', leaseExpiresAt: new Date(entry.leaseExpiresAt) }
        : { kind: 'completed', response: copy(entry.response) };
    }
    if (++this.#writes % PURGE_EVERY === 0) this.#purge(params.now.getTime());
    this.#records.set(id, {
      state: 'in_progress',
      fingerprint: params.fingerprint,
      owner: params.owner,
      leaseExpiresAt: params.leaseExpiresAt.getTime(),
    });
    return { kind: 'started' };
  }

  async complete(scope: IdempotencyScope, params: CompleteParams): Promise<boolean> {
    const id = scopeKey(scope);
    const entry = this.#records.get(id);
    if (!entry || entry.state !== 'in_progress' || entry.owner !== params.owner) return false;
    this.#records.set(id, {
      state: 'completed',
      fingerprint: entry.fingerprint,
      response: copy(params.response),
      retainUntil: params.retainUntil.getTime(),
    });
    return true;
  }

  async abandon(scope: IdempotencyScope, params: AbandonParams): Promise<void> {
    const id = scopeKey(scope);
    const entry = this.#records.get(id);
    if (entry?.state === 'in_progress' && entry.owner === params.owner) this.#records.delete(id);
  }

  async purgeExpired(now: Date): Promise<number> {
    return this.#purge(now.getTime());
  }

  /** Synchronous, so that `begin` stays one step without a yield. */
  #purge(now: number): number {
    let purged = 0;
    for (const [id, entry] of this.#records) {
      if (!isLive(entry, now)) {
        this.#records.delete(id);
        purged++;
      }
    }
    return purged;
  }
}

const scopeKey = (scope: IdempotencyScope) => `${scope.organizationId}\u0000${scope.key}`;
const isLive = (entry: IdempotencyEntry, now: number) =>
  (entry.state === 'in_progress' ? entry.leaseExpiresAt : entry.retainUntil) > now;

interface Reservation {
  organizationId: string;
  period: string;
  expiresAt: number;
}

export class MemoryQuotaStore implements QuotaStore {
  /** Used units per organization and period. */
  readonly #used = new Map<string, number>();
  readonly #reservations = new Map<string, Reservation>();

  async reserve(params: ReserveParams) {
    const usage = this.#usage(params.organizationId, params.period, params.now.getTime());
    if (usage.used + usage.reserved >= params.limit || this.#reservations.has(params.reservationId)) {
      return { ok: false, usage } as const;
    }
    this.#reservations.set(params.reservationId, {
      organizationId: params.organizationId,
      period: params.period,
      expiresAt: params.expiresAt.getTime(),
    });
    return { ok: true, usage: { used: usage.used, reserved: usage.reserved + 1 } } as const;
  }

  async commit(params: ReservationParams): Promise<QuotaUsage | null> {
    const reservation = this.#take(params.organizationId, params.reservationId, params.now.getTime());
    if (!reservation) return null;
    const key = periodKey(params.organizationId, reservation.period);
    this.#used.set(key, (this.#used.get(key) ?? 0) + 1);
    return this.#usage(params.organizationId, reservation.period, params.now.getTime());
  }

  async release(params: ReservationParams): Promise<QuotaUsage | null> {
    const reservation = this.#take(params.organizationId, params.reservationId, params.now.getTime());
    return reservation ? this.#usage(params.organizationId, reservation.period, params.now.getTime()) : null;
  }

  async getUsage(params: QuotaPeriodParams): Promise<QuotaUsage> {
    return this.#usage(params.organizationId, params.period, params.now.getTime());
  }

  async purgeExpired(now: Date): Promise<number> {
    let purged = 0;
    for (const [id, reservation] of this.#reservations) {
      if (reservation.expiresAt <= now.getTime()) {
        this.#reservations.delete(id);
        purged++;
      }
    }
    return purged;
  }

  /** Removes and returns a live reservation of the organization. */
  #take(organizationId: string, reservationId: string, now: number): Reservation | null {
    const reservation = this.#reservations.get(reservationId);
    if (!reservation || reservation.organizationId !== organizationId) return null;
    this.#reservations.delete(reservationId);
    return reservation.expiresAt > now ? reservation : null;
  }

  #usage(organizationId: string, period: string, now: number): QuotaUsage {
    let reserved = 0;
    for (const r of this.#reservations.values()) {
      if (r.organizationId === organizationId && r.period === period && r.expiresAt > now) reserved++;
    }
    return { used: this.#used.get(periodKey(organizationId, period)) ?? 0, reserved };
  }
}

const periodKey = (organizationId: string, period: string) => `${organizationId}\u0000${period}`;

export class MemoryLimitStore implements LimitStore {
  /** Admitted requests per organization in its current window. */
  readonly #windows = new Map<string, { windowStart: number; count: number }>();
  /** Slot leases per organization: slot id → expiry. */
  readonly #slots = new Map<string, Map<string, number>>();

  async hitRate(params: RateHitParams) {
    const start = params.windowStart.getTime();
    const current = this.#windows.get(params.organizationId);
    const count = current && current.windowStart === start ? current.count : 0;
    if (count >= params.limit) return { allowed: false, count };
    this.#windows.set(params.organizationId, { windowStart: start, count: count + 1 });
    return { allowed: true, count: count + 1 };
  }

  async acquireSlot(params: AcquireSlotParams) {
    const slots = this.#slots.get(params.organizationId) ?? new Map<string, number>();
    this.#slots.set(params.organizationId, slots);
    for (const [id, expiresAt] of slots) if (expiresAt <= params.now.getTime()) slots.delete(id);
    if (slots.size >= params.limit) return { ok: false, inFlight: slots.size } as const;
    slots.set(params.slotId, params.expiresAt.getTime());
    return { ok: true, inFlight: slots.size } as const;
  }

  async releaseSlot(params: ReleaseSlotParams): Promise<void> {
    this.#slots.get(params.organizationId)?.delete(params.slotId);
  }

  async purgeExpired(now: Date): Promise<number> {
    let purged = 0;
    for (const [organizationId, window] of this.#windows) {
      // A window is one minute long; it has ended once `now` is past its end.
      if (window.windowStart + 60_000 <= now.getTime()) {
        this.#windows.delete(organizationId);
        purged++;
      }
    }
    for (const [organizationId, slots] of this.#slots) {
      for (const [id, expiresAt] of slots) {
        if (expiresAt <= now.getTime()) {
          slots.delete(id);
          purged++;
        }
      }
      if (slots.size === 0) this.#slots.delete(organizationId);
    }
    return purged;
  }
}

export class MemoryUsageStore implements UsageStore {
  #records: UsageRecord[] = [];
  readonly #retentionMs: number;

  constructor(retentionDays = 90) {
    this.#retentionMs = retentionDays * 86_400_000;
  }

  async appendUsage(record: UsageRecord): Promise<void> {
    this.#records.push(copy(record));
    if (this.#records.length % PURGE_EVERY === 0) this.#purgeBefore(record.at.getTime() - this.#retentionMs);
  }

  async summarizeUsage(params: UsageWindowParams): Promise<UsageSummary> {
    const summary: UsageSummary = {
      requests: 0,
      billable: 0,
      limitedData: 0,
      errors: 0,
      averageLatencyMs: null,
      byNetwork: {},
      byOverallState: {},
    };
    let latency = 0;
    for (const r of this.#records) {
      const at = r.at.getTime();
      if (r.organizationId !== params.organizationId || at < params.since.getTime() || at >= params.until.getTime())
        continue;
      summary.requests++;
      latency += r.latencyMs;
      if (r.billable) summary.billable++;
      if (r.overallState === 'LIMITED_DATA') summary.limitedData++;
      if (r.errorCode !== null) summary.errors++;
      if (r.network !== null) summary.byNetwork[r.network] = (summary.byNetwork[r.network] ?? 0) + 1;
      if (r.overallState !== null)
        summary.byOverallState[r.overallState] = (summary.byOverallState[r.overallState] ?? 0) + 1;
    }
    if (summary.requests > 0) summary.averageLatencyMs = Math.round(latency / summary.requests);
    return summary;
  }

  async purgeUsageBefore(before: Date): Promise<number> {
    return this.#purgeBefore(before.getTime());
  }

  #purgeBefore(before: number): number {
    const kept = this.#records.filter((r) => r.at.getTime() >= before);
    const purged = this.#records.length - kept.length;
    // Reassigned, not spliced in place: spreading >100k records as arguments overflows the stack.
    this.#records = kept;
    return purged;
  }
}
