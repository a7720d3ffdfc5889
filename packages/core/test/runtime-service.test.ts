import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ResultAsync } from 'neverthrow';
import { createMemoryStores } from '@tron-safety/store-memory';
import type { ChainFactsProvider, ProviderContext } from '../src/chain/facts.js';
import { createTronChainFactsProvider, type TronChainFactsProvider } from '../src/chain/provider.js';
import { TransactionCheckResponse, UsageResponse } from '../src/contract/models.js';
import { createRiskProviders } from '../src/risk/providers.js';
import type { RiskProviders } from '../src/risk/signals.js';
import type { CoreHttpResponse } from '../src/runtime/http.js';
import { createSafetyService, type SafetyService } from '../src/runtime/service.js';
import type { SafetyProviders, SafetyServiceOptions } from '../src/runtime/context.js';
import type { BeginCheckParams, FinishCheckParams, SafetyStores } from '../src/stores/index.js';
import type { Entitlements } from '../src/stores/organizations.js';
import { startFakeChainalysis, type FakeChainalysis } from '../src/testing/fake-vendors.js';
import { startFakeTronNode, type FakeTronNode } from '../src/testing/fake-tron-node.js';
import { TRON_FIXTURE_TX, USDT_CONTRACT } from '../src/testing/fake-tron-fixtures.js';
import { checkBody, instantChain, instantRisk, seedTenant } from '../src/testing/service-harness.js';

/**
 * End to end through `handle`: the fake java-tron node and the fake Chainalysis servers over
 * HTTP on 127.0.0.1, the real chain and risk providers, store-memory.
 */
const COMPLETE_TX = TRON_FIXTURE_TX.usdtTransfer; // complete coverage, CLEAR
const PARTIAL_TX = TRON_FIXTURE_TX.trc10Transfer; // partial coverage, LIMITED_DATA
const CHECK = '/v1/transaction/check';

let node: FakeTronNode;
let vendors: FakeChainalysis;
let chain: TronChainFactsProvider;
let risk: RiskProviders;

before(async () => {
  node = await startFakeTronNode();
  vendors = await startFakeChainalysis();
  // Generous per-call timeouts: the concurrency tests load the fake node on a 2-core CI machine.
  chain = createTronChainFactsProvider({
    fullNodeUrl: node.url,
    retry: { attempts: 1 },
    timeoutMs: 10_000,
    connections: 64,
  });
  const built = createRiskProviders({
    chainalysisApiUrl: vendors.entityUrl,
    chainalysisApiKey: 'vendor-key',
    chainalysisSanctionsUrl: vendors.sanctionsUrl,
    chainalysisSanctionsApiKey: 'vendor-key',
    cacheTtlMs: 0,
    timeoutMs: 10_000,
  });
  if (built.isErr()) throw new Error(built.error.message);
  risk = built.value;
});

after(async () => {
  await chain.close();
  await node.close();
  await vendors.close();
});

/** A clock tests can move forward. */
function movableClock() {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms: number) => void (offset += ms) };
}

interface Setup {
  service: SafetyService;
  stores: SafetyStores;
  apiKey: string;
  organizationId: string;
}

async function setup(
  entitlements: Partial<Entitlements> = {},
  options: SafetyServiceOptions = {},
  providers: Partial<SafetyProviders> = {},
  stores: SafetyStores = createMemoryStores(),
): Promise<Setup> {
  node.clearFaults();
  vendors.setFault('entity', '*', null);
  vendors.setFault('sanctions', '*', null);
  const service = createSafetyService(stores, { chain, risk, ...providers }, options);
  const { apiKey, organizationId } = await seedTenant(service, entitlements);
  return { service, stores, apiKey, organizationId };
}

function check(
  s: { service: SafetyService; apiKey: string },
  txHash: string,
  headers: Record<string, string> = {},
  expected: Record<string, string> = {},
): Promise<CoreHttpResponse> {
  return s.service.handle({
    method: 'POST',
    path: CHECK,
    query: {},
    headers: { 'x-api-key': s.apiKey, 'content-type': 'application/json', ...headers },
    body: checkBody(txHash, expected),
  });
}

