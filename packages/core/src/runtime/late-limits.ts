import type { QuotaUsage } from '../stores/quota.js';
import { rateLimitHeaders } from './limit-headers.js';
import type { LimitState } from './response.js';
import { minuteOf, monthOf } from './time.js';

/**
 * Whether an answer sent at `at` comes after the rate window or the quota period its request was
 * counted in ended (a check across a minute or month edge): their reset lies in the past then.
 */
export const isLate = ({ rate, quota }: LimitState, at: Date) =>
  (rate !== null && at >= rate.windowEnd) || (quota !== null && at >= quota.periodEnd);

/** The headers `lateLimits` keeps of an ended rate window: none that counts what is left. */
const KEPT_RATE_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Reset', 'RateLimit-Policy'];

/**
 * The limits a late answer (`isLate`) shows, as `limits` for `respond` and headers of the reply's own.
 * An ended rate window gives way to the current minute: its limit, policy and reset, but no remaining
 * count (`X-RateLimit-Remaining`, `RateLimit`), since the requests counted in the new minute are
 * unknown here and any count could over-promise. An ended quota period gives way to the month of
 * `at`, with `monthUsage` read for it; without that read, no `X-Quota-*` at all.
 */
export function lateLimits(
  { rate, quota }: LimitState,
  at: Date,
  monthUsage: QuotaUsage | null,
): { limits: LimitState; headers: Record<string, string> } {
  const rateEnded = rate !== null && at >= rate.windowEnd;
  const quotaEnded = quota !== null && at >= quota.periodEnd;
  const headers: Record<string, string> = {};
  if (rateEnded) {
    const current = rateLimitHeaders(rate.limit, rate.count, minuteOf(at).end, at);
    for (const name of KEPT_RATE_HEADERS) headers[name] = current[name]!;
  }
  const month = quotaEnded && monthUsage ? { limit: quota.limit, usage: monthUsage, periodEnd: monthOf(at).end } : null;
  return { limits: { rate: rateEnded ? null : rate, quota: quotaEnded ? month : quota }, headers };
}
