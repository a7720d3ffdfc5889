import { err, ok, type Result } from 'neverthrow';
import { IdempotencyKey } from '../contract/models.js';
import { requestError, type RequestError } from './request-error.js';

const RULE = 'Idempotency-Key must be 1 to 128 printable ASCII characters, without leading or trailing spaces';

/**
 * The `Idempotency-Key` header: absent = null. Interior spaces are allowed (space is printable
 * ASCII); a repeated header (an array) is invalid. Adapters must pass repeated headers as an
 * array: once joined into "a, b" they cannot be told apart from one key.
 */
export function validateIdempotencyKey(header: string | string[] | undefined): Result<string | null, RequestError> {
  if (header === undefined) return ok(null);
  if (Array.isArray(header)) return err(requestError('invalid_idempotency_key', 'Idempotency-Key must be sent once'));
  return IdempotencyKey.is(header) ? ok(header) : err(requestError('invalid_idempotency_key', RULE));
}
