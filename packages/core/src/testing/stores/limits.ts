// Store conformance, the spec's limits: the per-minute rate window and the concurrency slots.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe } from 'node:test';
import type { LimitStore } from '../../stores/limits.js';
import { T0, at, type WithStores } from './support.js';

/** Takes a slot of a fresh organization (limit 5) at `now` for a 60 s lease. */
function slotTaker(limits: LimitStore) {
  const organizationId = randomUUID();
  return (slotId: string, now: Date) =>
    limits.acquireSlot({ organizationId, slotId, limit: 5, now, expiresAt: new Date(now.getTime() + 60_000) });
}

export function storeLimitsTests(withStores: WithStores): void {
  describe('rate and concurrency limits', () => {
    withStores('Limits: a window admits its limit, denies without counting, then rolls over', async ({ limits }) => {
      const organizationId = randomUUID();
      const minute = new Date('2026-03-31T23:59:00.000Z');
      const hit = (windowStart: Date, now: Date) => limits.hitRate({ organizationId, windowStart, limit: 3, now });
      assert.deepEqual(await hit(minute, T0), { allowed: true, count: 1 });
      assert.deepEqual(await hit(minute, T0), { allowed: true, count: 2 });
      assert.deepEqual(await hit(minute, T0), { allowed: true, count: 3 });
      assert.deepEqual(await hit(minute, at(1)), { allowed: false, count: 3 });
      assert.deepEqual(await hit(minute, at(2)), { allowed: false, count: 3 });
      const next = new Date('2026-04-01T00:00:00.000Z');
      assert.deepEqual(await hit(next, at(30_000)), { allowed: true, count: 1 });
      assert.deepEqual(
        await limits.hitRate({ organizationId: randomUUID(), windowStart: next, limit: 3, now: at(30_000) }),
        { allowed: true, count: 1 },
      );
    });

    withStores('Limits: concurrent hits admit exactly the limit', async ({ limits }) => {
      const organizationId = randomUUID();
      const windowStart = new Date('2026-03-31T23:59:00.000Z');
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, () => limits.hitRate({ organizationId, windowStart, limit: 10, now: T0 })),
      );
      assert.equal(outcomes.filter((o) => o.allowed).length, 10);
    });

    withStores('Limits: slots: limit, release, lease expiry, concurrency', async ({ limits }) => {
      const organizationId = randomUUID();
      const acquire = (slotId: string, now = T0, limit = 2) =>
        limits.acquireSlot({ organizationId, slotId, limit, now, expiresAt: new Date(now.getTime() + 60_000) });
      assert.deepEqual(await acquire('a'), { ok: true, inFlight: 1 });
      assert.deepEqual(await acquire('b'), { ok: true, inFlight: 2 });
      assert.deepEqual(await acquire('c'), { ok: false, inFlight: 2 });
      await limits.releaseSlot({ organizationId, slotId: 'a' });
      await limits.releaseSlot({ organizationId, slotId: 'a' });
      assert.deepEqual(await acquire('c'), { ok: true, inFlight: 2 });
      // b and c were never released (a crash): their leases end at T0 + 60 s.
      assert.equal((await acquire('d', at(59_999))).ok, false);
      assert.deepEqual(await acquire('d', at(60_000)), { ok: true, inFlight: 1 });

      const other = randomUUID();
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          limits.acquireSlot({ organizationId: other, slotId: `s${i}`, limit: 5, now: T0, expiresAt: at(60_000) }),
        ),
      );
      assert.equal(outcomes.filter((o) => o.ok).length, 5);
      assert.ok((await limits.purgeExpired(at(120_000))) >= 5);
      assert.equal(
        (
          await limits.acquireSlot({
            organizationId: other,
            slotId: 'z',
            limit: 1,
            now: at(120_000),
            expiresAt: at(180_000),
          })
        ).ok,
        true,
      );
    });

    withStores(
      'Limits: a slot counts only the live slots, also one taken by a clock that went back',
      async ({ limits }) => {
        const acquire = slotTaker(limits);
        assert.deepEqual(await acquire('late', T0), { ok: true, inFlight: 1 });
        // A clock stepped back 10 s: this lease ends before the first one's.
        assert.deepEqual(await acquire('early', at(-10_000)), { ok: true, inFlight: 2 });
        assert.deepEqual(await acquire('next', at(55_000)), { ok: true, inFlight: 2 }, 'early has ended');
      },
    );

    withStores(
      'Limits: purge with no limit deletes every ended slot, also one a clock that went back queued after a live one',
      async ({ limits }) => {
        const acquire = slotTaker(limits);
        await acquire('late', T0);
        // A clock stepped back 2 s: this lease ends before the first one's.
        await acquire('early', at(-2_000));
        assert.ok((await limits.purgeExpired(at(59_000))) >= 1);
        assert.equal(await limits.purgeExpired(at(59_000)), 0, 'nothing ended is left');
      },
    );
  });
}
