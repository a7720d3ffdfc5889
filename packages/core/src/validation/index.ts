export { MAX_BODY_BYTES, payloadTooLarge } from './json-body.js';
export { canonicalAmount, validateCheckRequest, type NormalizedCheckRequest } from './check-request.js';
export { validateIdempotencyKey } from './idempotency-key.js';
export { validateUsageQuery } from './usage-query.js';
export type { RequestError, RequestErrorCode } from './request-error.js';
