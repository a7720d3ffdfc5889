import type { SafetyStores } from '@tron-safety/core';
import { MemoryApiKeyStore } from './api-keys.js';
import { MemoryCheckStore } from './checks.js';
import { MemoryIdempotencyStore } from './idempotency.js';
import { MemoryLimitStore } from './limits.js';
import { MemoryOrganizationStore } from './organizations.js';
import { MemoryQuotaStore } from './quota.js';
import { MemoryMemberStore } from './members.js';
import { MemorySessionStore } from './sessions.js';
import { MemorySanctionsListStore } from './sanctions-lists.js';
import { MemoryUsageStore } from './usage.js';

export { MemoryApiKeyStore } from './api-keys.js';
export { MemoryCheckStore } from './checks.js';
export { MemoryIdempotencyStore } from './idempotency.js';
export { MemoryLimitStore } from './limits.js';
export { MemoryMemberStore } from './members.js';
export { MemoryOrganizationStore } from './organizations.js';
export { MemoryQuotaStore } from './quota.js';
export { MemorySanctionsListStore } from './sanctions-lists.js';
export { MemorySessionStore } from './sessions.js';
export { MemoryUsageStore } from './usage.js';

export interface MemoryStoreOptions {
  /** Days of usage kept (relative to the newest day recorded); default 90 (the longest report). */
  usageRetentionDays?: number;
}

export interface MemoryStores extends SafetyStores {
  organizations: MemoryOrganizationStore;
  apiKeys: MemoryApiKeyStore;
  idempotency: MemoryIdempotencyStore;
  quota: MemoryQuotaStore;
  limits: MemoryLimitStore;
  usage: MemoryUsageStore;
  members: MemoryMemberStore;
  sessions: MemorySessionStore;
  sanctionsLists: MemorySanctionsListStore;
  checks: MemoryCheckStore;
}

/**
 * Every store in one process's memory. Each method runs without yielding between its reads and
 * writes, which is what makes it atomic here (the PostgreSQL store uses one statement, function
 * or transaction for the same step). Stored values are frozen copies: reads hand them out as
 * they are, so callers never share mutable state with the store.
 */
export function createMemoryStores(options: MemoryStoreOptions = {}): MemoryStores {
  const parts = {
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
  return { ...parts, checks: new MemoryCheckStore(parts) };
}
