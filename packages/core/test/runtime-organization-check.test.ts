import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createSafetyService, type SafetyService, type ServiceResult } from '../src/runtime/service.js';
import type { Entitlements } from '../src/stores/organizations.js';
import { checkBody, instantChain, instantRisk, seedTenant } from '../src/testing/service-harness.js';

/**
 * `checkAsOrganization`: the check of an organization its caller authenticated (the portal's
 * signed-in member) runs the API's path, sharing the organization's limits, quota, idempotency
 * and usage with its API keys; `/v1` itself authenticates by `X-API-Key` only.
 */
const TX = (n: number) => n.toString(16).padStart(64, '0');
const codeOf = (result: ServiceResult<unknown>) => (result.ok ? null : result.body.error.code);

async function world(entitlements: Partial<Entitlements> = {}, delayMs = 0) {
  const service: SafetyService = createSafetyService(createMemoryStores(), {
    chain: instantChain(delayMs ? { delayMs } : {}),
    risk: instantRisk(),
  });
  const tenant = await seedTenant(service, entitlements);
  const asOrganization = (txHash: string, extra: { idempotencyKey?: string; expected?: Record<string, string> } = {}) =>
    service.checkAsOrganization({
      organizationId: tenant.organizationId,
      request: checkBody(txHash, extra.expected),
      ...(extra.idempotencyKey ? { idempotencyKey: extra.idempotencyKey } : {}),
    });
  const withKey = (txHash: string) => service.check({ apiKey: tenant.apiKey, request: checkBody(txHash) });
  return { service, tenant, asOrganization, withKey };
}

describe('Portal checks: a check as an authenticated organization', () => {
  test('Quota and usage: it is billed to the organization and counted in its usage, as a key’s check', async () => {
    const { service, tenant, asOrganization, withKey } = await world({ monthlyQuota: 2 });
    const checked = await asOrganization(TX(1));
    assert.equal(checked.status, 200);
    assert.ok(checked.ok);
    assert.equal(checked.body.coverage, 'complete');
    assert.equal(checked.headers['X-Quota-Remaining'], '1');
    assert.equal((await withKey(TX(2))).status, 200);
    const refused = await asOrganization(TX(3));
    assert.equal(refused.status, 429);
    assert.equal(codeOf(refused), 'quota_exceeded', 'the key’s check used the last unit');
    const usage = await service.usage({ apiKey: tenant.apiKey });
    assert.ok(usage.ok);
    assert.deepEqual([usage.body.period.used, usage.body.recent.requests, usage.body.recent.errors], [2, 3, 1]);
  });

  test('Limits: the rate window and the concurrency slots are the organization’s', async () => {
    const rate = await world({ rateLimitPerMinute: 2 });
    assert.equal((await rate.withKey(TX(1))).status, 200);
    assert.equal((await rate.asOrganization(TX(2))).status, 200);
    const limited = await rate.asOrganization(TX(3));
    assert.equal(limited.status, 429);
    assert.equal(codeOf(limited), 'rate_limit_exceeded');

    const slots = await world({ maxConcurrentRequests: 1 }, 200);
    const [byKey, byOrganization] = await Promise.all([slots.withKey(TX(1)), slots.asOrganization(TX(2))]);
    assert.deepEqual([byKey.status, byOrganization.status].sort(), [200, 429]);
    const busy = byKey.status === 429 ? byKey : byOrganization;
    assert.equal(codeOf(busy), 'concurrency_limit_exceeded');
  });

  test('Validation and idempotency: the same codes as /v1, and a repeated key replays', async () => {
    const { asOrganization } = await world();
    const malformed = await asOrganization('not a hash');
    assert.equal(malformed.status, 422);
    assert.equal(codeOf(malformed), 'malformed_tx_hash');
    const address = await asOrganization(TX(1), { expected: { expected_recipient: 'T123' } });
    assert.equal(codeOf(address), 'invalid_tron_address');
    const first = await asOrganization(TX(4), { idempotencyKey: 'portal-form-1' });
    const again = await asOrganization(TX(4), { idempotencyKey: 'portal-form-1' });
    assert.equal(again.replayed, true);
    assert.deepEqual(again.body, first.body);
    assert.equal(codeOf(await asOrganization(TX(5), { idempotencyKey: 'portal-form-1' })), 'idempotency_conflict');
  });

  test('Access: an unknown organization is refused, a suspended one gets 403, /v1 still needs a key', async () => {
    const { service, tenant } = await world();
    const unknown = await service.checkAsOrganization({
      organizationId: '6f1c2a4e-0000-4000-8000-0000000000ff',
      request: checkBody(TX(1)),
    });
    assert.equal(unknown.status, 401);
    const noKey = await service.handle({
      method: 'POST',
      path: '/v1/transaction/check',
      query: {},
      headers: { 'content-type': 'application/json', 'x-organization-id': tenant.organizationId },
      body: checkBody(TX(1)),
    });
    assert.equal(noKey.status, 401, 'no header names an organization');
    await service.admin.suspendOrganization({ kind: 'operator' }, tenant.organizationId);
    const suspended = await service.checkAsOrganization({
      organizationId: tenant.organizationId,
      request: checkBody(TX(1)),
    });
    assert.equal(codeOf(suspended), 'tenant_suspended');
  });
});
