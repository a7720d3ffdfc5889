// Store conformance, the spec's idempotency record: begin, in progress, conflict, replay, leases,
// retention and purge.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe } from 'node:test';
import { T0, at, type WithStores } from './support.js';

export function storeIdempotencyTests(withStores: WithStores): void {
  describe('idempotency', () => {
    const response = { status: 200, headers: { 'X-Request-ID': 'r-1' }, body: '{"a":"ü"}' };

    withStores('Idempotency: begin, in progress, conflict, complete, replay', async ({ idempotency }) => {
      const scope = { organizationId: randomUUID(), key: 'key-1' };
      const lease = at(60_000);
      assert.deepEqual(
        await idempotency.begin(scope, { fingerprint: 'f1', owner: 'o1', now: T0, leaseExpiresAt: lease }),
        { kind: 'started' },
      );
      assert.deepEqual(
        await idempotency.begin(scope, { fingerprint: 'f1', owner: 'o2', now: at(1), leaseExpiresAt: lease }),
        {
          kind: 'in_progress',
          leaseExpiresAt: lease,
        },
      );
      assert.deepEqual(
        await idempotency.begin(scope, { fingerprint: 'f2', owner: 'o2', now: at(1), leaseExpiresAt: lease }),
        { kind: 'conflict' },
      );
      assert.equal(
        await idempotency.complete(scope, { owner: 'o2', response, now: at(2), retainUntil: at(86_400_000) }),
        false,
        'only the owner completes',
      );
      assert.equal(
        await idempotency.complete(scope, { owner: 'o1', response, now: at(2), retainUntil: at(86_400_000) }),
        true,
      );
      assert.deepEqual(
        await idempotency.begin(scope, { fingerprint: 'f1', owner: 'o3', now: at(3), leaseExpiresAt: lease }),
        { kind: 'completed', response },
      );
      assert.deepEqual(
        await idempotency.begin(scope, { fingerprint: 'f2', owner: 'o3', now: at(3), leaseExpiresAt: lease }),
        { kind: 'conflict' },
      );
      assert.equal(
        await idempotency.complete(scope, { owner: 'o1', response, now: at(4), retainUntil: at(86_400_000) }),
        false,
        'completes once',
      );
    });

    withStores('Idempotency: scoped per organization', async ({ idempotency }) => {
      const key = 'shared-key';
      const params = { fingerprint: 'f', owner: 'o', now: T0, leaseExpiresAt: at(60_000) };
      assert.equal((await idempotency.begin({ organizationId: randomUUID(), key }, params)).kind, 'started');
      assert.equal((await idempotency.begin({ organizationId: randomUUID(), key }, params)).kind, 'started');
    });

    withStores(
      'Idempotency: an expired lease is taken over; the old owner can no longer complete',
      async ({ idempotency }) => {
        const scope = { organizationId: randomUUID(), key: 'crash' };
        await idempotency.begin(scope, { fingerprint: 'f1', owner: 'crashed', now: T0, leaseExpiresAt: at(10_000) });
        assert.equal(
          (
            await idempotency.begin(scope, {
              fingerprint: 'f1',
              owner: 'x',
              now: at(9_999),
              leaseExpiresAt: at(70_000),
            })
          ).kind,
          'in_progress',
        );
        assert.deepEqual(
          await idempotency.begin(scope, {
            fingerprint: 'f2',
            owner: 'next',
            now: at(10_000),
            leaseExpiresAt: at(70_000),
          }),
          { kind: 'started' },
        );
        assert.equal(
          await idempotency.complete(scope, { owner: 'crashed', response, now: at(11_000), retainUntil: at(99_000) }),
          false,
        );
        assert.equal(
          await idempotency.complete(scope, { owner: 'next', response, now: at(11_000), retainUntil: at(99_000) }),
          true,
        );
      },
    );

    withStores(
      'Idempotency: a late completion by the owner still counts while nobody took over',
      async ({ idempotency }) => {
        const scope = { organizationId: randomUUID(), key: 'late' };
        await idempotency.begin(scope, { fingerprint: 'f', owner: 'slow', now: T0, leaseExpiresAt: at(10_000) });
        assert.equal(
          await idempotency.complete(scope, { owner: 'slow', response, now: at(20_000), retainUntil: at(99_000) }),
          true,
        );
        assert.equal(
          (
            await idempotency.begin(scope, {
              fingerprint: 'f',
              owner: 'o',
              now: at(21_000),
              leaseExpiresAt: at(80_000),
            })
          ).kind,
          'completed',
        );
      },
    );

    withStores(
      "Idempotency: a late completion still counts after another key's begin (no sweep ran)",
      async ({ idempotency }) => {
        const organizationId = randomUUID();
        const scope = { organizationId, key: 'slow' };
        await idempotency.begin(scope, { fingerprint: 'f', owner: 'slow', now: T0, leaseExpiresAt: at(10_000) });
        // Another key of the organization begins after the slow claim's lease ended: it takes nothing over.
        const other = { fingerprint: 'f', owner: 'o', now: at(11_000), leaseExpiresAt: at(71_000) };
        assert.equal((await idempotency.begin({ organizationId, key: 'other' }, other)).kind, 'started');
        assert.equal(
          await idempotency.complete(scope, { owner: 'slow', response, now: at(11_000), retainUntil: at(99_000) }),
          true,
        );
        assert.deepEqual(await idempotency.begin(scope, { ...other, now: at(12_000) }), {
          kind: 'completed',
          response,
        });
      },
    );

    withStores('Idempotency: retention: an expired result lets the key execute again', async ({ idempotency }) => {
      const scope = { organizationId: randomUUID(), key: 'old' };
      await idempotency.begin(scope, { fingerprint: 'f1', owner: 'a', now: T0, leaseExpiresAt: at(60_000) });
      await idempotency.complete(scope, { owner: 'a', response, now: at(1000), retainUntil: at(86_401_000) });
      assert.equal(
        (
          await idempotency.begin(scope, {
            fingerprint: 'f2',
            owner: 'b',
            now: at(86_400_999),
            leaseExpiresAt: at(86_460_000),
          })
        ).kind,
        'conflict',
      );
      assert.deepEqual(
        await idempotency.begin(scope, {
          fingerprint: 'f2',
          owner: 'b',
          now: at(86_401_000),
          leaseExpiresAt: at(86_460_000),
        }),
        { kind: 'started' },
      );
    });

    withStores('Idempotency: abandon frees the key for its owner only', async ({ idempotency }) => {
      const scope = { organizationId: randomUUID(), key: 'fix-me' };
      const begin = (owner: string, fingerprint = 'f1') =>
        idempotency.begin(scope, { fingerprint, owner, now: T0, leaseExpiresAt: at(60_000) });
      await begin('a');
      await idempotency.abandon(scope, { owner: 'b' });
      assert.equal((await begin('b')).kind, 'in_progress');
      await idempotency.abandon(scope, { owner: 'a' });
      assert.equal((await begin('c', 'f2')).kind, 'started', 'a corrected body may use the key');
      await idempotency.complete(scope, { owner: 'c', response, now: T0, retainUntil: at(1000) });
      await idempotency.abandon(scope, { owner: 'c' });
      assert.equal((await begin('d', 'f2')).kind, 'completed', 'abandon never deletes a completed result');
    });

    withStores('Idempotency: concurrent begins: exactly one starts', async ({ idempotency }) => {
      const scope = { organizationId: randomUUID(), key: 'race' };
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          idempotency.begin(scope, { fingerprint: 'f', owner: `o${i}`, now: T0, leaseExpiresAt: at(60_000) }),
        ),
      );
      assert.equal(outcomes.filter((o) => o.kind === 'started').length, 1);
      assert.equal(outcomes.filter((o) => o.kind === 'in_progress').length, 49);
    });

    withStores('Idempotency: purge removes expired records and keeps live ones', async ({ idempotency }) => {
      const orgId = randomUUID();
      const expired = { organizationId: orgId, key: 'expired' };
      const live = { organizationId: orgId, key: 'live' };
      await idempotency.begin(expired, { fingerprint: 'f', owner: 'a', now: T0, leaseExpiresAt: at(1000) });
      await idempotency.begin(live, { fingerprint: 'f', owner: 'a', now: T0, leaseExpiresAt: at(60_000) });
      await idempotency.complete(live, { owner: 'a', response, now: T0, retainUntil: at(86_400_000) });
      assert.ok((await idempotency.purgeExpired(at(2000))) >= 1);
      assert.equal(
        (await idempotency.begin(live, { fingerprint: 'f', owner: 'b', now: at(3000), leaseExpiresAt: at(60_000) }))
          .kind,
        'completed',
      );
      assert.equal(
        (
          await idempotency.begin(expired, {
            fingerprint: 'g',
            owner: 'b',
            now: at(3000),
            leaseExpiresAt: at(60_000),
          })
        ).kind,
        'started',
      );
    });
  });
}
