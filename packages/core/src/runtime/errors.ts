import type { ErrorCode } from '../contract/enums.js';
import type { ErrorResponse } from '../contract/models.js';
import type { RequestErrorCode } from '../validation/index.js';

/** Every way a request can fail, as data. `describeError` is the one mapping to HTTP. */
export type RuntimeError =
  | { kind: 'invalid_api_key' }
  | { kind: 'tenant_suspended' }
  | { kind: 'network_not_enabled'; network: string }
  | { kind: 'idempotency_conflict' }
  | { kind: 'idempotency_in_progress'; retryAfterSeconds: number }
  | { kind: 'invalid_request'; code: RequestErrorCode; message: string }
  | { kind: 'rate_limit_exceeded'; retryAfterSeconds: number }
  | { kind: 'quota_exceeded'; retryAfterSeconds: number }
  | { kind: 'concurrency_limit_exceeded'; retryAfterSeconds: number }
  | { kind: 'provider_unavailable' }
  | { kind: 'api_not_configured' }
  | { kind: 'rate_limiter_unavailable' }
  | { kind: 'api_disabled'; shuttingDown?: boolean }
  | { kind: 'request_timeout' }
  | { kind: 'internal_error' }
  // Routing: the spec has no code for an unknown path or method; `validation_error` with 404/405.
  | { kind: 'not_found' }
  | { kind: 'method_not_allowed'; allow: string };

export interface ErrorDescription {
  status: number;
  code: ErrorCode;
  retryable: boolean;
  message: string;
  headers: Record<string, string>;
}

const retryAfter = (seconds: number) => ({ 'Retry-After': String(Math.max(1, Math.ceil(seconds))) });

const described = (status: number, code: ErrorCode, retryable: boolean, message: string): ErrorDescription => ({
  status,
  code,
  retryable,
  message,
  headers: {},
});
/** A retryable refusal that says when to come back. */
const retryLater = (status: number, code: ErrorCode, message: string, seconds: number): ErrorDescription => ({
  ...described(status, code, true, message),
  headers: retryAfter(seconds),
});

type Describe<K extends RuntimeError['kind']> = (error: Extract<RuntimeError, { kind: K }>) => ErrorDescription;

/** The spec's errors table: each failure's status, code, retryability, message and headers. */
const ERRORS: { [K in RuntimeError['kind']]: Describe<K> } = {
  invalid_api_key: () => described(401, 'invalid_api_key', false, 'The API key is missing, invalid or revoked.'),
  tenant_suspended: () => described(403, 'tenant_suspended', false, 'The organization is suspended.'),
  network_not_enabled: (error) =>
    described(403, 'network_not_enabled', false, `The network '${error.network}' is not enabled for the organization.`),
  idempotency_conflict: () =>
    described(
      409,
      'idempotency_conflict',
      false,
      'The Idempotency-Key was already used with a different request body.',
    ),
  idempotency_in_progress: (error) =>
    retryLater(
      409,
      'idempotency_in_progress',
      'A request with this Idempotency-Key is still being processed.',
      error.retryAfterSeconds,
    ),
  invalid_request: (error) => described(422, error.code, false, error.message),
  rate_limit_exceeded: (error) =>
    retryLater(
      429,
      'rate_limit_exceeded',
      'The organization request rate limit is exhausted.',
      error.retryAfterSeconds,
    ),
  quota_exceeded: (error) =>
    retryLater(429, 'quota_exceeded', 'The monthly quota of the organization is used up.', error.retryAfterSeconds),
  concurrency_limit_exceeded: (error) =>
    retryLater(
      429,
      'concurrency_limit_exceeded',
      'Too many checks of the organization are in flight.',
      error.retryAfterSeconds,
    ),
  provider_unavailable: () =>
    described(503, 'provider_unavailable', true, 'Transaction data is temporarily unavailable.'),
  api_not_configured: () => described(503, 'api_not_configured', true, 'No TRON data provider is configured.'),
  rate_limiter_unavailable: () =>
    retryLater(503, 'rate_limiter_unavailable', 'Request limits cannot be enforced right now.', 1),
  // Shutting down is brief backpressure (another instance answers); a pause has no known end.
  api_disabled: (error) =>
    error.shuttingDown
      ? retryLater(503, 'api_disabled', 'The service is shutting down.', 1)
      : described(503, 'api_disabled', true, 'Business checks are paused.'),
  request_timeout: () => described(504, 'request_timeout', true, 'The server deadline was exceeded.'),
  // Not in the spec's list of retryable failures (Errors rule 5): a 500 needs someone to look.
  internal_error: () => described(500, 'internal_error', false, 'An internal error occurred; quote the X-Request-ID.'),
  not_found: () => described(404, 'validation_error', false, 'No such operation.'),
  method_not_allowed: (error) => ({
    ...described(405, 'validation_error', false, 'Method not allowed for this operation.'),
    headers: { Allow: error.allow },
  }),
};

export function describeError(error: RuntimeError): ErrorDescription {
  return (ERRORS[error.kind] as (error: RuntimeError) => ErrorDescription)(error);
}

/** The spec's envelope of `error`, serialized once, with the error's own headers (Retry-After, Allow). */
export function errorReply(
  requestId: string,
  error: RuntimeError,
): { status: number; headers: Record<string, string>; body: string; code: ErrorCode } {
  const { status, code, retryable, message, headers } = describeError(error);
  const envelope: ErrorResponse = { request_id: requestId, error: { code, message, retryable } };
  return { status, headers, body: JSON.stringify(envelope), code };
}
