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

export function describeError(error: RuntimeError): ErrorDescription {
  const d = (status: number, code: ErrorCode, retryable: boolean, message: string, headers = {}) => ({
    status,
    code,
    retryable,
    message,
    headers,
  });
  switch (error.kind) {
    case 'invalid_api_key':
      return d(401, 'invalid_api_key', false, 'The API key is missing, invalid or revoked.');
    case 'tenant_suspended':
      return d(403, 'tenant_suspended', false, 'The organization is suspended.');
    case 'network_not_enabled':
      return d(
        403,
        'network_not_enabled',
        false,
        `The network '${error.network}' is not enabled for the organization.`,
      );
    case 'idempotency_conflict':
      return d(
        409,
        'idempotency_conflict',
        false,
        'The Idempotency-Key was already used with a different request body.',
      );
    case 'idempotency_in_progress':
      return d(
        409,
        'idempotency_in_progress',
        true,
        'A request with this Idempotency-Key is still being processed.',
        retryAfter(error.retryAfterSeconds),
      );
    case 'invalid_request':
      return d(422, error.code, false, error.message);
    case 'rate_limit_exceeded':
      return d(
        429,
        'rate_limit_exceeded',
        true,
        'The organization request rate limit is exhausted.',
        retryAfter(error.retryAfterSeconds),
      );
    case 'quota_exceeded':
      return d(
        429,
        'quota_exceeded',
        true,
        'The monthly quota of the organization is used up.',
        retryAfter(error.retryAfterSeconds),
      );
    case 'concurrency_limit_exceeded':
      return d(
        429,
        'concurrency_limit_exceeded',
        true,
        'Too many checks of the organization are in flight.',
        retryAfter(error.retryAfterSeconds),
      );
    case 'provider_unavailable':
      return d(503, 'provider_unavailable', true, 'Transaction data is temporarily unavailable.');
    case 'api_not_configured':
      return d(503, 'api_not_configured', true, 'No TRON data provider is configured.');
    case 'rate_limiter_unavailable':
      return d(503, 'rate_limiter_unavailable', true, 'Request limits cannot be enforced right now.', retryAfter(1));
    case 'api_disabled':
      // Shutting down is brief backpressure (another instance answers); a pause has no known end.
      return error.shuttingDown
        ? d(503, 'api_disabled', true, 'The service is shutting down.', retryAfter(1))
        : d(503, 'api_disabled', true, 'Business checks are paused.');
    case 'request_timeout':
      return d(504, 'request_timeout', true, 'The server deadline was exceeded.');
    case 'internal_error':
      // Not in the spec's list of retryable failures (Errors rule 5): a 500 needs someone to look.
      return d(500, 'internal_error', false, 'An internal error occurred; quote the X-Request-ID.');
    case 'not_found':
      return d(404, 'validation_error', false, 'No such operation.');
    case 'method_not_allowed':
      return d(405, 'validation_error', false, 'Method not allowed for this operation.', { Allow: error.allow });
  }
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
