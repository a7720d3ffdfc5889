import { randomUUID } from 'node:crypto';
import type { ApiKeyRecord } from '../../stores/api-keys.js';
import type { SafetyStores } from '../../stores/index.js';
import type { Entitlements, Organization } from '../../stores/organizations.js';
import type { UsageRecord } from '../../stores/usage.js';

// What the store conformance suite's parts share: a start instant driven through the `now`
// arguments, and records with random ids (stores may share one database).

export type WithStores = (title: string, body: (stores: SafetyStores) => Promise<void>) => void;

export const T0 = new Date('2026-03-31T23:59:30.000Z');
export const at = (ms: number) => new Date(T0.getTime() + ms);
export const ENTITLEMENTS: Entitlements = {
  rateLimitPerMinute: 60,
  maxConcurrentRequests: 5,
  monthlyQuota: 100,
  enabledNetworks: ['tron'],
};

/**
 * Ids of entries created in the same millisecond: `listed` is the order every list gives them (by id in
 * UTF-16 code units, `0` < `B` < `a`, where most locales' collations put `a` before `B`), `inserted`
 * another order to insert them in.
 */
export function tiedIds(): { inserted: string[]; listed: string[] } {
  const base = randomUUID();
  const listed = [`${base}-0`, `${base}-B`, `${base}-a`];
  return { inserted: [listed[2]!, listed[0]!, listed[1]!], listed };
}

export function organization(overrides: Partial<Organization> = {}): Organization {
  return {
    id: randomUUID(),
    name: 'Conformance org',
    status: 'active',
    assignment: { kind: 'custom', entitlements: ENTITLEMENTS },
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

export function apiKey(organizationId: string, createdAt = T0): ApiKeyRecord {
  const hash = Buffer.from(randomUUID().replaceAll('-', '') + randomUUID().replaceAll('-', ''), 'hex').toString('hex');
  return {
    id: randomUUID(),
    organizationId,
    label: 'label',
    hash,
    prefix: 'tsk_live_abcdefgh',
    createdAt,
    revokedAt: null,
    replacedBy: null,
    lastUsedAt: null,
  };
}

export function usageRecord(organizationId: string, overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    organizationId,
    at: T0,
    network: 'tron',
    overallState: 'CLEAR',
    coverage: 'complete',
    billable: true,
    latencyMs: 100,
    errorCode: null,
    ...overrides,
  };
}
