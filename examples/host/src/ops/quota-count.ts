import type { CheckStore } from '@tron-safety/core';

/**
 * The check store, counting the quota reservations this process holds (reserved by `begin`, not
 * yet committed or released by `finish`, lease not expired): the "quota reservations outstanding"
 * gauge. A count that stays above zero with no checks in flight means reservations are leaking.
 */
export function countingReservations(checks: CheckStore): { checks: CheckStore; outstanding: () => number } {
  const held = new Map<string, number>();
  return {
    outstanding() {
      const now = Date.now();
      for (const [id, expiresAt] of held) if (expiresAt <= now) held.delete(id);
      return held.size;
    },
    checks: {
      async begin(params) {
        const outcome = await checks.begin(params);
        const quota = params.work?.quota;
        if (quota && outcome.kind === 'admitted' && outcome.stage === 'started') {
          held.set(quota.reservationId, quota.expiresAt.getTime());
        }
        return outcome;
      },
      finish: (params) =>
        checks.finish(params).finally(() => {
          if (params.reservation) held.delete(params.reservation.reservationId);
        }),
    },
  };
}
