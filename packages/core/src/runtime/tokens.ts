import { createHash, randomBytes } from 'node:crypto';

/** A one-time secret (invitation link, portal session, CSRF): 32 random bytes, base64url. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the stores keep of a token: its lower-case hex SHA-256 (enough for a 256-bit random value). */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
