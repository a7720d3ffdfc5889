import type { QuotaUsage } from '../stores/quota.js';
import { secondsUntil, unixSeconds } from './time.js';

/**
 * Rate headers: the common X-RateLimit-* (reset in Unix seconds) and, beside them, the
 * draft-ietf-httpapi-ratelimit-headers fields (`t` in delay-seconds, as the draft asks).
 */
export function rateLimitHeaders(limit: number, count: number, windowEnd: Date, now: Date): Record<string, string> {
  return setRateLimitHeaders({}, { limit, count, windowEnd, now });
}

/** `rateLimitHeaders` set on `into` (an answer's headers: no object to copy them from). */
export function setRateLimitHeaders(
  into: Record<string, string>,
  { limit, count, windowEnd, now }: { limit: number; count: number; windowEnd: Date; now: Date },
): Record<string, string> {
  const remaining = Math.max(0, limit - count);
  into['X-RateLimit-Limit'] = String(limit);
  into['X-RateLimit-Remaining'] = String(remaining);
  into['X-RateLimit-Reset'] = String(unixSeconds(windowEnd));
  into['RateLimit-Policy'] = `"minute";q=${limit};w=60`;
  into['RateLimit'] = `"minute";r=${remaining};t=${secondsUntil(windowEnd, now)}`;
  return into;
}

/** Quota headers, set on `into` when given (an answer's headers), else on a new object. */
export function quotaHeaders(
  limit: number,
  usage: QuotaUsage,
  periodEnd: Date,
  into: Record<string, string> = {},
): Record<string, string> {
  into['X-Quota-Limit'] = String(limit);
  into['X-Quota-Remaining'] = String(quotaRemaining(limit, usage));
  into['X-Quota-Reset'] = String(unixSeconds(periodEnd));
  return into;
}

/** The spec's `max(0, limit - used - reserved)`. */
export const quotaRemaining = (limit: number, usage: QuotaUsage) => Math.max(0, limit - usage.used - usage.reserved);
