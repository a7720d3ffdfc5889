import type { QuotaUsage } from '../stores/quota.js';
import { secondsUntil, unixSeconds } from './time.js';

/**
 * Rate headers: the common X-RateLimit-* (reset in Unix seconds) and, beside them, the
 * draft-ietf-httpapi-ratelimit-headers fields (`t` in delay-seconds, as the draft asks).
 */
export function rateLimitHeaders(limit: number, count: number, windowEnd: Date, now: Date): Record<string, string> {
  const remaining = Math.max(0, limit - count);
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(unixSeconds(windowEnd)),
    'RateLimit-Policy': `"minute";q=${limit};w=60`,
    RateLimit: `"minute";r=${remaining};t=${secondsUntil(windowEnd, now)}`,
  };
}

export function quotaHeaders(limit: number, usage: QuotaUsage, periodEnd: Date): Record<string, string> {
  return {
    'X-Quota-Limit': String(limit),
    'X-Quota-Remaining': String(quotaRemaining(limit, usage)),
    'X-Quota-Reset': String(unixSeconds(periodEnd)),
  };
}

/** The spec's `max(0, limit - used - reserved)`. */
export const quotaRemaining = (limit: number, usage: QuotaUsage) => Math.max(0, limit - usage.used - usage.reserved);
