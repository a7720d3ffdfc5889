import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe } from 'node:test';
import type { ApiKeyRecord } from '../stores/api-keys.js';
import type { BeginCheckParams } from '../stores/checks.js';
import type { SafetyStores } from '../stores/index.js';
import type { WithStores } from './check-store-conformance.js';

/** A key's last use, recorded by `checks.begin` as it authenticates (what the portal's key list shows). */
const T0 = new Date('2026-05-04T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

async function keyOfNewOrganization(stores: SafetyStores): Promise<ApiKeyRecord> {
  const organizationId = randomUUID();
  await stores.organizations.createOrganization({
    id: organizationId,
    name: 'Key use conformance',
    status: 'active',
    assignment: {
      kind: 'custom',
      entitlements: {
        rateLimitPerMinute: 1000,
        maxConcurrentRequests: 10,
        monthlyQuota: 10,
        enabledNetworks: ['tron'],
      },
    },
    createdAt: T0,
    updatedAt: T0,
  });
  const key: ApiKeyRecord = {
    id: randomUUID(),
    organizationId,
    label: 'key use',
    hash: (randomUUID() + randomUUID()).replaceAll('-', ''),
    prefix: 'tsk_live_keyuse00',
    createdAt: T0,
    revokedAt: null,
    replacedBy: null,
    lastUsedAt: null,
  };
  assert.equal(await stores.apiKeys.insertKey(key), true);
  return key;
}

/** An admission-only begin (what `GET /v1/usage` asks) at `now`. */
function admission(credential: BeginCheckParams['credential'], now: Date): BeginCheckParams {
  const rateWindowStart = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  return { credential, now, rateWindowStart, slot: null, work: null };
}

const lastUsed = async (stores: SafetyStores, key: ApiKeyRecord) =>
  (await stores.apiKeys.findKeyByHash(key.hash))?.lastUsedAt ?? null;

export function runKeyUseConformance(withStores: WithStores): void {
  describe('checks: a key’s last use', () => {
    withStores('Authentication 5: begin records when a key authenticated, at most once a minute', async (stores) => {
      const key = await keyOfNewOrganization(stores);
      assert.equal(await lastUsed(stores, key), null, 'a new key was never used');
      const begin = (ms: number) => stores.checks.begin(admission({ apiKeyHash: key.hash }, at(ms)));
      assert.equal((await begin(0)).kind, 'admitted');
      assert.deepEqual(await lastUsed(stores, key), at(0));
      await begin(59_999);
      assert.deepEqual(await lastUsed(stores, key), at(0), 'used again within the minute: no write');
      await begin(60_000);
      assert.deepEqual(await lastUsed(stores, key), at(60_000));
      assert.deepEqual(
        (await stores.apiKeys.listKeys(key.organizationId)).map((k) => k.lastUsedAt),
        [at(60_000)],
        'the key list shows it',
      );
      await stores.checks.begin(admission({ organizationId: key.organizationId }, at(180_000)));
      assert.deepEqual(await lastUsed(stores, key), at(60_000), 'a begin by organization id uses no key');
    });

    withStores(
      'Authentication 5: a revoked or unknown key records nothing; concurrent uses record one time',
      async (stores) => {
        const key = await keyOfNewOrganization(stores);
        const concurrent = await Promise.all(
          Array.from({ length: 12 }, () => stores.checks.begin(admission({ apiKeyHash: key.hash }, at(0)))),
        );
        assert.ok(concurrent.every((o) => o.kind === 'admitted'));
        assert.deepEqual(await lastUsed(stores, key), at(0));
        await stores.apiKeys.revokeKey(key.organizationId, key.id, at(1000));
        const refused = await stores.checks.begin(admission({ apiKeyHash: key.hash }, at(120_000)));
        assert.equal(refused.kind, 'unauthenticated');
        assert.deepEqual(await lastUsed(stores, key), at(0), 'a revoked key is not used');
        const unknown = await stores.checks.begin(admission({ apiKeyHash: '0'.repeat(64) }, at(120_000)));
        assert.equal(unknown.kind, 'unauthenticated');
      },
    );
  });
}
