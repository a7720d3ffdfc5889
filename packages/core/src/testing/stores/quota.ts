// Store conformance, the spec's quota reservation: reserve, commit once, release, expiry, months.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe } from 'node:test';
import { T0, at, type WithStores } from './support.js';

export function storeQuotaTests(withStores: WithStores): void {
  describe('quota', () => {
    const reserveParams = (organizationId: string, limit: number, now = T0, period = '2026-03') => ({
      organizationId,
      period,
      limit,
      reservationId: randomUUID(),
      now,
      expiresAt: new Date(now.getTime() + 60_000),
    });

    withStores('Quota reservation: reserve up to the limit; commit bills once; release frees', async ({ quota }) => {
      const orgId = randomUUID();
      const a = reserveParams(orgId, 2);
      const b = reserveParams(orgId, 2);
      assert.deepEqual(await quota.reserve(a), { ok: true, usage: { used: 0, reserved: 1 } });
      assert.deepEqual(await quota.reserve(b), { ok: true, usage: { used: 0, reserved: 2 } });
      assert.deepEqual(await quota.reserve(reserveParams(orgId, 2)), { ok: false, usage: { used: 0, reserved: 2 } });
      assert.deepEqual(await quota.commit({ organizationId: orgId, reservationId: a.reservationId, now: at(1) }), {
        used: 1,
        reserved: 1,
      });
      assert.equal(
        await quota.commit({ organizationId: orgId, reservationId: a.reservationId, now: at(2) }),
        null,
        'commits once',
      );
      assert.equal(
        await quota.release({ organizationId: orgId, reservationId: a.reservationId, now: at(2) }),
        null,
        'a committed unit is not released',
      );
      assert.equal(
        await quota.commit({ organizationId: randomUUID(), reservationId: b.reservationId, now: at(2) }),
        null,
        'another organization cannot commit it',
      );
      assert.deepEqual(await quota.release({ organizationId: orgId, reservationId: b.reservationId, now: at(3) }), {
        used: 1,
        reserved: 0,
      });
      assert.equal(
        await quota.release({ organizationId: orgId, reservationId: b.reservationId, now: at(3) }),
        null,
        'release is idempotent',
      );
      assert.deepEqual(await quota.getUsage({ organizationId: orgId, period: '2026-03', now: at(4) }), {
        used: 1,
        reserved: 0,
      });
      assert.deepEqual(
        await quota.reserve(reserveParams(orgId, 1)),
        { ok: false, usage: { used: 1, reserved: 0 } },
        'a lowered limit below used',
      );
    });

    withStores(
      'Quota reservation: concurrent reserves never exceed the limit (500 for 100 units)',
      async ({ quota }) => {
        const orgId = randomUUID();
        const attempts = Array.from({ length: 500 }, () => reserveParams(orgId, 100));
        const outcomes = await Promise.all(attempts.map((p) => quota.reserve(p)));
        const granted = attempts.filter((_, i) => outcomes[i]!.ok);
        assert.equal(granted.length, 100);
        await Promise.all(
          granted.map((p) => quota.commit({ organizationId: orgId, reservationId: p.reservationId, now: at(1) })),
        );
        assert.deepEqual(await quota.getUsage({ organizationId: orgId, period: '2026-03', now: at(2) }), {
          used: 100,
          reserved: 0,
        });
      },
    );

    withStores(
      'Quota reservation: an expired reservation counts as released and cannot be billed',
      async ({ quota }) => {
        const orgId = randomUUID();
        const crashed = reserveParams(orgId, 1);
        await quota.reserve(crashed);
        assert.equal((await quota.reserve(reserveParams(orgId, 1, at(59_999)))).ok, false);
        assert.deepEqual(await quota.getUsage({ organizationId: orgId, period: '2026-03', now: at(60_000) }), {
          used: 0,
          reserved: 0,
        });
        assert.equal(
          await quota.commit({ organizationId: orgId, reservationId: crashed.reservationId, now: at(60_000) }),
          null,
        );
        const next = reserveParams(orgId, 1, at(60_000));
        assert.equal((await quota.reserve(next)).ok, true);
        assert.ok((await quota.purgeExpired(at(200_000))) >= 1);
        assert.deepEqual(await quota.getUsage({ organizationId: orgId, period: '2026-03', now: at(200_000) }), {
          used: 0,
          reserved: 0,
        });
      },
    );

    withStores(
      'Quota reservation: months are separate; a unit is billed to the month it was reserved in',
      async ({ quota }) => {
        const orgId = randomUUID();
        const march = reserveParams(orgId, 1, T0, '2026-03');
        assert.equal((await quota.reserve(march)).ok, true);
        // Committed after midnight UTC: still March's unit.
        assert.deepEqual(
          await quota.commit({ organizationId: orgId, reservationId: march.reservationId, now: at(31_000) }),
          { used: 1, reserved: 0 },
        );
        assert.equal((await quota.reserve(reserveParams(orgId, 1, at(31_000), '2026-03'))).ok, false);
        assert.deepEqual(await quota.reserve(reserveParams(orgId, 1, at(31_000), '2026-04')), {
          ok: true,
          usage: { used: 0, reserved: 1 },
        });
        assert.deepEqual(await quota.getUsage({ organizationId: orgId, period: '2026-03', now: at(32_000) }), {
          used: 1,
          reserved: 0,
        });
      },
    );

    withStores(
      "Quota reservation: a sweep after the month's edge keeps its used units for a begin whose clock is still in it",
      async ({ quota }) => {
        const orgId = randomUUID();
        const first = reserveParams(orgId, 1, at(20_000));
        assert.equal((await quota.reserve(first)).ok, true);
        assert.ok(await quota.commit({ organizationId: orgId, reservationId: first.reservationId, now: at(21_000) }));
        // The sweep runs just after midnight UTC; a host 1 s behind (or a clock stepped back) then begins in March.
        await quota.purgeExpired(at(30_500));
        assert.deepEqual(await quota.reserve(reserveParams(orgId, 1, at(29_500))), {
          ok: false,
          usage: { used: 1, reserved: 0 },
        });
        assert.deepEqual(await quota.getUsage({ organizationId: orgId, period: '2026-03', now: at(29_600) }), {
          used: 1,
          reserved: 0,
        });
      },
    );

    withStores(
      "Quota reservation: a read at a later clock does not end a reservation still live at the commit's own clock",
      async ({ quota }) => {
        const orgId = randomUUID();
        const r = reserveParams(orgId, 10);
        assert.equal((await quota.reserve(r)).ok, true);
        // Another host whose clock is ahead reads just past the lease's end, then the check's own host commits.
        const ahead = { organizationId: orgId, period: '2026-03', now: at(60_001) };
        assert.deepEqual(await quota.getUsage(ahead), { used: 0, reserved: 0 });
        assert.deepEqual(
          await quota.commit({ organizationId: orgId, reservationId: r.reservationId, now: at(59_000) }),
          {
            used: 1,
            reserved: 0,
          },
        );
        assert.deepEqual(await quota.getUsage(ahead), { used: 1, reserved: 0 });
      },
    );
  });
}
