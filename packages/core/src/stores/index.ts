import type { ApiKeyStore } from './api-keys.js';
import type { IdempotencyStore } from './idempotency.js';
import type { LimitStore } from './limits.js';
import type { OrganizationStore } from './organizations.js';
import type { QuotaStore } from './quota.js';
import type { UsageStore } from './usage.js';

export type * from './api-keys.js';
export type * from './idempotency.js';
export type * from './limits.js';
export type * from './organizations.js';
export type * from './quota.js';
export type * from './usage.js';

/** All the state the core has. One database may implement every interface. */
export interface SafetyStores {
  organizations: OrganizationStore;
  apiKeys: ApiKeyStore;
  idempotency: IdempotencyStore;
  quota: QuotaStore;
  limits: LimitStore;
  usage: UsageStore;
}
