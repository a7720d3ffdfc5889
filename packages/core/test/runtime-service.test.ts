import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { MAX_KEY_EXPOSURES } from '../src/contract/bounds.js';
import { TransactionCheckResponse, UsageResponse } from '../src/contract/models.js';
import { MAX_ENTITLEMENT } from '../src/stores/organizations.js';
import { storedCheckResponse } from '../src/testing/service-harness.js';
import { hashApiKey } from '../src/runtime/keys.js';
import { USDT_CONTRACT } from '../src/testing/fake-tron-fixtures.js';
import {
  serviceEnvironment,
  COMPLETE_TX,
  PARTIAL_TX,
  check,
  getUsage,
  json,
  assertError,
  period,
} from './runtime-support.js';

// End to end through `handle`: one check's answer, billing, the usage report, roles and keys.

const env = serviceEnvironment();
const { setup } = env;

describe('a check end to end', () => {
  test('TransactionCheckResponse: 200: the response, its headers and one billed unit', async () => {
    const s = await setup({ rateLimitPerMinute: 10, monthlyQuota: 5 });
    const r = await check(
      s,
      COMPLETE_TX,
      { 'x-request-id': 'caller-id_1:2.3' },
      { expected_token_contract: USDT_CONTRACT },
    );
    assert.equal(r.status, 200, r.body);
    const body = json(r);
    assert.ok(TransactionCheckResponse.is(body));
    assert.equal(body.request_id, 'caller-id_1:2.3');
    assert.equal(r.headers['X-Request-ID'], 'caller-id_1:2.3');
    assert.equal(body.coverage, 'complete');
    assert.equal(body.token_match, true);
    assert.equal(r.headers['X-RateLimit-Limit'], '10');
    assert.equal(r.headers['X-RateLimit-Remaining'], '9');
    assert.match(r.headers['X-RateLimit-Reset']!, /^\d{10}$/);
    assert.equal(r.headers['RateLimit-Policy'], '"minute";q=10;w=60');
    assert.match(r.headers.RateLimit!, /^"minute";r=9;t=\d+$/);
    assert.equal(r.headers['X-Quota-Limit'], '5');
    assert.equal(r.headers['X-Quota-Remaining'], '4');
    const nextMonth = new Date();
    nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1, 1);
    nextMonth.setUTCHours(0, 0, 0, 0);
    assert.equal(r.headers['X-Quota-Reset'], String(nextMonth.getTime() / 1000));
    assert.deepEqual(await period(s), { ...(await period(s)), used: 1, reserved: 0, remaining: 4 });
  });

  test('Response headers: X-Request-ID: an invalid caller value is replaced by a generated one', async () => {
    const s = await setup();
    for (const bad of ['', 'has space', 'x'.repeat(129), 'ünicode']) {
      const r = await check(s, COMPLETE_TX, { 'x-request-id': bad });
      assert.notEqual(r.headers['X-Request-ID'], bad);
      assert.match(r.headers['X-Request-ID']!, /^[0-9a-f-]{36}$/);
      assert.equal(json(r).request_id, r.headers['X-Request-ID']);
    }
  });
});

describe('bounds', () => {
  test('key_exposure is bounded: a vendor answer of thousands of categories gives MAX_KEY_EXPOSURES items, in the response and its stored record', async () => {
    const s = await setup();
    const { sender } = json(await check(s, COMPLETE_TX));
    const exposures = Array.from({ length: 5000 }, (_, i) => ({ category: `c${i}`, value: 1 }));
    env.vendors.setEntity(sender, { risk: 'Low', exposures });
    try {
      const res = await check(s, COMPLETE_TX, { 'idempotency-key': 'many-exposures' });
      assert.equal(json(res).key_exposure.length, MAX_KEY_EXPOSURES);
      const stored = await storedCheckResponse(s.stores, s.organizationId, 'many-exposures', COMPLETE_TX);
      assert.equal(JSON.parse(stored!.body).key_exposure.length, MAX_KEY_EXPOSURES);
    } finally {
      env.vendors.setEntity(sender, { risk: 'Low' });
    }
  });
});

