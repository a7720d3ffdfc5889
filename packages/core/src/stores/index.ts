import type { ApiKeyStore } from './api-keys.js';
import type { CheckStore } from './checks.js';
import type { IdempotencyStore } from './idempotency.js';
import type { LimitStore } from './limits.js';
import type { MemberStore } from './members.js';
import type { OrganizationStore } from './organizations.js';
import type { QuotaStore } from './quota.js';
import type { SessionStore } from './sessions.js';
import type { SanctionsListStore } from './sanctions-lists.js';
import type { UsageStore } from './usage.js';

export type * from './api-keys.js';
export type * from './checks.js';
export type * from './idempotency.js';
export type * from './limits.js';
export type * from './members.js';
export type * from './organizations.js';
export type * from './quota.js';
export type * from './sessions.js';
export type * from './sanctions-lists.js';
export type * from './usage.js';
export {
  addDays,
  countUsage,
  emptyUsageDay,
  latencyBucket,
  latencyQuantile,
  LATENCY_BUCKET_BOUNDS_MS,
  summarizeUsageDays,
  utcDay,
} from './usage.js';
export { entitlementsOf, MAX_ENTITLEMENT } from './organizations.js';
export { countKeys, keyCapReached, LAST_USED_RESOLUTION_MS } from './api-keys.js';
export { countPendingInvitations, invitationCapReached } from './members.js';

/**
 * All the state the core has. One database may implement every interface; each method is one
 * step a database can do atomically (one statement or one transaction), never a read whose
 * decision a second call acts on.
 *
 * Time: methods that decide by time take an explicit `now` (the runtime's clock) and must use
 * it rather than their own clock (a database's `now()`): the runtime reports the same instants
 * in its headers (X-RateLimit-Reset, Retry-After), and the conformance suite drives time through
 * it. Hosts sharing a database keep their clocks synchronized (NTP); skew only moves a window
 * edge or a lease expiry by the skew. Leases (idempotency in progress, quota reservations,
 * concurrency slots) end at their expiry whether or not anyone purges them.
 *
 * A check uses `checks` (begin and finish, one call each); the other stores' per-step methods
 * define what those calls do and serve the usage report, the admin API and the sweeper.
 *
 * Failures: expected outcomes are values (a `Result`'s refusal such as `last_owner`, the busy slot's or
 * full quota's `{ ok: false, … }` state, `null`, `conflict`); a rejected
 * promise means the store itself failed, which the runtime answers as an error (503
 * `rate_limiter_unavailable` when a check or usage request cannot be admitted, else 500) and never as an answer.
 */
export interface SafetyStores {
  organizations: OrganizationStore;
  apiKeys: ApiKeyStore;
  idempotency: IdempotencyStore;
  quota: QuotaStore;
  limits: LimitStore;
  usage: UsageStore;
  checks: CheckStore;
  members: MemberStore;
  sessions: SessionStore;
  sanctionsLists: SanctionsListStore;
}
