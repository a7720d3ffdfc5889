import type { UsageResponse } from '../contract/models.js';
import type { SafetyStores } from '../stores/index.js';
import type { Entitlements, OrganizationAccess } from '../stores/organizations.js';
import type { QuotaUsage } from '../stores/quota.js';
import { validateUsageQuery } from '../validation/index.js';
import { admit } from './access.js';
import type { RequestScope } from './context.js';
import { JSON_CONTENT_TYPE } from './errors.js';
import type { CoreHttpRequest, CoreHttpResponse } from './http.js';
import { quotaHeaders, quotaRemaining } from './limit-headers.js';
import { monthOf } from './time.js';

const DAY_MS = 86_400_000;

/** The spec's UsageResponse for the organization at `now`, over the last `days` days. */
export async function buildUsageReport(
  stores: SafetyStores,
  access: OrganizationAccess,
  entitlements: Entitlements,
  days: number,
  now: Date,
): Promise<{ report: UsageResponse; quota: QuotaUsage }> {
  const { organization, plan } = access;
  const month = monthOf(now);
  const [quota, summary] = await Promise.all([
    stores.quota.getUsage({ organizationId: organization.id, period: month.key, now }),
    stores.usage.summarizeUsage({
      organizationId: organization.id,
      since: new Date(now.getTime() - days * DAY_MS),
      // Inclusive of records stamped at `now` itself.
      until: new Date(now.getTime() + 1),
    }),
  ]);
  const report: UsageResponse = {
    tenant_id: organization.id,
    plan:
      plan && organization.assignment.kind === 'plan'
        ? { code: plan.code, version: plan.version, name: plan.name }
        : null,
    limits: {
      rate_limit_per_minute: entitlements.rateLimitPerMinute,
      max_concurrent_requests: entitlements.maxConcurrentRequests,
      enabled_networks: [...entitlements.enabledNetworks],
    },
    period: {
      start: month.start.toISOString(),
      end: month.end.toISOString(),
      used: quota.used,
      reserved: quota.reserved,
      limit: entitlements.monthlyQuota,
      remaining: quotaRemaining(entitlements.monthlyQuota, quota),
    },
    recent: {
      days,
      requests: summary.requests,
      billable: summary.billable,
      limited_data: summary.limitedData,
      errors: summary.errors,
      average_latency_ms: summary.averageLatencyMs,
      by_network: summary.byNetwork,
      by_overall_state: summary.byOverallState,
    },
  };
  return { report, quota };
}

/** `GET /v1/usage`: rate-limited, no quota, no concurrency slot, no usage record. */
export async function handleUsage(scope: RequestScope, req: CoreHttpRequest): Promise<CoreHttpResponse> {
  const admitted = await admit(scope, req.headers['x-api-key']);
  if (admitted.isErr()) return scope.error(admitted.error);
  const query = validateUsageQuery(req.query);
  if (query.isErr()) return scope.error({ kind: 'invalid_request', ...query.error });
  const { access, entitlements } = admitted.value;
  const now = scope.now();
  const built = await scope.step(
    'usage report',
    buildUsageReport(scope.ctx.stores, access, entitlements, query.value.days, now),
  );
  if (built.isErr()) return scope.error(built.error);
  Object.assign(scope.headers, quotaHeaders(entitlements.monthlyQuota, built.value.quota, monthOf(now).end));
  return {
    status: 200,
    headers: { ...scope.headers, 'Content-Type': JSON_CONTENT_TYPE, 'X-Request-ID': scope.requestId },
    body: JSON.stringify(built.value.report),
  };
}
