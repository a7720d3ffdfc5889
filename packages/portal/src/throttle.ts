import type { SessionStore } from '@tron-safety/core';
import { tokenHash } from '@tron-safety/core/internal';

export interface ThrottlePolicy {
  /** Length of the fixed windows failures are counted in (default 15 minutes). */
  windowMs: number;
  /** Failed sign-ins per email per window before sign-ins for it are refused (default 5). */
  perEmail: number;
  /** Failed sign-ins per client address per window (default 20). */
  perClient: number;
}

export const DEFAULT_THROTTLE_POLICY: ThrottlePolicy = { windowMs: 15 * 60_000, perEmail: 5, perClient: 20 };

/** A throttled answer's `Retry-After`: whole seconds until `blockedUntil`, at least 1. */
export const retryAfter = (blockedUntil: Date, now: Date) =>
  String(Math.max(1, Math.ceil((blockedUntil.getTime() - now.getTime()) / 1000)));

/**
 * Failed sign-ins counted per email and per client in the session store, so every host sees the
 * same counts. Keys are hashed: the table holds no typed email or address. An attempt counts as a
 * failure before its password is checked, so parallel guesses cannot all see a count below the
 * limit; one that proves right is taken back. A throttled attempt is refused before its password is
 * checked (which also spares the scrypt work). The client is counted first and a blocked client's
 * attempt touches no email's counter, so one client adds at most `perClient` email rows per window.
 */
export class SignInThrottle {
  constructor(
    private readonly store: SessionStore,
    private readonly policy: ThrottlePolicy,
  ) {}

  #counters(email: string | null, client: string) {
    return [
      { key: `client:${tokenHash(client)}`, limit: this.policy.perClient },
      ...(email === null ? [] : [{ key: `email:${tokenHash(email)}`, limit: this.policy.perEmail }]),
    ];
  }

  #window(now: Date): { windowStart: Date; end: Date } {
    const start = Math.floor(now.getTime() / this.policy.windowMs) * this.policy.windowMs;
    return { windowStart: new Date(start), end: new Date(start + this.policy.windowMs) };
  }

  /**
   * Counts an attempt as a failure; `blockedUntil` is when sign-ins for this email or from this
   * client may be tried again when this attempt is past either limit, else null (check the password,
   * then `forgive` the attempt if it was right). A null email counts the client only (an invitation
   * link, which names no account).
   */
  async attempt(
    email: string | null,
    client: string,
    now: Date,
  ): Promise<{ blockedUntil: Date | null; windowStart: Date }> {
    const { windowStart, end } = this.#window(now);
    for (const c of this.#counters(email, client)) {
      const count = await this.store.addSignInFailure({ key: c.key, windowStart, expiresAt: end });
      if (count > c.limit) return { blockedUntil: end, windowStart };
    }
    return { blockedUntil: null, windowStart };
  }

  /** Takes back an attempt `attempt` counted (not blocked), once it proved right. */
  async forgive(email: string | null, client: string, windowStart: Date): Promise<void> {
    await Promise.all(
      this.#counters(email, client).map((c) => this.store.forgiveSignInFailure({ key: c.key, windowStart })),
    );
  }
}
