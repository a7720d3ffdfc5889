import type { UsageResponse } from '../contract/models.js';
import type { SafetyStores } from '../stores/index.js';
import type { Entitlements, OrganizationAccess } from '../stores/organizations.js';
import type { QuotaUsage } from '../stores/quota.js';
import { addDays, summarizeUsageDays, utcDay } from '../stores/usage.js';
import { validateUsageQuery } from '../validation/index.js';
import { admitted, apiKeyCredential, rateWindowOf } from './access.js';
import type { RequestScope } from './context.js';
import type { CoreHttpRequest, CoreHttpResponse } from './http.js';
import { lateLimits } from './late-limits.js';
import { quotaRemaining } from './limit-headers.js';
import { monthOf } from './time.js';

/**
 * The UTC days "the last `days` days" cover: today (so far) and the `days - 1` days before it,
 * so `days=1` is today since 00:00 UTC and `days=90` reads at most 90 daily buckets.
 */
export function reportedDays(days: number, now: Date): { firstDay: string; lastDay: string } {
  const lastDay = utcDay(now);
  return { firstDay: addDays(lastDay, 1 - days), lastDay };
}

/** The spec's UsageResponse for the organization at `now`, over the last `days` UTC days (`reportedDays`). */
export async function buildUsageReport(
  stores: SafetyStores,
  {
    access,
    entitlements,
    days,
    now,
  }: { access: OrganizationAccess; entitlements: Entitlements; days: number; now: Date },
): Promise<{ report: UsageResponse; quota: QuotaUsage }> {
  const { organization, plan } = access;
  const month = monthOf(now);
  const [quota, usageDays] = await Promise.all([
    stores.quota.getUsage({ organizationId: organization.id, period: month.key, now }),
    stores.usage.readUsageDays({ organizationId: organization.id, ...reportedDays(days, now) }),
  ]);
  const summary = summarizeUsageDays(usageDays);
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
      by_network: byKey(summary.byNetwork),
      by_overall_state: byKey(summary.byOverallState),
    },
  };
  return { report, quota };
}

/** Counts in key order: the same history gives the same bytes whichever store kept it (jsonb orders keys its own way). */
function byKey(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `GET /v1/usage`: admitted by `begin` alone (authenticated, rate counted, nothing held); no usage record. */
export async function handleUsage(scope: RequestScope, req: CoreHttpRequest): Promise<CoreHttpResponse> {
  const credential = apiKeyCredential(req.headers['x-api-key']);
  if (!credential) return scope.fail({ kind: 'invalid_api_key' });
  const now = scope.now();
  const { stores } = scope.ctx;
  let answer;
  try {
    const { rateWindowStart } = rateWindowOf(now);
    answer = await stores.checks.begin({ credential, now, rateWindowStart, slot: null, work: null });
  } catch (error) {
    scope.report(error, 'begin');
    return scope.fail({ kind: 'rate_limiter_unavailable' });
  }
  const admission = admitted(scope, answer, now);
  if (admission.isErr()) return scope.fail(admission.error.error, admission.error.limits);
  const { access, entitlements, limits } = admission.value;
  const query = validateUsageQuery(req.query);
  if (query.isErr()) return scope.fail({ kind: 'invalid_request', ...query.error }, limits);
  let built;
  try {
    built = await buildUsageReport(stores, { access, entitlements, days: query.value.days, now });
  } catch (error) {
    scope.report(error, 'usage report');
    return scope.fail({ kind: 'internal_error' }, limits);
  }
  if (scope.aborted) return scope.fail(scope.abortError(), limits);
  const answered = {
    ...limits,
    quota: { limit: entitlements.monthlyQuota, usage: built.quota, periodEnd: monthOf(now).end },
  };
  // Read across a minute (or month) edge: the ended window's headers give way (`lateLimits`); the
  // report itself describes the month it was read for, so no other month's quota is read for it.
  const late = lateLimits(answered, scope.now(), null);
  return scope.respond({ status: 200, body: JSON.stringify(built.report), headers: late.headers }, late.limits);
}
