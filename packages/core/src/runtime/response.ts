import type { QuotaUsage } from '../stores/quota.js';
import { API_RESPONSE_HEADERS } from './api-headers.js';
import { errorReply, type RuntimeError } from './errors.js';
import type { CoreHttpResponse } from './http.js';
import { quotaHeaders, setRateLimitHeaders } from './limit-headers.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** What an answer says, before the headers every answer gets are added. */
export interface Reply {
  status: number;
  /** Serialized JSON. */
  body: string;
  /** The reply's own headers beyond Content-Type and X-Request-ID (Retry-After, Allow, Idempotent-Replayed…). */
  headers?: Record<string, string>;
}

/** The organization's limits as this request left them, shown in the X-RateLimit-* and X-Quota-* headers. */
export interface LimitState {
  rate: { limit: number; count: number; windowEnd: Date; now: Date } | null;
  quota: { limit: number; usage: QuotaUsage; periodEnd: Date } | null;
}

/**
 * Every answer of the core is assembled here, once: the limit headers (when the request was
 * admitted), Content-Type, X-Request-ID, the reply's own headers, then `API_RESPONSE_HEADERS`.
 */
export function respond(requestId: string, reply: Reply, limits: LimitState | null = null): CoreHttpResponse {
  const headers: Record<string, string> = {};
  if (limits?.rate) setRateLimitHeaders(headers, limits.rate);
  if (limits?.quota) quotaHeaders(limits.quota.limit, limits.quota.usage, limits.quota.periodEnd, headers);
  headers['Content-Type'] = JSON_CONTENT_TYPE;
  headers['X-Request-ID'] = requestId;
  if (reply.headers) Object.assign(headers, reply.headers);
  Object.assign(headers, API_RESPONSE_HEADERS);
  return { status: reply.status, headers, body: reply.body };
}

/** An error answer in the spec's envelope, with no limit headers (the request was not admitted). */
export function errorBody(requestId: string, error: RuntimeError): CoreHttpResponse {
  return respond(requestId, errorReply(requestId, error));
}
