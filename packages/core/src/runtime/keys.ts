import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Recognizable in logs and by secret scanners. */
export const API_KEY_PREFIX = 'tsk_live_';
/** Characters of a key shown in lists: the prefix and 8 characters of the secret. */
const DISPLAY_LENGTH = API_KEY_PREFIX.length + 8;
/** Longest key accepted (imported keys included); anything longer is not looked up. */
export const MAX_API_KEY_LENGTH = 256;

/** A new key: 32 random bytes, base64url, after the prefix. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): string {
  // The one-shot hash: no Hash object per request (Node 20.12+).
  return hash('sha256', key, 'hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, Math.min(DISPLAY_LENGTH, Math.floor(key.length / 2)));
}

/** Constant-time comparison of two hex SHA-256 digests. */
export function sameKeyHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === 32 && y.length === 32 && timingSafeEqual(x, y);
}
