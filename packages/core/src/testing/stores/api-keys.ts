// Store conformance, API keys (Authentication 5): stored hashed, found by hash, rotated atomically.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe } from 'node:test';
import type { RotateOutcome } from '../../stores/api-keys.js';
import { T0, at, apiKey, tiedIds, type WithStores } from './support.js';

export function storeApiKeysTests(withStores: WithStores): void {
  describe('api keys', () => {
    withStores(
      'Authentication 5: insert, find by hash, unique hash, list oldest first, revoke',
      async ({ apiKeys }) => {
        const orgId = randomUUID();
        const first = apiKey(orgId, T0);
        const second = apiKey(orgId, at(1000));
        assert.equal(await apiKeys.insertKey(second), true);
        assert.equal(await apiKeys.insertKey(first), true);
        assert.equal(await apiKeys.insertKey({ ...apiKey(orgId), hash: first.hash }), false, 'hash is unique');
        assert.deepEqual(await apiKeys.findKeyByHash(first.hash), first);
        assert.equal(await apiKeys.findKeyByHash('0'.repeat(64)), null);
        assert.deepEqual(
          (await apiKeys.listKeys(orgId)).map((k) => k.id),
          [first.id, second.id],
        );

        assert.equal(
          await apiKeys.revokeKey(randomUUID(), first.id, at(5000)),
          null,
          'another organization cannot revoke it',
        );
        const revoked = await apiKeys.revokeKey(orgId, first.id, at(5000));
        assert.deepEqual(revoked?.revokedAt, at(5000));
        const again = await apiKeys.revokeKey(orgId, first.id, at(9000));
        assert.deepEqual(again?.revokedAt, at(5000), 'revoking twice keeps the first time');
        assert.deepEqual((await apiKeys.findKeyByHash(first.hash))?.revokedAt, at(5000));
      },
    );

    withStores('Lists: keys created in the same millisecond are listed by id, in code units', async ({ apiKeys }) => {
      const orgId = randomUUID();
      const { inserted, listed } = tiedIds();
      for (const id of inserted) assert.equal(await apiKeys.insertKey({ ...apiKey(orgId, at(1000)), id }), true);
      const older = apiKey(orgId, T0);
      await apiKeys.insertKey(older);
      assert.deepEqual(
        (await apiKeys.listKeys(orgId)).map((k) => k.id),
        [older.id, ...listed],
      );
    });

    withStores('Authentication 5: rotation revokes and replaces atomically, once', async ({ apiKeys }) => {
      const orgId = randomUUID();
      const old = apiKey(orgId);
      await apiKeys.insertKey(old);
      const replacements = Array.from({ length: 10 }, () => apiKey(orgId, at(1000)));
      const outcomes = await Promise.all(
        replacements.map((r) =>
          apiKeys.rotateKey({ organizationId: orgId, keyId: old.id, replacement: r, now: at(1000) }),
        ),
      );
      const won = outcomes.flatMap((o) => (o.isOk() ? [o.value] : []));
      assert.equal(won.length, 1, 'exactly one concurrent rotation wins');
      assert.ok(outcomes.every((o) => o.isOk() || o.error === 'revoked'));
      const winner = won[0]!;
      assert.deepEqual(winner.revoked.revokedAt, at(1000));
      assert.equal(winner.revoked.replacedBy, winner.created.id);
      assert.equal(winner.created.revokedAt, null);
      const keys = await apiKeys.listKeys(orgId);
      assert.equal(keys.length, 2, 'losers inserted nothing');
      const refusal = (outcome: RotateOutcome) => (outcome.isErr() ? outcome.error : 'rotated');
      assert.equal(
        refusal(
          await apiKeys.rotateKey({
            organizationId: orgId,
            keyId: randomUUID(),
            replacement: apiKey(orgId),
            now: at(2000),
          }),
        ),
        'not_found',
      );
      assert.equal(
        refusal(
          await apiKeys.rotateKey({
            organizationId: randomUUID(),
            keyId: winner.created.id,
            replacement: apiKey(orgId),
            now: at(2000),
          }),
        ),
        'not_found',
      );
    });

    withStores(
      'Limits: the key caps hold under concurrent inserts and rotations; past them nothing is added',
      async ({ apiKeys }) => {
        const orgId = randomUUID();
        const outcomesOf = async (count: number, insert: () => Promise<unknown>) => {
          const outcomes = await Promise.all(Array.from({ length: count }, insert));
          return {
            inserted: outcomes.filter((o) => o === true).length,
            refusals: new Set(outcomes.filter((o) => o !== true)),
          };
        };
        const active = await outcomesOf(30, () => apiKeys.insertKey(apiKey(orgId), { kept: 1000, active: 10 }));
        assert.deepEqual(active, { inserted: 10, refusals: new Set(['active_keys']) }, 'of 30 at once, 10 beside none');
        for (const key of await apiKeys.listKeys(orgId)) await apiKeys.revokeKey(orgId, key.id, at(1000));
        const kept = await outcomesOf(30, () => apiKeys.insertKey(apiKey(orgId), { kept: 15, active: 10 }));
        assert.deepEqual(kept, { inserted: 5, refusals: new Set(['kept_keys']) }, 'revoked keys count toward kept');
        const live = (await apiKeys.listKeys(orgId)).filter((k) => k.revokedAt === null);
        const rotations = await Promise.all(
          live.map((k) =>
            apiKeys.rotateKey({
              organizationId: orgId,
              keyId: k.id,
              replacement: apiKey(orgId, at(2000)),
              now: at(2000),
              caps: { kept: 18 },
            }),
          ),
        );
        assert.equal(rotations.filter((r) => r.isOk()).length, 3, 'of 5 rotations at once, 3 beside 15 keys');
        assert.ok(rotations.every((r) => r.isOk() || r.error === 'kept_keys'));
        assert.equal((await apiKeys.listKeys(orgId)).length, 18);
        const refusal = (outcome: RotateOutcome) => (outcome.isErr() ? outcome.error : 'rotated');
        const revoked = (await apiKeys.listKeys(orgId)).find((k) => k.revokedAt !== null)!;
        const rotate = (keyId: string) =>
          apiKeys.rotateKey({
            organizationId: orgId,
            keyId,
            replacement: apiKey(orgId),
            now: at(3000),
            caps: { kept: 18 },
          });
        assert.equal(refusal(await rotate(randomUUID())), 'not_found', 'an unknown key before the cap');
        assert.equal(refusal(await rotate(revoked.id)), 'kept_keys', 'the cap before a revoked key');
        assert.equal(
          await apiKeys.insertKey(apiKey(orgId)),
          true,
          'an insert without caps (a seed file) is not capped',
        );
      },
    );
  });
}