describe('quota billing', () => {
  test('Billing: complete billed once; partial, errors and replays not billed; reserved returns to 0', async () => {
    const s = await setup();
    assert.equal(json(await check(s, COMPLETE_TX, { 'idempotency-key': 'a' })).coverage, 'complete');
    assert.equal(json(await check(s, COMPLETE_TX, { 'idempotency-key': 'a' })).coverage, 'complete');
    const partial = json(await check(s, PARTIAL_TX));
    assert.equal(partial.coverage, 'partial');
    assert.equal(partial.overall_state, 'LIMITED_DATA');
    env.vendors.setFault('sanctions', '*', { kind: 'status', status: 500 });
    const unscreened = json(await check(s, COMPLETE_TX));
    env.vendors.setFault('sanctions', '*', null);
    assert.equal(unscreened.coverage, 'partial');
    assert.equal(unscreened.sanctions_hit, null);
    env.node.fault({ fault: { kind: 'status', status: 503 } });
    assert.equal((await check(s, COMPLETE_TX)).status, 503);
    env.node.clearFaults();
    assert.deepEqual(await period(s), { ...(await period(s)), used: 1, reserved: 0 });
  });

  test('Billing: a complete HIGH_RISK result is billed like any complete one', async () => {
    const s = await setup();
    const recipient = json(await check(s, COMPLETE_TX)).recipient as string;
    env.vendors.setSanctioned(recipient, [{ category: 'sanctions', name: 'SANCTIONS TEST ENTRY' }]);
    let flagged: Record<string, any>;
    try {
      flagged = json(await check(s, COMPLETE_TX));
    } finally {
      env.vendors.setSanctioned(recipient, null);
    }
    assert.equal(flagged.sanctions_hit, true);
    assert.equal(flagged.overall_state, 'HIGH_RISK');
    assert.equal(flagged.coverage, 'complete');
    assert.deepEqual(await period(s), { ...(await period(s)), used: 2, reserved: 0 });
  });

  test('Billing: 500 concurrent checks with 100 units left: exactly 100 billed', async () => {
    // A minute's deadline: this proves exact billing, and 500 checks in one process on a loaded 2-core
    // machine can outlast the default 12 s budget (a partial answer is not billed, and not a 429).
    const s = await setup({ monthlyQuota: 120 }, { deadlineMs: 60_000 });
    for (let i = 0; i < 20; i++) assert.equal((await check(s, COMPLETE_TX)).status, 200);
    const answers = await Promise.all(Array.from({ length: 500 }, () => check(s, COMPLETE_TX)));
    const billed = answers.filter((r) => r.status === 200);
    assert.equal(billed.length, 100);
    assert.ok(billed.every((r) => json(r).coverage === 'complete'));
    for (const r of answers) if (r.status !== 200) assertError(r, 429, 'quota_exceeded', true);
    assert.deepEqual(await period(s), { ...(await period(s)), used: 120, reserved: 0, remaining: 0 });
  });
});

