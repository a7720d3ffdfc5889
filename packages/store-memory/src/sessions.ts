import type {
  AddSignInFailureParams,
  SessionRecord,
  SessionStore,
  SignInFailureParams,
  TouchSessionParams,
} from '@tron-safety/core';

const failureKey = (p: SignInFailureParams) => `${p.key}\u0000${p.windowStart.getTime()}`;

/** Portal sessions and sign-in failure windows in memory; `purgeExpired` (the host's sweep) bounds both. */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #failures = new Map<string, { count: number; expiresAt: number }>();

  async createSession(record: SessionRecord): Promise<void> {
    const idleExpiresAt = record.idleExpiresAt < record.expiresAt ? record.idleExpiresAt : record.expiresAt;
    this.#sessions.set(record.tokenHash, { ...record, idleExpiresAt });
  }

  async touchSession(params: TouchSessionParams): Promise<SessionRecord | null> {
    const session = this.#sessions.get(params.tokenHash);
    if (!session) return null;
    if (session.expiresAt <= params.now || session.idleExpiresAt <= params.now) {
      this.#sessions.delete(params.tokenHash);
      return null;
    }
    session.idleExpiresAt = params.idleExpiresAt < session.expiresAt ? params.idleExpiresAt : session.expiresAt;
    return { ...session };
  }

  async deleteSession(tokenHash: string): Promise<void> {
    this.#sessions.delete(tokenHash);
  }

  async deleteMemberSessions(memberId: string): Promise<number> {
    let deleted = 0;
    for (const [hash, session] of this.#sessions) {
      if (session.memberId === memberId) {
        this.#sessions.delete(hash);
        deleted++;
      }
    }
    return deleted;
  }

  async addSignInFailure(params: AddSignInFailureParams): Promise<number> {
    const key = failureKey(params);
    const count = (this.#failures.get(key)?.count ?? 0) + 1;
    this.#failures.set(key, { count, expiresAt: params.expiresAt.getTime() });
    return count;
  }

  async forgiveSignInFailure(params: SignInFailureParams): Promise<void> {
    const window = this.#failures.get(failureKey(params));
    if (window && window.count > 0) window.count--;
  }

  async purgeExpired(now: Date, limit = Infinity): Promise<number> {
    return (
      deleteWhere(this.#sessions, (s) => s.idleExpiresAt <= now || s.expiresAt <= now, limit) +
      deleteWhere(this.#failures, (w) => w.expiresAt <= now.getTime(), limit)
    );
  }
}

/** Deletes up to `limit` entries of `map` that `due` picks; returns how many. */
function deleteWhere<V>(map: Map<string, V>, due: (value: V) => boolean, limit: number): number {
  let deleted = 0;
  for (const [key, value] of map) {
    if (deleted >= limit) break;
    if (due(value)) {
      map.delete(key);
      deleted++;
    }
  }
  return deleted;
}
