/**
 * The spec's Idempotency-Key: 1 to 128 printable ASCII characters, neither starting nor ending with a
 * space (HTTP strips those, so the server would see another key, or none). The core's rule
 * (`IDEMPOTENCY_KEY` in its contract models), copied: the client does not depend on the core.
 */
const IDEMPOTENCY_KEY = /^[!-~]([ -~]{0,126}[!-~])?$/;

export function isIdempotencyKey(key: string): boolean {
  return IDEMPOTENCY_KEY.test(key);
}