describe('usage', () => {
  test('GET /v1/usage: the UsageResponse, counts of logical checks, replays excluded', async () => {
    const s = await setup({ monthlyQuota: 50, rateLimitPerMinute: 1000, maxConcurrentRequests: 7 });
    await check(s, COMPLETE_TX, { 'idempotency-key': 'u' });
    await check(s, COMPLETE_TX, { 'idempotency-key': 'u' }); // replay
    await check(s, PARTIAL_TX);
    await check(s, 'zz'); // 422
    env.node.fault({ fault: { kind: 'status', status: 503 } });
    await check(s, COMPLETE_TX);
    env.node.clearFaults();
    const r = await getUsage(s, { days: '7' });
    assert.equal(r.status, 200, r.body);
    const body = json(r);
    assert.ok(UsageResponse.is(body));
    assert.equal(body.tenant_id, s.organizationId);
    assert.equal(body.plan, null, 'custom entitlements');
    assert.deepEqual(body.limits, {
      rate_limit_per_minute: 1000,
      max_concurrent_requests: 7,
      enabled_networks: ['tron'],
    });
    assert.equal(body.period.used, 1);
    assert.equal(body.period.reserved, 0);
    assert.equal(body.period.limit, 50);
    assert.equal(body.period.remaining, 49);
    assert.match(body.period.start, /^\d{4}-\d{2}-01T00:00:00.000Z$/);
    const { average_latency_ms, ...recent } = body.recent;
    assert.deepEqual(recent, {
      days: 7,
      requests: 4,
      billable: 1,
      limited_data: 1,
      errors: 2,
      by_network: { tron: 3 },
      by_overall_state: { CLEAR: 1, LIMITED_DATA: 1 },
    });
    assert.ok(Number.isInteger(average_latency_ms));
    assert.equal(r.headers['X-Quota-Remaining'], '49');
    assert.equal(json(await getUsage(s)).recent.days, 30);
  });

  test('GET /v1/usage: counts by overall state come in key order, whichever came first (the same bytes from either store)', async () => {
    const s = await setup();
    await check(s, PARTIAL_TX); // LIMITED_DATA first
    await check(s, COMPLETE_TX);
    const body = json(await getUsage(s));
    assert.deepEqual(Object.keys(body.recent.by_overall_state), ['CLEAR', 'LIMITED_DATA']);
  });

  test('Limits: a plan version: usage shows it; a new version affects only organizations moved to it', async () => {
    const s = await setup();
    const operator = { kind: 'operator' } as const;
    const base = {
      code: 'growth',
      name: 'Growth',
      rateLimitPerMinute: 100,
      maxConcurrentRequests: 5,
      monthlyQuota: 1000,
      enabledNetworks: ['tron'],
    };
    assert.ok((await s.service.admin.createPlanVersion(operator, base)).isOk());
    assert.ok((await s.service.admin.setOrganizationPlan(operator, s.organizationId, { code: 'growth' })).isOk());
    const v2 = await s.service.admin.createPlanVersion(operator, { ...base, monthlyQuota: 5000 });
    assert.ok(v2.isOk());
    assert.equal(v2.value.version, 2);
    let body = json(await getUsage(s));
    assert.deepEqual(body.plan, { code: 'growth', version: 1, name: 'Growth' });
    assert.equal(body.period.limit, 1000);
    await s.service.admin.setOrganizationPlan(operator, s.organizationId, { code: 'growth', version: 2 });
    body = json(await getUsage(s));
    assert.equal(body.plan.version, 2);
    assert.equal(body.period.limit, 5000);
  });

  test('Limits: a limit or plan version beyond what a store keeps (2^31 - 1) is invalid, not stored', async () => {
    const s = await setup();
    const operator = { kind: 'operator' } as const;
    const limits = { rateLimitPerMinute: 100, maxConcurrentRequests: 5, monthlyQuota: 1000, enabledNetworks: ['tron'] };
    for (const field of ['rateLimitPerMinute', 'maxConcurrentRequests', 'monthlyQuota'] as const) {
      const entitlements = { ...limits, [field]: MAX_ENTITLEMENT + 1 };
      const custom = await s.service.admin.setCustomEntitlements(operator, s.organizationId, entitlements);
      assert.equal(custom._unsafeUnwrapErr().code, 'invalid', field);
      const plan = await s.service.admin.createPlanVersion(operator, { code: 'big', name: 'Big', ...entitlements });
      assert.equal(plan._unsafeUnwrapErr().code, 'invalid', field);
    }
    const largest = { ...limits, monthlyQuota: MAX_ENTITLEMENT };
    assert.ok((await s.service.admin.setCustomEntitlements(operator, s.organizationId, largest)).isOk());
    assert.equal(json(await getUsage(s)).period.limit, MAX_ENTITLEMENT);
  });

  test('Plans: a blank name (only whitespace) is invalid, not stored', async () => {
    const s = await setup();
    const operator = { kind: 'operator' } as const;
    const limits = { rateLimitPerMinute: 100, maxConcurrentRequests: 5, monthlyQuota: 1000, enabledNetworks: ['tron'] };
    for (const name of ['', ' ', '\t\n ', '\u3000']) {
      const plan = await s.service.admin.createPlanVersion(operator, { code: 'blank', name, ...limits });
      assert.equal(plan._unsafeUnwrapErr().code, 'invalid', JSON.stringify(name));
    }
    assert.deepEqual(
      (await s.service.admin.listPlans(operator))._unsafeUnwrap().filter((p) => p.code === 'blank'),
      [],
    );
    assert.ok(
      (await s.service.admin.createPlanVersion(operator, { code: 'blank', name: ' Named ', ...limits })).isOk(),
    );
  });
});

