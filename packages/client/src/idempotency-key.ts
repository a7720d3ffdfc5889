/** The spec's Idempotency-Key: 1 to 128 printable ASCII characters. */
export function isIdempotencyKey(key: string): boolean {
  return /^[\x20-\x7e]{1,128}$/.test(key);
}
