export { canonicalAmount, validateCheckRequest, type NormalizedCheckRequest } from './check-request.js';
export { validateIdempotencyKey } from './idempotency-key.js';
export { DEFAULT_USAGE_DAYS, validateUsageQuery } from './usage-query.js';
export type { RequestError, RequestErrorCode } from './request-error.js';
