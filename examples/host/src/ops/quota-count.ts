import type { QuotaStore } from '@tron-safety/core';

/**
 * The quota store, counting the reservations this process holds (reserved, not yet committed or
 * released, lease not expired): the "quota reservations outstanding" gauge. A count that stays
 * above zero with no checks in flight means reservations are leaking.
 */
export function countingReservations(quota: QuotaStore): { quota: QuotaStore; outstanding: () => number } {
  const held = new Map<string, number>();
  const drop = (id: string) => held.delete(id);
  return {
    outstanding() {
      const now = Date.now();
      for (const [id, expiresAt] of held) if (expiresAt <= now) held.delete(id);
      return held.size;
    },
    quota: {
      async reserve(params) {
        const outcome = await quota.reserve(params);
        if (outcome.ok) held.set(params.reservationId, params.expiresAt.getTime());
        return outcome;
      },
      commit: (params) => quota.commit(params).finally(() => drop(params.reservationId)),
      release: (params) => quota.release(params).finally(() => drop(params.reservationId)),
      getUsage: (params) => quota.getUsage(params),
      purgeExpired: (now) => quota.purgeExpired(now),
    },
  };
}
