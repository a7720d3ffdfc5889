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
      const outcomes = await Promise.all(replacements.map((r) => apiKeys.rotateKey(orgId, old.id, r, at(1000))));
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
      assert.equal(refusal(await apiKeys.rotateKey(orgId, randomUUID(), apiKey(orgId), at(2000))), 'not_found');
      assert.equal(
        refusal(await apiKeys.rotateKey(randomUUID(), winner.created.id, apiKey(orgId), at(2000))),
        'not_found',
      );
    });
  });
}