function getUsage(
  s: { service: SafetyService; apiKey: string },
  query: Record<string, string> = {},
): Promise<CoreHttpResponse> {
  return s.service.handle({
    method: 'GET',
    path: '/v1/usage',
    query,
    headers: { 'x-api-key': s.apiKey },
    body: new Uint8Array(),
  });
}

const json = (r: CoreHttpResponse) => JSON.parse(r.body) as Record<string, any>;

/** The error envelope, and X-Request-ID equal to its request_id. */
function assertError(r: CoreHttpResponse, status: number, code: string, retryable: boolean): void {
  assert.equal(r.status, status, r.body);
  const body = json(r);
  assert.deepEqual(Object.keys(body), ['request_id', 'error']);
  assert.deepEqual(Object.keys(body.error), ['code', 'message', 'retryable']);
  assert.equal(body.error.code, code);
  assert.equal(body.error.retryable, retryable);
  assert.equal(r.headers['X-Request-ID'], body.request_id);
  assert.match(r.headers['Content-Type']!, /^application\/json/);
}

async function period(s: Setup) {
  const report = await s.service.admin.usage({ kind: 'operator' }, s.organizationId);
  assert.ok(report.isOk());
  return report.value.period;
}

/**
 * A chain provider that answers only when its signal stops it, recording what the runtime hands
 * it. The real provider budgets its rounds to answer before the deadline, so a 504 needs this one.
 */
function waitingChain(seen: ProviderContext[] = []): ChainFactsProvider {
  return {
    getTransactionFacts: (_txHash, ctx) => {
      seen.push(ctx);
      const aborted = new Promise<never>((_, reject) =>
        ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
      );
      return ResultAsync.fromPromise(aborted, () => ({ kind: 'aborted' as const }));
    },
  };
}

const fullNodeTxCalls = () => node.calls.filter((c) => c.node === 'full' && c.path === 'gettransactionbyid').length;

