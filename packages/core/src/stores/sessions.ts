/**
 * Portal sign-in sessions and the failed sign-ins that throttle them. A session is separate from
 * API keys (spec Authentication 3): it never authenticates `/v1`, and a key never opens one.
 * Only the SHA-256 of the session token (random, sent as a cookie) is stored.
 */
export interface SessionRecord {
  /** Lower-case hex SHA-256 of the session token. */
  tokenHash: string;
  memberId: string;
  organizationId: string;
  createdAt: Date;
  /** The absolute end: no activity extends it. */
  expiresAt: Date;
  /** The idle end, moved on by each use (never past `expiresAt`). */
  idleExpiresAt: Date;
}

export interface TouchSessionParams {
  tokenHash: string;
  now: Date;
  /** The new idle end when the session is live (the store keeps it at or before `expiresAt`). */
  idleExpiresAt: Date;
}

/** Fixed windows of failed sign-ins per key (an email, a client address), counted across hosts. */
export interface SignInFailureParams {
  key: string;
  windowStart: Date;
}

export interface AddSignInFailureParams extends SignInFailureParams {
  /** When the window's count may be deleted (its end). */
  expiresAt: Date;
}

export interface SessionStore {
  /** Stores a new session (its idle end capped at its absolute end). */
  createSession(record: SessionRecord): Promise<void>;
  /**
   * One atomic step: when the session exists and both its ends are after `now`, moves its idle
   * end to `idleExpiresAt` (capped at `expiresAt`) and returns it; otherwise null.
   */
  touchSession(params: TouchSessionParams): Promise<SessionRecord | null>;
  /** Ends the session (sign-out; idempotent). */
  deleteSession(tokenHash: string): Promise<void>;
  /** Ends every session of the member (removed member); returns how many. */
  deleteMemberSessions(memberId: string): Promise<number>;
  /** Counts one failed sign-in under `key` in the window; returns the window's count after it. */
  addSignInFailure(params: AddSignInFailureParams): Promise<number>;
  /**
   * Takes one counted failure back (an attempt counted before its password was checked, which then
   * proved right); never below 0.
   */
  forgiveSignInFailure(params: SignInFailureParams): Promise<void>;
  /**
   * Deletes sessions past either end and failure windows that ended, at or before `now`: at most
   * `limit` of each (default: all). Returns how many; a sweeper repeats while `limit` or more come back.
   */
  purgeExpired(now: Date, limit?: number): Promise<number>;
}
