import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import type { BeginCheckParams, FinishCheckParams } from '../src/stores/index.js';
import { checkBody } from '../src/testing/service-harness.js';
import {
  serviceEnvironment,
  COMPLETE_TX,
  CHECK,
  movableClock,
  check,
  getUsage,
  json,
  assertError,
  period,
  waitingChain,
  failingIf,
} from './runtime-support.js';

// End to end through `handle`: each row of the spec's error table, and what an error leaves behind
// (nothing reserved, billed or stuck under an idempotency key).

const env = serviceEnvironment();
const { setup } = env;

describe('errors table', () => {
  test('Authentication 6: 401 invalid_api_key: missing, unknown, revoked (both endpoints)', async () => {
    const s = await setup();
    assertError(await check({ ...s, apiKey: '' }, COMPLETE_TX), 401, 'invalid_api_key', false);
    assertError(await check({ ...s, apiKey: 'tsk_live_unknown' }, COMPLETE_TX), 401, 'invalid_api_key', false);
    assertError(await getUsage({ ...s, apiKey: 'tsk_live_unknown' }), 401, 'invalid_api_key', false);
    const keys = await s.service.admin.listApiKeys({ kind: 'operator' }, s.organizationId);
    assert.ok(keys.isOk());
    await s.service.admin.revokeApiKey({ kind: 'operator' }, s.organizationId, keys.value[0]!.id);
    assertError(await check(s, COMPLETE_TX), 401, 'invalid_api_key', false);
    assertError(await getUsage(s), 401, 'invalid_api_key', false);
  });

  test('Authentication 6: 403 tenant_suspended until the organization is activated again', async () => {
    const s = await setup();
    const operator = { kind: 'operator' } as const;
    assert.ok((await s.service.admin.suspendOrganization(operator, s.organizationId)).isOk());
    assertError(await check(s, COMPLETE_TX), 403, 'tenant_suspended', false);
    assertError(await getUsage(s), 403, 'tenant_suspended', false);
    assert.ok((await s.service.admin.activateOrganization(operator, s.organizationId)).isOk());
    assert.equal((await check(s, COMPLETE_TX)).status, 200);
  });

  test('Authentication 6: 403 network_not_enabled: nothing reserved, and checked before a replay', async () => {
    const s = await setup({ enabledNetworks: [] });
    assertError(await check(s, COMPLETE_TX), 403, 'network_not_enabled', false);
    assert.equal((await period(s)).reserved, 0);

    const t = await setup();
    assert.equal((await check(t, COMPLETE_TX, { 'idempotency-key': 'k' })).status, 200);
    await t.service.admin.setCustomEntitlements({ kind: 'operator' }, t.organizationId, {
      rateLimitPerMinute: 100,
      maxConcurrentRequests: 10,
      monthlyQuota: 100,
      enabledNetworks: [],
    });
    assertError(await check(t, COMPLETE_TX, { 'idempotency-key': 'k' }), 403, 'network_not_enabled', false);
  });

  test('Errors: 422 codes: nothing reserved, nothing stored under the idempotency key', async () => {
    const s = await setup();
    const cases: [Uint8Array, string][] = [
      [checkBody('abc'), 'malformed_tx_hash'],
      [new TextEncoder().encode(JSON.stringify({ tx_hash: COMPLETE_TX, network: 'eth' })), 'invalid_network'],
      [checkBody(COMPLETE_TX, { expected_recipient: 'TNotAnAddress' }), 'invalid_tron_address'],
      [checkBody(COMPLETE_TX, { expected_amount: '1e5' }), 'invalid_expected_amount'],
      [new TextEncoder().encode('{"tx_hash":'), 'validation_error'],
      [new Uint8Array(5000).fill(32), 'payload_too_large'],
    ];
    for (const [body, code] of cases) {
      const r = await s.service.handle({
        method: 'POST',
        path: CHECK,
        query: {},
        headers: { 'x-api-key': s.apiKey, 'idempotency-key': 'same' },
        body,
      });
      assertError(r, 422, code, false);
    }
    const flagged = await s.service.handle({
      method: 'POST',
      path: CHECK,
      query: {},
      headers: { 'x-api-key': s.apiKey },
      body: new Uint8Array(10),
      bodyTooLarge: true,
    });
    assertError(flagged, 422, 'payload_too_large', false);
    assertError(
      await check(s, COMPLETE_TX, { 'idempotency-key': 'bad\u0001key' }),
      422,
      'invalid_idempotency_key',
      false,
    );
    assertError(await getUsage(s, { days: '0' }), 422, 'validation_error', false);
    assertError(await getUsage(s, { days: '91' }), 422, 'validation_error', false);
    assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
    const ok = await check(s, COMPLETE_TX, { 'idempotency-key': 'same' });
    assert.equal(ok.status, 200, 'the key was never taken by the rejected bodies');
    assert.equal(ok.headers['Idempotent-Replayed'], undefined);
  });

  test('Errors: 422 invalid_expected_amount found by the assessment: released, and the key can be reused', async () => {
    const s = await setup();
    const rejected = await check(s, COMPLETE_TX, { 'idempotency-key': 'fix' }, { expected_amount: '1.0000001' });
    assertError(rejected, 422, 'invalid_expected_amount', false);
    assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
    const corrected = await check(s, COMPLETE_TX, { 'idempotency-key': 'fix' }, { expected_amount: '1' });
    assert.equal(corrected.status, 200, corrected.body);
    assert.equal(corrected.headers['Idempotent-Replayed'], undefined);
  });

  test('Limits: 429 rate_limit_exceeded with its headers, for usage too; the next window admits again', async () => {
    const clock = movableClock();
    clock.advance(61_000 - (Date.now() % 60_000)); // 1 s into a minute: the requests below share one window
    const s = await setup({ rateLimitPerMinute: 2 }, { now: clock.now });
    assert.equal((await check(s, COMPLETE_TX, { 'idempotency-key': 'r' })).status, 200);
    assert.equal((await getUsage(s)).status, 200);
    // A replay is rate-limited too (Errors rule 3).
    for (const r of [
      await check(s, COMPLETE_TX),
      await getUsage(s),
      await check(s, COMPLETE_TX, { 'idempotency-key': 'r' }),
    ]) {
      assertError(r, 429, 'rate_limit_exceeded', true);
      assert.equal(r.headers['X-RateLimit-Remaining'], '0');
      assert.equal(r.headers['X-RateLimit-Limit'], '2');
      const retryAfter = Number(r.headers['Retry-After']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, r.headers['Retry-After']);
      assert.match(r.headers.RateLimit!, /^"minute";r=0;t=\d+$/);
    }
    assert.equal((await period(s)).used, 1, 'a refused request reserves nothing');
    clock.advance(60_000);
    assert.equal((await check(s, COMPLETE_TX, { 'idempotency-key': 'r' })).headers['Idempotent-Replayed'], 'true');
  });

  test('Limits: 429 concurrency_limit_exceeded while another check is in flight, for a replay too', async () => {
    const s = await setup({ maxConcurrentRequests: 1, rateLimitPerMinute: 10 });
    assert.equal((await check(s, COMPLETE_TX, { 'idempotency-key': 'done' })).status, 200);
    env.node.fault({ path: 'gettransactionbyid', times: 2, fault: { kind: 'latency', ms: 300 } });
    const first = check(s, COMPLETE_TX);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await check(s, COMPLETE_TX);
    assertError(refused, 429, 'concurrency_limit_exceeded', true);
    assert.equal(refused.headers['Retry-After'], '1');
    assert.equal(refused.headers['X-RateLimit-Limit'], '10');
    assert.match(refused.headers['X-RateLimit-Remaining']!, /^\d$/);
    assertError(await check(s, COMPLETE_TX, { 'idempotency-key': 'done' }), 429, 'concurrency_limit_exceeded', true);
    assert.equal((await first).status, 200);
    assert.equal((await check(s, COMPLETE_TX)).status, 200, 'the slot was returned');
  });

  test('Errors: bad input is its 422 while every concurrency slot is taken (never a retryable 429 for a slot it would not use)', async () => {
    const s = await setup({ maxConcurrentRequests: 1, rateLimitPerMinute: 10 });
    env.node.fault({ path: 'gettransactionbyid', times: 1, fault: { kind: 'latency', ms: 300 } });
    const first = check(s, COMPLETE_TX);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const malformed = await Promise.all([check(s, 'abc'), check(s, 'abc', { 'idempotency-key': 'bad' })]);
    for (const r of malformed) assertError(r, 422, 'malformed_tx_hash', false);
    assert.equal((await first).status, 200);
  });

  test('Errors 2: 429 quota_exceeded until the next month: stored and replayed under its key', async () => {
    const s = await setup({ monthlyQuota: 1 });
    assert.equal((await check(s, COMPLETE_TX)).status, 200);
    const full = await check(s, COMPLETE_TX, { 'idempotency-key': 'q' });
    assertError(full, 429, 'quota_exceeded', true);
    assert.equal(full.headers['X-Quota-Remaining'], '0');
    const reset = Number(full.headers['X-Quota-Reset']);
    const retryAfter = Number(full.headers['Retry-After']);
    assert.ok(Math.abs(Date.now() / 1000 + retryAfter - reset) <= 2, 'Retry-After runs to the next UTC month');
    const replay = await check(s, COMPLETE_TX, { 'idempotency-key': 'q' });
    assert.equal(replay.body, full.body);
    assert.equal(replay.headers['Idempotent-Replayed'], 'true');
    assert.equal((await getUsage(s)).status, 200, 'quota does not apply to usage');
  });

  test('Errors 2: 503 provider_unavailable: retryable, not billed, stored and replayed', async () => {
    const s = await setup();
    env.node.fault({ fault: { kind: 'status', status: 503 } });
    const r = await check(s, COMPLETE_TX, { 'idempotency-key': 'p' });
    env.node.clearFaults();
    assertError(r, 503, 'provider_unavailable', true);
    assert.match(json(r).error.message, /temporarily unavailable/);
    assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
    const replay = await check(s, COMPLETE_TX, { 'idempotency-key': 'p' });
    assert.equal(replay.body, r.body);
    assert.equal(replay.headers['Idempotent-Replayed'], 'true');
    assert.equal(replay.headers['X-Request-ID'], r.headers['X-Request-ID']);
  });

  test('Errors: 503 api_not_configured without a TRON provider; usage still answers', async () => {
    const s = await setup({}, {}, { chain: null });
    assertError(await check(s, COMPLETE_TX), 503, 'api_not_configured', true);
    assert.equal((await getUsage(s)).status, 200);
  });

  test('Errors: 503 api_disabled by the runtime switch, both endpoints', async () => {
    const s = await setup({}, { apiDisabled: true });
    assertError(await check(s, COMPLETE_TX), 503, 'api_disabled', true);
    assertError(await getUsage(s), 503, 'api_disabled', true);
    s.service.setApiDisabled(false);
    assert.equal((await check(s, COMPLETE_TX)).status, 200);
    s.service.setApiDisabled(true);
    assert.equal(s.service.apiDisabled, true);
    assertError(await check(s, COMPLETE_TX), 503, 'api_disabled', true);
  });

  test('Errors: 503 rate_limiter_unavailable: a failing limit store fails closed', async () => {
    const stores = createMemoryStores();
    let failing: 'rate' | 'slot' | null = null;
    // `begin` counts the rate for both endpoints and takes a slot for checks only.
    stores.checks = failingIf(
      stores.checks,
      (method, [params]) =>
        method === 'begin' &&
        (failing === 'rate' || (failing === 'slot' && (params as BeginCheckParams).slot !== null)),
    );
    const s = await setup({}, {}, {}, stores);
    failing = 'rate';
    const refused = await check(s, COMPLETE_TX);
    assertError(refused, 503, 'rate_limiter_unavailable', true);
    assert.equal(refused.headers['Retry-After'], '1');
    assertError(await getUsage(s), 503, 'rate_limiter_unavailable', true);
    failing = 'slot';
    assertError(await check(s, COMPLETE_TX), 503, 'rate_limiter_unavailable', true);
    assert.equal((await period(s)).reserved, 0);
  });

  test('Limits: 504 request_timeout at the deadline: released, not billed, stored', async () => {
    const s = await setup({}, { deadlineMs: 300 }, { chain: waitingChain() });
    const started = performance.now();
    const r = await check(s, COMPLETE_TX, { 'idempotency-key': 'slow' });
    const elapsed = performance.now() - started;
    assertError(r, 504, 'request_timeout', true);
    assert.ok(elapsed < 1500, `answered at the deadline (${elapsed} ms)`);
    assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
    const replay = await check(s, COMPLETE_TX, { 'idempotency-key': 'slow' });
    assert.equal(replay.body, r.body);
    assert.equal(replay.headers['Idempotent-Replayed'], 'true');
    const recent = (await s.service.admin.usage({ kind: 'operator' }, s.organizationId))._unsafeUnwrap().recent;
    assert.equal(recent.errors, 1, 'the 504 is recorded, its replay is not');
  });

  test('Limits: 504 request_timeout on GET /v1/usage when a store does not answer in time', async () => {
    const stores = createMemoryStores();
    const read = stores.usage.readUsageDays.bind(stores.usage);
    let hang = false;
    stores.usage.readUsageDays = (params) => (hang ? new Promise(() => {}) : read(params));
    const s = await setup({}, { deadlineMs: 200 }, {}, stores);
    hang = true;
    assertError(await getUsage(s), 504, 'request_timeout', true);
  });

  test('Errors: 500 internal_error from a failing store: envelope, released, key free again', async () => {
    const stores = createMemoryStores();
    let failing = false;
    // Billing fails (every try); giving back still works.
    stores.checks = failingIf(
      stores.checks,
      (method, [params]) =>
        failing && method === 'finish' && (params as FinishCheckParams).reservation?.commit === true,
    );
    const errors: string[] = [];
    const s = await setup({}, { onError: (_e, c) => errors.push(c.step) }, {}, stores);
    failing = true;
    const r = await check(s, COMPLETE_TX, { 'idempotency-key': 'boom' });
    assertError(r, 500, 'internal_error', false);
    assert.ok(errors.includes('finish'));
    assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
    failing = false;
    const retried = await check(s, COMPLETE_TX, { 'idempotency-key': 'boom' });
    assert.equal(retried.status, 200);
    assert.equal(retried.headers['Idempotent-Replayed'], undefined);
  });

  test('Errors: 404 and 405 in the envelope (validation_error)', async () => {
    const s = await setup();
    const r404 = await s.service.handle({
      method: 'GET',
      path: '/v2/nothing',
      query: {},
      headers: {},
      body: new Uint8Array(),
    });
    assertError(r404, 404, 'validation_error', false);
    const r405 = await s.service.handle({ method: 'GET', path: CHECK, query: {}, headers: {}, body: new Uint8Array() });
    assertError(r405, 405, 'validation_error', false);
    assert.equal(r405.headers.Allow, 'POST');
  });
});
