import type { RuntimeError } from '../src/runtime/errors.js';

/**
 * Every error the runtime answers, with the status, code and retryable flag the spec's error
 * table gives it (docs/SPEC.md, Errors): the one list of its rows the tests share. contract.test.ts
 * checks it against the spec's table and the runtime's mapping; openapi.test.ts checks each is
 * documented.
 */
export const ERROR_TABLE: readonly [error: RuntimeError, status: number, code: string, retryable: boolean][] = [
  [{ kind: 'invalid_api_key' }, 401, 'invalid_api_key', false],
  [{ kind: 'tenant_suspended' }, 403, 'tenant_suspended', false],
  [{ kind: 'network_not_enabled', network: 'tron' }, 403, 'network_not_enabled', false],
  [{ kind: 'idempotency_conflict' }, 409, 'idempotency_conflict', false],
  [{ kind: 'idempotency_in_progress', retryAfterSeconds: 1 }, 409, 'idempotency_in_progress', true],
  [{ kind: 'invalid_request', code: 'malformed_tx_hash', message: 'm' }, 422, 'malformed_tx_hash', false],
  [{ kind: 'invalid_request', code: 'invalid_network', message: 'm' }, 422, 'invalid_network', false],
  [{ kind: 'invalid_request', code: 'invalid_tron_address', message: 'm' }, 422, 'invalid_tron_address', false],
  [{ kind: 'invalid_request', code: 'invalid_expected_amount', message: 'm' }, 422, 'invalid_expected_amount', false],
  [{ kind: 'invalid_request', code: 'invalid_idempotency_key', message: 'm' }, 422, 'invalid_idempotency_key', false],
  [{ kind: 'invalid_request', code: 'payload_too_large', message: 'm' }, 422, 'payload_too_large', false],
  [{ kind: 'invalid_request', code: 'validation_error', message: 'm' }, 422, 'validation_error', false],
  [{ kind: 'rate_limit_exceeded', retryAfterSeconds: 3 }, 429, 'rate_limit_exceeded', true],
  [{ kind: 'quota_exceeded', retryAfterSeconds: 86_400 }, 429, 'quota_exceeded', true],
  [{ kind: 'concurrency_limit_exceeded', retryAfterSeconds: 1 }, 429, 'concurrency_limit_exceeded', true],
  [{ kind: 'provider_unavailable' }, 503, 'provider_unavailable', true],
  [{ kind: 'api_not_configured' }, 503, 'api_not_configured', true],
  [{ kind: 'rate_limiter_unavailable' }, 503, 'rate_limiter_unavailable', true],
  [{ kind: 'api_disabled' }, 503, 'api_disabled', true],
  [{ kind: 'api_disabled', shuttingDown: true }, 503, 'api_disabled', true],
  [{ kind: 'request_timeout' }, 504, 'request_timeout', true],
  [{ kind: 'internal_error' }, 500, 'internal_error', false],
  // Outside the spec's table: routing answers validation_error with the HTTP status.
  [{ kind: 'not_found' }, 404, 'validation_error', false],
  [{ kind: 'method_not_allowed', allow: 'GET' }, 405, 'validation_error', false],
];
