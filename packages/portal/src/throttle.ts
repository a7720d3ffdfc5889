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
 * same counts. Keys are hashed: the table holds no typed email or address. A throttled attempt is
 * refused before its password is checked (which also spares the scrypt work).
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

  /** When sign-ins for this email or from this client may be tried again, or null when they may now. */
  async blockedUntil(email: string, client: string, now: Date): Promise<Date | null> {
    const { windowStart, end } = this.#window(now);
    const counts = await Promise.all(
      this.#counters(email, client).map(
        async (c) => (await this.store.signInFailures({ key: c.key, windowStart })) >= c.limit,
      ),
    );
    return counts.some(Boolean) ? end : null;
  }

  async recordFailure(email: string, client: string, now: Date): Promise<void> {
    const { windowStart, end } = this.#window(now);
    await Promise.all(
      this.#counters(email, client).map((c) =>
        this.store.addSignInFailure({ key: c.key, windowStart, expiresAt: end }),
      ),
    );
  }
}
