import { err, ok, type Result } from 'neverthrow';
import type { Entitlements, OrganizationAccess } from '../stores/organizations.js';
import type { RequestScope } from './context.js';
import type { RuntimeError } from './errors.js';
import { hashApiKey, MAX_API_KEY_LENGTH, sameKeyHash } from './keys.js';
import { rateLimitHeaders } from './limit-headers.js';
import { minuteOf, secondsUntil } from './time.js';

/** An authenticated, active organization that is within its request rate. */
export interface Admitted {
  access: OrganizationAccess;
  entitlements: Entitlements;
}

/** The organization's entitlements: its plan version's, or its custom ones. Null when the plan is missing. */
export function entitlementsOf(access: OrganizationAccess): Entitlements | null {
  const { assignment } = access.organization;
  if (assignment.kind === 'custom') return assignment.entitlements;
  const { plan } = access;
  return plan
    ? {
        rateLimitPerMinute: plan.rateLimitPerMinute,
        maxConcurrentRequests: plan.maxConcurrentRequests,
        monthlyQuota: plan.monthlyQuota,
        enabledNetworks: plan.enabledNetworks,
      }
    : null;
}

/** Authenticate the key → organization; organization status → entitlements. No rate counted. */
export async function authenticate(
  scope: RequestScope,
  apiKey: string | string[] | undefined,
): Promise<Result<{ access: OrganizationAccess; entitlements: Entitlements }, RuntimeError>> {
  if (typeof apiKey !== 'string' || apiKey.length === 0 || apiKey.length > MAX_API_KEY_LENGTH) {
    return err({ kind: 'invalid_api_key' });
  }
  const { apiKeys, organizations } = scope.ctx.stores;
  const hash = hashApiKey(apiKey);
  const found = await scope.step('authenticate', apiKeys.findKeyByHash(hash));
  if (found.isErr()) return err(found.error);
  const key = found.value;
  if (!key || key.revokedAt !== null || !sameKeyHash(key.hash, hash)) return err({ kind: 'invalid_api_key' });

  const loaded = await scope.step('organization', organizations.getOrganization(key.organizationId));
  if (loaded.isErr()) return err(loaded.error);
  const access = loaded.value;
  if (!access) return err({ kind: 'invalid_api_key' });
  if (access.organization.status !== 'active') return err({ kind: 'tenant_suspended' });
  const entitlements = entitlementsOf(access);
  if (!entitlements) {
    scope.report(
      new Error(
        `organization ${access.organization.id} has no plan version ${JSON.stringify(access.organization.assignment)}`,
      ),
      'entitlements',
    );
    return err({ kind: 'internal_error' });
  }
  return ok({ access, entitlements });
}

/** Counts the request in the organization's minute window; fails closed when the store fails. */
export async function admitRate(
  scope: RequestScope,
  organizationId: string,
  entitlements: Entitlements,
): Promise<Result<void, RuntimeError>> {
  const now = scope.now();
  const window = minuteOf(now);
  const limit = entitlements.rateLimitPerMinute;
  const hit = await scope.step(
    'rate limit',
    scope.ctx.stores.limits.hitRate({ organizationId, windowStart: window.start, limit, now }),
    { kind: 'rate_limiter_unavailable' },
  );
  if (hit.isErr()) return err(hit.error);
  Object.assign(scope.headers, rateLimitHeaders(limit, hit.value.count, window.end, now));
  return hit.value.allowed
    ? ok(undefined)
    : err({ kind: 'rate_limit_exceeded', retryAfterSeconds: secondsUntil(window.end, now) });
}

/** Request id is already set; authenticate, check status, count the rate. */
export async function admit(
  scope: RequestScope,
  apiKey: string | string[] | undefined,
): Promise<Result<Admitted, RuntimeError>> {
  const authenticated = await authenticate(scope, apiKey);
  if (authenticated.isErr()) return err(authenticated.error);
  const rate = await admitRate(scope, authenticated.value.access.organization.id, authenticated.value.entitlements);
  return rate.isErr() ? err(rate.error) : ok(authenticated.value);
}
