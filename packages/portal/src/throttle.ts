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

/**
 * Failed sign-ins counted per email and per client in the session store, so every host sees the
 * same counts. Keys are hashed: the table holds no typed email or address. An attempt counts as a
 * failure before its password is checked, so parallel guesses cannot all see a count below the
 * limit; one that proves right is taken back. A throttled attempt is refused before its password is
 * checked (which also spares the scrypt work).
 */
export class SignInThrottle {
  constructor(
    private readonly store: SessionStore,
    private readonly policy: ThrottlePolicy,
  ) {}

  #counters(email: string, client: string) {
    return [
      { key: `email:${tokenHash(email)}`, limit: this.policy.perEmail },
      { key: `client:${tokenHash(client)}`, limit: this.policy.perClient },
    ];
  }

  #window(now: Date): { windowStart: Date; end: Date } {
    const start = Math.floor(now.getTime() / this.policy.windowMs) * this.policy.windowMs;
    return { windowStart: new Date(start), end: new Date(start + this.policy.windowMs) };
  }

  /**
   * Counts an attempt as a failure; `blockedUntil` is when sign-ins for this email or from this
   * client may be tried again when this attempt is past either limit, else null (check the password,
   * then `forgive` the attempt if it was right).
   */
  async attempt(email: string, client: string, now: Date): Promise<{ blockedUntil: Date | null; windowStart: Date }> {
    const { windowStart, end } = this.#window(now);
    const over = await Promise.all(
      this.#counters(email, client).map(
        async (c) => (await this.store.addSignInFailure({ key: c.key, windowStart, expiresAt: end })) > c.limit,
      ),
    );
    return { blockedUntil: over.some(Boolean) ? end : null, windowStart };
  }

  /** Takes back an attempt `attempt` counted, once its password proved right. */
  async forgive(email: string, client: string, windowStart: Date): Promise<void> {
    await Promise.all(
      this.#counters(email, client).map((c) => this.store.forgiveSignInFailure({ key: c.key, windowStart })),
    );
  }
}