describe('a check end to end', () => {
  test('200: the response, its headers and one billed unit', async () => {
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

  test('X-Request-ID: an invalid caller value is replaced by a generated one', async () => {
    const s = await setup();
    for (const bad of ['', 'has space', 'x'.repeat(129), 'ünicode']) {
      const r = await check(s, COMPLETE_TX, { 'x-request-id': bad });
      assert.notEqual(r.headers['X-Request-ID'], bad);
      assert.match(r.headers['X-Request-ID']!, /^[0-9a-f-]{36}$/);
      assert.equal(json(r).request_id, r.headers['X-Request-ID']);
    }
  });
});

describe('errors table', () => {
  test('401 invalid_api_key: missing, unknown, revoked (both endpoints)', async () => {
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

  test('403 tenant_suspended until the organization is activated again', async () => {
    const s = await setup();
    const operator = { kind: 'operator' } as const;
    assert.ok((await s.service.admin.suspendOrganization(operator, s.organizationId)).isOk());
    assertError(await check(s, COMPLETE_TX), 403, 'tenant_suspended', false);
    assertError(await getUsage(s), 403, 'tenant_suspended', false);
    assert.ok((await s.service.admin.activateOrganization(operator, s.organizationId)).isOk());
    assert.equal((await check(s, COMPLETE_TX)).status, 200);
  });

  test('403 network_not_enabled: nothing reserved, and checked before a replay', async () => {
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

  test('422 codes: nothing reserved, nothing stored under the idempotency key', async () => {
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

  test('422 invalid_expected_amount found by the assessment: released, and the key can be reused', async () => {
    const s = await setup();
    const rejected = await check(s, COMPLETE_TX, { 'idempotency-key': 'fix' }, { expected_amount: '1.0000001' });
    assertError(rejected, 422, 'invalid_expected_amount', false);
    assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
    const corrected = await check(s, COMPLETE_TX, { 'idempotency-key': 'fix' }, { expected_amount: '1' });
    assert.equal(corrected.status, 200, corrected.body);
    assert.equal(corrected.headers['Idempotent-Replayed'], undefined);
  });

  test('429 rate_limit_exceeded with its headers, for usage too; the next window admits again', async () => {
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

  test('429 concurrency_limit_exceeded while another check is in flight, for a replay too', async () => {
    const s = await setup({ maxConcurrentRequests: 1, rateLimitPerMinute: 10 });
    assert.equal((await check(s, COMPLETE_TX, { 'idempotency-key': 'done' })).status, 200);
    node.fault({ path: 'gettransactionbyid', times: 2, fault: { kind: 'latency', ms: 300 } });
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

  test('429 quota_exceeded until the next month: stored and replayed under its key', async () => {
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

  test('503 provider_unavailable: retryable, not billed, stored and replayed', async () => {
    const s = await setup();
    node.fault({ fault: { kind: 'status', status: 503 } });
    const r = await check(s, COMPLETE_TX, { 'idempotency-key': 'p' });
    node.clearFaults();
    assertError(r, 503, 'provider_unavailable', true);
    assert.match(json(r).error.message, /temporarily unavailable/);
    assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
    const replay = await check(s, COMPLETE_TX, { 'idempotency-key': 'p' });
    assert.equal(replay.body, r.body);
    assert.equal(replay.headers['Idempotent-Replayed'], 'true');
    assert.equal(replay.headers['X-Request-ID'], r.headers['X-Request-ID']);
  });

  test('503 api_not_configured without a TRON provider; usage still answers', async () => {
    const s = await setup({}, {}, { chain: null });
    assertError(await check(s, COMPLETE_TX), 503, 'api_not_configured', true);
    assert.equal((await getUsage(s)).status, 200);
  });

  test('503 api_disabled by the runtime switch, both endpoints', async () => {
    const s = await setup({}, { apiDisabled: true });
    assertError(await check(s, COMPLETE_TX), 503, 'api_disabled', true);
    assertError(await getUsage(s), 503, 'api_disabled', true);
    s.service.setApiDisabled(false);
    assert.equal((await check(s, COMPLETE_TX)).status, 200);
    s.service.setApiDisabled(true);
    assert.equal(s.service.apiDisabled, true);
    assertError(await check(s, COMPLETE_TX), 503, 'api_disabled', true);
  });

  test('503 rate_limiter_unavailable: a failing limit store fails closed', async () => {
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

  test('504 request_timeout at the deadline: released, not billed, stored', async () => {
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

  test('504 request_timeout on GET /v1/usage when a store does not answer in time', async () => {
    const stores = createMemoryStores();
    const read = stores.usage.readUsageDays.bind(stores.usage);
    let hang = false;
    stores.usage.readUsageDays = (params) => (hang ? new Promise(() => {}) : read(params));
    const s = await setup({}, { deadlineMs: 200 }, {}, stores);
    hang = true;
    assertError(await getUsage(s), 504, 'request_timeout', true);
  });

  test('500 internal_error from a failing store: envelope, released, key free again', async () => {
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

  test('404 and 405 in the envelope (validation_error)', async () => {
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

describe('idempotency', () => {
  test('completed → replayed byte for byte with the original X-Request-ID; billed and recorded once', async () => {
    const s = await setup();
    const first = await check(s, COMPLETE_TX, { 'idempotency-key': 'once', 'x-request-id': 'original' });
    const again = await check(s, COMPLETE_TX, { 'idempotency-key': 'once', 'x-request-id': 'second' });
    assert.equal(again.status, 200);
    assert.equal(again.body, first.body);
    assert.equal(again.headers['X-Request-ID'], 'original');
    assert.equal(again.headers['Idempotent-Replayed'], 'true');
    assert.equal(first.headers['Idempotent-Replayed'], undefined);
    assert.ok(again.headers['X-RateLimit-Remaining'], 'replays pass the rate limit');
    assert.equal(
      again.headers['X-Quota-Remaining'],
      String((await period(s)).remaining),
      'and show the quota as it is now',
    );
    assert.equal((await period(s)).used, 1);
    assert.equal(json(await getUsage(s)).recent.requests, 1);
  });

  test('in progress → 409 idempotency_in_progress with Retry-After', async () => {
    const s = await setup();
    node.fault({ path: 'gettransactionbyid', times: 2, fault: { kind: 'latency', ms: 300 } });
    const first = check(s, COMPLETE_TX, { 'idempotency-key': 'busy' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const busy = await check(s, COMPLETE_TX, { 'idempotency-key': 'busy' });
    assertError(busy, 409, 'idempotency_in_progress', true);
    assert.equal(busy.headers['Retry-After'], '1');
    assert.equal((await first).status, 200);
  });

  test('same key, different body → 409 idempotency_conflict (also the normalized body decides)', async () => {
    const s = await setup();
    assert.equal((await check(s, COMPLETE_TX, { 'idempotency-key': 'c' })).status, 200);
    assertError(await check(s, PARTIAL_TX, { 'idempotency-key': 'c' }), 409, 'idempotency_conflict', false);
    const upper = await check(s, COMPLETE_TX.toUpperCase(), { 'idempotency-key': 'c' });
    assert.equal(upper.headers['Idempotent-Replayed'], 'true', 'tx_hash case is normalized');
  });

  test('retention expired → executes again as a new billable check', async () => {
    const clock = movableClock();
    const s = await setup({}, { now: clock.now, idempotencyRetentionSeconds: 60 });
    assert.equal((await check(s, COMPLETE_TX, { 'idempotency-key': 'r' })).status, 200);
    clock.advance(59_000);
    assert.equal((await check(s, COMPLETE_TX, { 'idempotency-key': 'r' })).headers['Idempotent-Replayed'], 'true');
    clock.advance(1_000);
    const fresh = await check(s, COMPLETE_TX, { 'idempotency-key': 'r' });
    assert.equal(fresh.headers['Idempotent-Replayed'], undefined);
    assert.equal((await period(s)).used, 2);
  });

  test('keys survive API key rotation (scoped to the organization)', async () => {
    const s = await setup();
    const first = await check(s, COMPLETE_TX, { 'idempotency-key': 'rot' });
    const keys = await s.service.admin.listApiKeys({ kind: 'operator' }, s.organizationId);
    assert.ok(keys.isOk());
    const rotated = await s.service.admin.rotateApiKey(
      { kind: 'member', organizationId: s.organizationId, role: 'developer' },
      s.organizationId,
      keys.value[0]!.id,
    );
    assert.ok(rotated.isOk());
    assert.ok(rotated.value.key.startsWith('tsk_live_'));
    assertError(await check(s, COMPLETE_TX, { 'idempotency-key': 'rot' }), 401, 'invalid_api_key', false);
    const replay = await check({ ...s, apiKey: rotated.value.key }, COMPLETE_TX, { 'idempotency-key': 'rot' });
    assert.equal(replay.body, first.body);
    assert.equal(replay.headers['Idempotent-Replayed'], 'true');
  });

  test('200 concurrent checks with one key: the providers are called once', async () => {
    const s = await setup();
    node.clearCalls();
    node.fault({ path: 'gettransactionbyid', fault: { kind: 'latency', ms: 50 } });
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => check(s, COMPLETE_TX, { 'idempotency-key': 'herd' })),
    );
    node.clearFaults();
    assert.equal(fullNodeTxCalls(), 1);
    const executed = answers.filter((r) => r.status === 200 && r.headers['Idempotent-Replayed'] === undefined);
    assert.equal(executed.length, 1);
    for (const r of answers) {
      if (r.status === 200) assert.equal(r.body, executed[0]!.body);
      else assertError(r, 409, 'idempotency_in_progress', true);
    }
    assert.equal((await period(s)).used, 1);
  });
});

describe('quota billing', () => {
  test('complete billed once; partial, errors and replays not billed; reserved returns to 0', async () => {
    const s = await setup();
    assert.equal(json(await check(s, COMPLETE_TX, { 'idempotency-key': 'a' })).coverage, 'complete');
    assert.equal(json(await check(s, COMPLETE_TX, { 'idempotency-key': 'a' })).coverage, 'complete');
    const partial = json(await check(s, PARTIAL_TX));
    assert.equal(partial.coverage, 'partial');
    assert.equal(partial.overall_state, 'LIMITED_DATA');
    vendors.setFault('sanctions', '*', { kind: 'status', status: 500 });
    const unscreened = json(await check(s, COMPLETE_TX));
    vendors.setFault('sanctions', '*', null);
    assert.equal(unscreened.coverage, 'partial');
    assert.equal(unscreened.sanctions_hit, null);
    node.fault({ fault: { kind: 'status', status: 503 } });
    assert.equal((await check(s, COMPLETE_TX)).status, 503);
    node.clearFaults();
    assert.deepEqual(await period(s), { ...(await period(s)), used: 1, reserved: 0 });
  });

  test('a complete HIGH_RISK result is billed like any complete one', async () => {
    const s = await setup();
    const recipient = json(await check(s, COMPLETE_TX)).recipient as string;
    vendors.setSanctioned(recipient, [{ category: 'sanctions', name: 'SANCTIONS TEST ENTRY' }]);
    let flagged: Record<string, any>;
    try {
      flagged = json(await check(s, COMPLETE_TX));
    } finally {
      vendors.setSanctioned(recipient, null);
    }
    assert.equal(flagged.sanctions_hit, true);
    assert.equal(flagged.overall_state, 'HIGH_RISK');
    assert.equal(flagged.coverage, 'complete');
    assert.deepEqual(await period(s), { ...(await period(s)), used: 2, reserved: 0 });
  });

  test('500 concurrent checks with 100 units left: exactly 100 billed', async () => {
    const s = await setup({ monthlyQuota: 120 });
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
    node.fault({ fault: { kind: 'status', status: 503 } });
    await check(s, COMPLETE_TX);
    node.clearFaults();
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

  test('a plan version: usage shows it; a new version affects only organizations moved to it', async () => {
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
});

describe('admin roles and keys', () => {
  test('owner/admin/developer manage keys; billing/viewer only read; members stay in their organization', async () => {
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

  test('seeding: an imported key authenticates; keys are stored hashed', async () => {
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

  test('seeding the same key from several hosts at once: every import succeeds, one key is stored', async () => {
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

describe('the deadline bounds the whole request', () => {
  /** The store with `method` answering only when `release()` is called (never, unless called). */
  function heldBack<S extends object>(store: S, method: string) {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached: () => void = () => {};
    const called = new Promise<void>((resolve) => (reached = resolve));
    const proxy = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function' || property !== method)
          return typeof value === 'function' ? value.bind(target) : value;
        return (...args: unknown[]) => {
          reached();
          return gate.then(() => value.apply(target, args));
        };
      },
    });
    return { proxy, called, release: () => release() };
  }

  /** Instant in-process providers (the chain failing for `failingChain`): the store under test is the only slow part. */
  async function instantSetup(store: 'checks', method: string, steps: string[] = [], failingChain = false) {
    const stores = createMemoryStores();
    const held = heldBack(stores[store], method);
    Object.assign(stores, { [store]: held.proxy });
    const s = await setup(
      {},
      { deadlineMs: 400, onError: (_e, c) => steps.push(c.step) },
      { chain: failingChain ? instantChain({ facts: () => null }) : instantChain(), risk: instantRisk() },
      stores,
    );
    return { s, held };
  }

  test('providers get the request signal, aborted before the deadline (a settle grace earlier), and that time', async () => {
    const seen: ProviderContext[] = [];
    const s = await setup({}, { deadlineMs: 400, settleGraceMs: 100 }, { chain: waitingChain(seen) });
    const sent = Date.now();
    assertError(await check(s, COMPLETE_TX), 504, 'request_timeout', true);
    const answered = Date.now();
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.signal.aborted, true, 'the signal the provider holds fired');
    const deadlineAt = seen[0]!.deadlineAt!;
    assert.ok(
      deadlineAt >= sent + 300 && deadlineAt <= answered,
      `providers stop 100 ms before the 400 ms deadline (${deadlineAt - sent} ms)`,
    );
  });

  // `finish` bills, stores the result and records usage in one call.
  for (const [what, key, failingChain, status] of [
    ['bills a complete check', null, false, 504],
    ['stores a result under its key', 'hang-complete', false, 504],
    ['only records usage (nothing billed or stored)', null, true, 503],
  ] as const) {
    test(`a store that never answers the finish that ${what}: the caller still gets an answer by the deadline`, async () => {
      const steps: string[] = [];
      const { s } = await instantSetup('checks', 'finish', steps, failingChain);
      const r = await check(s, COMPLETE_TX, key ? { 'idempotency-key': key } : {});
      if (status === 503)
        assertError(r, 503, 'provider_unavailable', true); // a lost usage record does not change a decided answer
      else assertError(r, 504, 'request_timeout', true);
      assert.ok(steps.length > 0, 'the hanging store is reported');
    });
  }

  test('a commit that lands after the caller got its 504: the retry replays the decided 200, billed once', async () => {
    const { s, held } = await instantSetup('checks', 'finish');
    const first = await check(s, COMPLETE_TX, { 'idempotency-key': 'late' });
    assertError(first, 504, 'request_timeout', true);
    held.release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const retried = await check(s, COMPLETE_TX, { 'idempotency-key': 'late' });
    assert.equal(retried.status, 200, retried.body);
    assert.equal(
      retried.headers['Idempotent-Replayed'],
      'true',
      'the result the store decided, not a second execution',
    );
    assert.deepEqual(await period(s), { ...(await period(s)), used: 1, reserved: 0 });
  });

  test('close() is not held by a store that never answers', async () => {
    const { s, held } = await instantSetup('checks', 'finish');
    const inFlight = check(s, COMPLETE_TX);
    await held.called;
    await s.service.close({ timeoutMs: 50 });
    assertError(await inFlight, 504, 'request_timeout', true);
  });

  test('finishing (storing the result) is tried twice before the key is given up', async () => {
    const stores = createMemoryStores();
    const finish = stores.checks.finish.bind(stores.checks);
    let failures = 1;
    stores.checks.finish = (params) => (failures-- > 0 ? Promise.reject(new Error('blip')) : finish(params));
    const s = await setup({}, {}, {}, stores);
    const first = await check(s, COMPLETE_TX, { 'idempotency-key': 'blip' });
    assert.equal(first.status, 200);
    const replay = await check(s, COMPLETE_TX, { 'idempotency-key': 'blip' });
    assert.equal(replay.headers['Idempotent-Replayed'], 'true', 'stored on the second attempt');
    assert.equal((await period(s)).used, 1, 'billed once');
  });
});

describe('shutdown', () => {
  test('close: new requests 503, in-flight ones finish', async () => {
    const s = await setup();
    node.fault({ path: 'gettransactionbyid', times: 2, fault: { kind: 'latency', ms: 200 } });
    const inFlight = check(s, COMPLETE_TX);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = s.service.close();
    assert.equal(s.service.apiDisabled, true, 'closing refuses business requests');
    assertError(await check(s, COMPLETE_TX), 503, 'api_disabled', true);
    assert.equal((await inFlight).status, 200);
    await closed;
    assert.equal(s.service.inFlight, 0);
  });

  test('close past its bound aborts in-flight checks, which release what they hold', async () => {
    const s = await setup();
    node.fault({ path: 'gettransactionbyid', fault: { kind: 'latency', ms: 3000 } });
    const inFlight = check(s, COMPLETE_TX, { 'idempotency-key': 'drain' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await s.service.close({ timeoutMs: 100 });
    node.clearFaults();
    assertError(await inFlight, 503, 'api_disabled', true);
    assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
    const again = createSafetyService(s.stores, { chain, risk });
    const retried = await check({ service: again, apiKey: s.apiKey }, COMPLETE_TX, { 'idempotency-key': 'drain' });
    assert.equal(retried.status, 200, 'the key was abandoned, not stored');
    assert.equal(retried.headers['Idempotent-Replayed'], undefined);
  });
});

/** The store with a method rejecting while `fails(method, args)` says so. */
function failingIf<S extends object>(store: S, fails: (method: string, args: unknown[]) => boolean): S {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        fails(String(property), args)
          ? Promise.reject(new Error(`store down: ${String(property)}`))
          : value.apply(target, args);
    },
  });
}