describe('admin roles and keys', () => {
  test('Authentication 4: owner/admin/developer manage keys; billing/viewer only read; members stay in their organization', async () => {
    const s = await setup();
    const { admin } = s.service;
    const member = (role: 'owner' | 'admin' | 'developer' | 'billing' | 'viewer', organizationId = s.organizationId) =>
      ({ kind: 'member', organizationId, role }) as const;
    for (const role of ['owner', 'admin', 'developer'] as const) {
      const created = await admin.createApiKey(member(role), s.organizationId, `${role} key`);
      assert.ok(created.isOk());
      assert.ok(created.value.key.startsWith('tsk_live_'));
      assert.equal(created.value.metadata.prefix, created.value.key.slice(0, 17));
      const revoked = await admin.revokeApiKey(member(role), s.organizationId, created.value.metadata.id);
      assert.ok(revoked.isOk() && revoked.value.revokedAt instanceof Date);
    }
    const keyId = (await admin.listApiKeys(member('viewer'), s.organizationId))._unsafeUnwrap()[0]!.id;
    for (const role of ['billing', 'viewer'] as const) {
      assert.equal(
        (await admin.createApiKey(member(role), s.organizationId, 'x'))._unsafeUnwrapErr().code,
        'forbidden',
      );
      assert.equal(
        (await admin.rotateApiKey(member(role), s.organizationId, keyId))._unsafeUnwrapErr().code,
        'forbidden',
      );
      assert.equal(
        (await admin.revokeApiKey(member(role), s.organizationId, keyId))._unsafeUnwrapErr().code,
        'forbidden',
      );
      const listed = await admin.listApiKeys(member(role), s.organizationId);
      assert.ok(listed.isOk());
      assert.ok(
        listed.value.every((k) => !('hash' in k)),
        'lists never show hashes',
      );
      assert.ok((await admin.usage(member(role), s.organizationId)).isOk());
    }
    const stranger = member('owner', '00000000-0000-4000-8000-000000000099');
    assert.equal((await admin.listApiKeys(stranger, s.organizationId))._unsafeUnwrapErr().code, 'forbidden');
    assert.equal(
      (await admin.suspendOrganization(member('owner'), s.organizationId))._unsafeUnwrapErr().code,
      'forbidden',
    );
  });

  test('API keys: listing the keys of an organization that does not exist is not_found, as creating one is', async () => {
    const s = await setup();
    const operator = { kind: 'operator' } as const;
    const unknown = '00000000-0000-4000-8000-000000000099';
    assert.equal((await s.service.admin.listApiKeys(operator, unknown))._unsafeUnwrapErr().code, 'not_found');
    assert.equal((await s.service.admin.createApiKey(operator, unknown, 'x'))._unsafeUnwrapErr().code, 'not_found');
    assert.ok((await s.service.admin.listApiKeys(operator, s.organizationId)).isOk());
  });

  test('Authentication 5: seeding: an imported key authenticates; keys are stored hashed', async () => {
    const stores = createMemoryStores();
    const s = await setup({}, {}, {}, stores);
    const key = 'tsk_live_seeded_0123456789abcdefghij';
    const imported = await s.service.admin.seed.importApiKey({ organizationId: s.organizationId, key, label: 'seed' });
    assert.ok(imported.isOk());
    assert.ok(
      (await s.service.admin.seed.importApiKey({ organizationId: s.organizationId, key, label: 'seed' })).isOk(),
      'idempotent',
    );
    const stored = await stores.apiKeys.listKeys(s.organizationId);
    assert.ok(stored.every((k) => !JSON.stringify(k).includes(key)));
    assert.equal((await check({ ...s, apiKey: key }, COMPLETE_TX)).status, 200);
  });

  test('Authentication 5: seeding a key by its hash and prefix: the key it hashes authenticates, shown by that prefix', async () => {
    const stores = createMemoryStores();
    const s = await setup({}, {}, {}, stores);
    const key = 'tsk_live_hashed_0123456789abcdefghij';
    const seed = { organizationId: s.organizationId, keyHash: hashApiKey(key), prefix: 'tsk_live_hashed_', label: 'h' };
    const imported = (await s.service.admin.seed.importApiKey(seed))._unsafeUnwrap();
    assert.equal(imported.prefix, 'tsk_live_hashed_');
    assert.equal(
      (await s.service.admin.seed.importApiKey({ ...seed, key }))._unsafeUnwrap().id,
      imported.id,
      'the same key',
    );
    assert.equal((await check({ ...s, apiKey: key }, COMPLETE_TX)).status, 200);
    const refused = (hash: string, prefix: string) =>
      s.service.admin.seed.importApiKey({ ...seed, keyHash: hash, prefix }).then((r) => r._unsafeUnwrapErr().code);
    assert.equal(await refused(hashApiKey(key).toUpperCase(), 'p'), 'invalid');
    assert.equal(await refused(hashApiKey('other-key-0123456789abcdef'), ''), 'invalid');
    assert.equal(await refused(hashApiKey('other-key-0123456789abcdef'), 'has space'), 'invalid');
  });

  test('Authentication 5: seeding the same key from several hosts at once: every import succeeds, one key is stored', async () => {
    const stores = createMemoryStores();
    const s = await setup({}, {}, {}, stores);
    // Every host reads "not there" before any inserts: the race of hosts starting together on one database.
    const find = stores.apiKeys.findKeyByHash.bind(stores.apiKeys);
    let blind = 5;
    stores.apiKeys.findKeyByHash = (hash) => (blind-- > 0 ? Promise.resolve(null) : find(hash));
    const key = 'tsk_live_seeded_race_0123456789abcdef';
    const imports = await Promise.all(
      Array.from({ length: 5 }, () =>
        s.service.admin.seed.importApiKey({ organizationId: s.organizationId, key, label: 'seed' }),
      ),
    );
    assert.ok(
      imports.every((r) => r.isOk()),
      JSON.stringify(imports.filter((r) => r.isErr())),
    );
    assert.equal((await stores.apiKeys.listKeys(s.organizationId)).filter((k) => k.label === 'seed').length, 1);
  });
});
