import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import type { CoreHttpHandler } from '../runtime/http.js';
import { createTronChainFactsProvider, type TronChainFactsProvider } from '../chain/provider.js';
import { createRiskProviders } from '../risk/providers.js';
import type { RiskProviders } from '../risk/signals.js';
import { createSafetyService, type SafetyService } from '../runtime/service.js';
import type { Entitlements, SafetyStores } from '../stores/index.js';
import { TRON_FIXTURE_TX } from './fake-tron-fixtures.js';
import { startFakeTronNode, type FakeTronNode } from './fake-tron-node.js';
import { startFakeChainalysis, type FakeChainalysis } from './fake-vendors.js';

/**
 * The one HTTP conformance suite: every endpoint, error code, header and idempotency, quota and
 * rate case of the spec that crosses HTTP, run against a real server listening on 127.0.0.1
 * (undici client). A host or adapter test calls it with a function that serves the given handler
 * through its framework; the suite builds the service (stores from `createStores`, the fake
 * java-tron node and the fake Chainalysis servers behind the real providers) and its tenants.
 */
export type ConformanceHandler = CoreHttpHandler;

export interface ConformanceServer {
  /** `http://127.0.0.1:port` (plus a mount prefix, if any) where `/v1/...` is served. */
  url: string;
  close(): Promise<void>;
}

export interface HttpConformanceOptions {
  /** Fresh stores for the suite's service (e.g. store-memory's `createMemoryStores`). */
  createStores: () => SafetyStores | Promise<SafetyStores>;
}

const DEADLINE_MS = 1_500;
const GENEROUS: Entitlements = {
  rateLimitPerMinute: 1000,
  maxConcurrentRequests: 50,
  monthlyQuota: 1000,
  enabledNetworks: ['tron'],
};
const VALID_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const UNKNOWN_TX = 'ab'.repeat(32);

/** The 27 fields of TransactionCheckResponse, always present. */
const CHECK_FIELDS = [
  'request_id',
  'tx_hash',
  'network',
  'transaction_type',
  'transaction_category',
  'transaction_state',
  'confirmations',
  'required_confirmations',
  'sender',
  'recipient',
  'token_contract',
  'token_symbol',
  'decimals',
  'amount',
  'transfers',
  'transfers_truncated',
  'aml_risk_level',
  'sanctions_hit',
  'key_exposure',
  'token_authenticity',
  'recipient_match',
  'token_match',
  'amount_match',
  'coverage',
  'freshness',
  'overall_state',
  'reasons',
];

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: any;
}

export function runHttpConformance(
  name: string,
  startServer: (handler: ConformanceHandler) => Promise<ConformanceServer>,
  options: HttpConformanceOptions,
): void {
  describe(`HTTP conformance: ${name}`, () => {
    let node: FakeTronNode;
    let vendors: FakeChainalysis;
    let chain: TronChainFactsProvider;
    let risk: RiskProviders;
    let service: SafetyService;
    let server: ConformanceServer;

    before(async () => {
      node = await startFakeTronNode();
      vendors = await startFakeChainalysis();
      // The real providers, over HTTP to the fakes; no cache, so a fault applies to the next check.
      chain = createTronChainFactsProvider({ fullNodeUrl: node.url, timeoutMs: 1_000 });
      risk = createRiskProviders({
        chainalysisApiUrl: vendors.entityUrl,
        chainalysisApiKey: 'conformance-entity-key',
        chainalysisSanctionsUrl: vendors.sanctionsUrl,
        chainalysisSanctionsApiKey: 'conformance-sanctions-key',
        cacheTtlMs: 0,
      })._unsafeUnwrap();
      service = createSafetyService(await options.createStores(), { chain, risk }, { deadlineMs: DEADLINE_MS });
      server = await startServer(service);
    });
    after(async () => {
      await server?.close();
      await service?.close({ timeoutMs: 100 });
      await chain?.close();
      await Promise.all([node?.close(), vendors?.close()]);
    });

    /** A new organization with its own key, so limits and idempotency of one test never touch another. */
    async function tenant(
      entitlements: Partial<Entitlements> = {},
      status: 'active' | 'suspended' = 'active',
      on = service,
    ) {
      const operator = { kind: 'operator' } as const;
      const org = await on.admin.createOrganization(operator, {
        name: `conformance ${Math.random().toString(36).slice(2)}`,
        status,
        assignment: { entitlements: { ...GENEROUS, ...entitlements } },
      });
      const id = org._unsafeUnwrap().organization.id;
      const key = (await on.admin.createApiKey(operator, id, 'conformance'))._unsafeUnwrap();
      return { id, key: key.key, keyId: key.metadata.id };
    }

    async function call(
      method: 'GET' | 'POST',
      path: string,
      init: { key?: string; body?: string | Buffer; headers?: Record<string, string | string[]>; url?: string } = {},
    ): Promise<Answer> {
      const headers: Record<string, string | string[]> = { ...init.headers };
      if (init.key !== undefined) headers['x-api-key'] = init.key;
      if (init.body !== undefined) headers['content-type'] ??= 'application/json';
      const res = await request(`${init.url ?? server.url}${path}`, { method, headers, body: init.body });
      const text = await res.body.text();
      const flat: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        // asserted by the caller
      }
      return { status: res.statusCode, headers: flat, text, json };
    }

    const check = (key: string, body: object | string, headers: Record<string, string | string[]> = {}) =>
      call('POST', '/v1/transaction/check', {
        key,
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers,
      });

    /** The spec's error envelope, with `X-Request-ID` equal to `request_id` and a JSON content type. */
    function assertError(answer: Answer, status: number, code: string, retryable?: boolean) {
      assert.equal(answer.status, status, `expected ${status} ${code}, got ${answer.status} ${answer.text}`);
      assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(answer.json).sort(), ['error', 'request_id']);
      assert.equal(answer.json.error.code, code);
      assert.equal(typeof answer.json.error.message, 'string');
      assert.equal(typeof answer.json.error.retryable, 'boolean');
      if (retryable !== undefined) assert.equal(answer.json.error.retryable, retryable);
      assert.equal(answer.headers['x-request-id'], answer.json.request_id);
    }

    describe('POST /v1/transaction/check', () => {
      test('200 with all 27 fields, X-Request-ID = request_id, rate and quota headers', async () => {
        const { key } = await tenant();
        const answer = await check(key, { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' });
        assert.equal(answer.status, 200, answer.text);
        assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
        assert.deepEqual(Object.keys(answer.json).sort(), [...CHECK_FIELDS].sort());
        assert.equal(answer.headers['x-request-id'], answer.json.request_id);
        assert.equal(answer.json.tx_hash, TRON_FIXTURE_TX.trxTransfer);
        assert.equal(answer.json.transaction_state, 'confirmed');
        assert.ok(answer.json.reasons.length >= 2 && answer.json.reasons.length <= 5);
        for (const h of [
          'x-ratelimit-limit',
          'x-ratelimit-remaining',
          'x-ratelimit-reset',
          'x-quota-limit',
          'x-quota-remaining',
          'x-quota-reset',
        ]) {
          assert.match(answer.headers[h] ?? '', /^\d+$/, h);
        }
        assert.equal(answer.headers['x-ratelimit-limit'], '1000');
        assert.equal(answer.headers['ratelimit-policy'], '"minute";q=1000;w=60');
        assert.match(answer.headers.ratelimit ?? '', /^"minute";r=\d+;t=\d+$/);
      });

      test("a caller's X-Request-ID is kept; an invalid one is replaced", async () => {
        const { key } = await tenant();
        const kept = await check(
          key,
          { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' },
          { 'x-request-id': 'order-42.attempt-1' },
        );
        assert.equal(kept.json.request_id, 'order-42.attempt-1');
        assert.equal(kept.headers['x-request-id'], 'order-42.attempt-1');
        const replaced = await check(key, { tx_hash: 'zz', network: 'tron' }, { 'x-request-id': 'has spaces' });
        assert.notEqual(replaced.json.request_id, 'has spaces');
        assert.equal(replaced.headers['x-request-id'], replaced.json.request_id);
      });

      test('a transaction the node does not know: 200, not_found, never CLEAR', async () => {
        const { key } = await tenant();
        const answer = await check(key, { tx_hash: UNKNOWN_TX, network: 'tron' });
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.json.transaction_state, 'not_found');
        assert.notEqual(answer.json.overall_state, 'CLEAR');
        assert.equal(answer.json.sanctions_hit, null);
      });

      test('401 invalid_api_key: missing, unknown and revoked keys', async () => {
        const body = { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' };
        assertError(
          await call('POST', '/v1/transaction/check', { body: JSON.stringify(body) }),
          401,
          'invalid_api_key',
          false,
        );
        assertError(await check('tsk_live_not-a-real-key-at-all-000000', body), 401, 'invalid_api_key', false);
        const { id, key, keyId } = await tenant();
        await service.admin.revokeApiKey({ kind: 'operator' }, id, keyId);
        assertError(await check(key, body), 401, 'invalid_api_key', false);
        const twice = (await tenant()).key;
        const repeated = await call('POST', '/v1/transaction/check', {
          body: JSON.stringify(body),
          headers: { 'x-api-key': [twice, twice] },
        });
        assertError(repeated, 401, 'invalid_api_key', false);
      });

      test('403 tenant_suspended and network_not_enabled', async () => {
        const body = { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' };
        const suspended = await tenant({}, 'suspended');
        assertError(await check(suspended.key, body), 403, 'tenant_suspended', false);
        const noTron = await tenant({ enabledNetworks: [] });
        assertError(await check(noTron.key, body), 403, 'network_not_enabled', false);
      });

      test('422: every validation code in the envelope', async () => {
        const { key } = await tenant();
        const tx = TRON_FIXTURE_TX.usdtTransfer;
        assertError(await check(key, { tx_hash: 'xyz', network: 'tron' }), 422, 'malformed_tx_hash', false);
        assertError(await check(key, { tx_hash: tx, network: 'ethereum' }), 422, 'invalid_network', false);
        assertError(
          await check(key, { tx_hash: tx, network: 'tron', expected_recipient: 'TNotAnAddress' }),
          422,
          'invalid_tron_address',
          false,
        );
        assertError(
          await check(key, { tx_hash: tx, network: 'tron', expected_amount: '1e5' }),
          422,
          'invalid_expected_amount',
          false,
        );
        assertError(
          await check(key, { tx_hash: tx, network: 'tron' }, { 'idempotency-key': 'x'.repeat(129) }),
          422,
          'invalid_idempotency_key',
          false,
        );
        // Sent twice, not joined into one "a, b" key by the server.
        assertError(
          await check(key, { tx_hash: tx, network: 'tron' }, { 'idempotency-key': ['a', 'b'] }),
          422,
          'invalid_idempotency_key',
          false,
        );
        assertError(await check(key, { tx_hash: tx, network: 'tron', extra: 1 }), 422, 'validation_error', false);
        assertError(await check(key, '{"tx_hash": '), 422, 'validation_error', false);
      });

      test('422 payload_too_large for a body over 4 KiB, in the envelope (not a framework page)', async () => {
        const { key } = await tenant();
        const big = JSON.stringify({
          tx_hash: TRON_FIXTURE_TX.trxTransfer,
          network: 'tron',
          expected_amount: '1'.repeat(5000),
        });
        assertError(await check(key, big), 422, 'payload_too_large', false);
        const padded = `{"tx_hash":"${TRON_FIXTURE_TX.trxTransfer}","network":"tron"}${' '.repeat(4096)}`;
        assertError(await check(key, padded), 422, 'payload_too_large', false);
      });

      test('idempotency: replay is byte-identical with Idempotent-Replayed and the original X-Request-ID; conflict is 409', async () => {
        const { key } = await tenant();
        const body = { tx_hash: TRON_FIXTURE_TX.usdtTransfer, network: 'tron' };
        const first = await check(key, body, { 'idempotency-key': 'order-1' });
        assert.equal(first.status, 200, first.text);
        assert.equal(first.headers['idempotent-replayed'], undefined);
        const replay = await check(key, body, { 'idempotency-key': 'order-1', 'x-request-id': 'another-id' });
        assert.equal(replay.status, 200);
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(replay.text, first.text);
        assert.equal(replay.headers['x-request-id'], first.json.request_id);
        const conflict = await check(
          key,
          { ...body, expected_recipient: VALID_ADDRESS },
          { 'idempotency-key': 'order-1' },
        );
        assertError(conflict, 409, 'idempotency_conflict', false);
      });

      test('idempotency: same key while the first is processing → 409 idempotency_in_progress with Retry-After', async () => {
        const { key } = await tenant();
        const removeFault = node.fault({ path: 'gettransactionbyid', fault: { kind: 'latency', ms: 600 } });
        try {
          const body = { tx_hash: TRON_FIXTURE_TX.trc10Transfer, network: 'tron' };
          const first = check(key, body, { 'idempotency-key': 'slow-1' });
          await new Promise((r) => setTimeout(r, 150));
          const second = await check(key, body, { 'idempotency-key': 'slow-1' });
          assertError(second, 409, 'idempotency_in_progress', true);
          assert.match(second.headers['retry-after'] ?? '', /^\d+$/);
          assert.equal((await first).status, 200);
        } finally {
          removeFault();
        }
      });

      test('a finalized error of an idempotent check is stored and replayed unchanged', async () => {
        const { key } = await tenant();
        const body = { tx_hash: TRON_FIXTURE_TX.unfreezeBalanceV1, network: 'tron' };
        const removeFault = node.fault({ fault: { kind: 'status', status: 502 } });
        let first: Answer;
        try {
          first = await check(key, body, { 'idempotency-key': 'failed-once' });
        } finally {
          removeFault();
        }
        assertError(first, 503, 'provider_unavailable', true);
        const replay = await check(key, body, { 'idempotency-key': 'failed-once' });
        assert.equal(replay.status, 503);
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(replay.text, first.text);
      });

      test('idempotency keys survive API key rotation; the revoked key is refused even for a replay', async () => {
        const { id, key, keyId } = await tenant();
        const body = { tx_hash: TRON_FIXTURE_TX.trc10Transfer, network: 'tron' };
        const first = await check(key, body, { 'idempotency-key': 'rotate-1' });
        assert.equal(first.status, 200, first.text);
        const rotated = (await service.admin.rotateApiKey({ kind: 'operator' }, id, keyId))._unsafeUnwrap();
        assertError(await check(key, body, { 'idempotency-key': 'rotate-1' }), 401, 'invalid_api_key', false);
        const replay = await check(rotated.key, body, { 'idempotency-key': 'rotate-1' });
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(replay.text, first.text);
      });

      test('quota: a complete check consumes one unit; when full, 429 quota_exceeded with Retry-After and X-Quota-*', async () => {
        const { key } = await tenant({ monthlyQuota: 1 });
        const body = { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' };
        const first = await check(key, body);
        assert.equal(first.status, 200, first.text);
        assert.equal(first.json.coverage, 'complete', 'the fixture check must be complete to be billed');
        assert.equal(first.headers['x-quota-limit'], '1');
        assert.equal(first.headers['x-quota-remaining'], '0');
        const second = await check(key, body);
        assertError(second, 429, 'quota_exceeded', true);
        assert.match(second.headers['retry-after'] ?? '', /^\d+$/);
        assert.equal(second.headers['x-quota-remaining'], '0');
        const usage = await call('GET', '/v1/usage', { key });
        assert.equal(usage.json.period.used, 1);
        assert.equal(usage.json.period.reserved, 0);
      });

      test('rate limit: past the per-minute limit, 429 rate_limit_exceeded with Retry-After and X-RateLimit-*', async () => {
        const { key } = await tenant({ rateLimitPerMinute: 2 });
        const body = { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' };
        // The host runs on the real clock: start clear of a UTC minute boundary, where the window resets.
        const msLeftInMinute = 60_000 - (Date.now() % 60_000);
        if (msLeftInMinute < 3_000) await new Promise((resolve) => setTimeout(resolve, msLeftInMinute + 50));
        assert.equal((await check(key, body)).headers['x-ratelimit-remaining'], '1');
        assert.equal((await check(key, body)).status, 200);
        const limited = await check(key, body);
        assertError(limited, 429, 'rate_limit_exceeded', true);
        assert.match(limited.headers['retry-after'] ?? '', /^\d+$/);
        assert.equal(limited.headers['x-ratelimit-limit'], '2');
        assert.equal(limited.headers['x-ratelimit-remaining'], '0');
        assert.match(limited.headers['x-ratelimit-reset'] ?? '', /^\d+$/);
        assertError(await call('GET', '/v1/usage', { key }), 429, 'rate_limit_exceeded', true);
      });

      test('concurrency: a second check while one is in flight → 429 concurrency_limit_exceeded', async () => {
        const { key } = await tenant({ maxConcurrentRequests: 1 });
        const removeFault = node.fault({ path: 'gettransactionbyid', fault: { kind: 'latency', ms: 600 } });
        try {
          const first = check(key, { tx_hash: TRON_FIXTURE_TX.voteWitness, network: 'tron' });
          await new Promise((r) => setTimeout(r, 150));
          const second = await check(key, { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' });
          assertError(second, 429, 'concurrency_limit_exceeded', true);
          assert.match(second.headers['retry-after'] ?? '', /^\d+$/);
          assert.equal((await first).status, 200);
        } finally {
          removeFault();
        }
      });

      test('503 provider_unavailable when the node fails; nothing billed, nothing left reserved', async () => {
        const { key } = await tenant();
        const removeFault = node.fault({ fault: { kind: 'status', status: 502 } });
        let answer: Answer;
        try {
          answer = await check(key, { tx_hash: TRON_FIXTURE_TX.withdrawBalance, network: 'tron' });
        } finally {
          removeFault();
        }
        assertError(answer, 503, 'provider_unavailable', true);
        const usage = await call('GET', '/v1/usage', { key });
        assert.equal(usage.json.period.used, 0);
        assert.equal(usage.json.period.reserved, 0);
      });

      test('503 api_disabled while business access is paused, for both endpoints', async () => {
        const { key } = await tenant();
        service.setApiDisabled(true);
        try {
          assertError(await check(key, { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' }), 503, 'api_disabled');
          assertError(await call('GET', '/v1/usage', { key }), 503, 'api_disabled');
        } finally {
          service.setApiDisabled(false);
        }
      });
    });

    describe('GET /v1/usage', () => {
      test('200 UsageResponse for the key’s organization, with rate headers', async () => {
        const { id, key } = await tenant({ monthlyQuota: 77 });
        const answer = await call('GET', '/v1/usage?days=7', { key });
        assert.equal(answer.status, 200, answer.text);
        assert.ok(answer.headers['x-request-id']);
        assert.deepEqual(Object.keys(answer.json).sort(), ['limits', 'period', 'plan', 'recent', 'tenant_id']);
        assert.equal(answer.json.tenant_id, id);
        assert.equal(answer.json.period.limit, 77);
        assert.equal(answer.json.period.remaining, 77);
        assert.equal(answer.json.recent.days, 7);
        assert.match(answer.headers['x-ratelimit-remaining'] ?? '', /^\d+$/);
      });

      test('422 validation_error for days outside 1..90; 401 without a key', async () => {
        const { key } = await tenant();
        for (const days of ['0', '91', 'abc', '1.5']) {
          assertError(await call('GET', `/v1/usage?days=${days}`, { key }), 422, 'validation_error', false);
        }
        assertError(await call('GET', '/v1/usage'), 401, 'invalid_api_key', false);
      });

      test('usage counts completed checks; idempotent replays are not new records', async () => {
        const { key } = await tenant();
        const body = { tx_hash: TRON_FIXTURE_TX.trxTransferToNewAccount, network: 'tron' };
        await check(key, body, { 'idempotency-key': 'u-1' });
        await check(key, body, { 'idempotency-key': 'u-1' });
        const usage = await call('GET', '/v1/usage', { key });
        assert.equal(usage.json.recent.requests, 1);
      });
    });

    describe('service-level failures', () => {
      /** A second service on its own server: no TRON provider, a limit store or a quota store that fails. */
      async function withService(
        variant: 'no_chain' | 'limits_down' | 'quota_down' | 'stalled',
        run: (url: string, key: string) => Promise<void>,
      ) {
        const stores = await options.createStores();
        // `begin` counts the rate (both endpoints) and reserves; `finish` bills; the usage report reads days.
        if (variant === 'limits_down') stores.checks.begin = () => Promise.reject(new Error('limit store down'));
        if (variant === 'quota_down') {
          // Fails when billing: the reservation must still be released.
          const finish = stores.checks.finish.bind(stores.checks);
          stores.checks.finish = (params) =>
            params.reservation?.commit ? Promise.reject(new Error('quota store down')) : finish(params);
        }
        if (variant === 'stalled') {
          stores.checks.begin = () => new Promise(() => {});
          stores.usage.readUsageDays = () => new Promise(() => {});
        }
        const other = createSafetyService(
          stores,
          { chain: variant === 'no_chain' ? null : chain, risk },
          { deadlineMs: DEADLINE_MS },
        );
        const { key } = await tenant({}, 'active', other);
        const otherServer = await startServer(other);
        try {
          await run(otherServer.url, key);
        } finally {
          await otherServer.close();
          await other.close({ timeoutMs: 100 });
        }
      }

      test('503 api_not_configured without a TRON provider', async () => {
        await withService('no_chain', async (url, key) => {
          const body = JSON.stringify({ tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' });
          assertError(await call('POST', '/v1/transaction/check', { url, key, body }), 503, 'api_not_configured');
        });
      });

      test('503 rate_limiter_unavailable when limits cannot be enforced: fail closed, never unmetered', async () => {
        await withService('limits_down', async (url, key) => {
          const body = JSON.stringify({ tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' });
          assertError(
            await call('POST', '/v1/transaction/check', { url, key, body }),
            503,
            'rate_limiter_unavailable',
            true,
          );
          assertError(await call('GET', '/v1/usage', { url, key }), 503, 'rate_limiter_unavailable', true);
        });
      });

      test('500 internal_error in the envelope when billing fails; the reservation is released, nothing billed', async () => {
        await withService('quota_down', async (url, key) => {
          const body = JSON.stringify({ tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' });
          assertError(await call('POST', '/v1/transaction/check', { url, key, body }), 500, 'internal_error', false);
          const usage = await call('GET', '/v1/usage', { url, key });
          assert.equal(usage.json.period.reserved, 0);
          assert.equal(usage.json.period.used, 0);
        });
      });

      test('504 request_timeout at the deadline, for both endpoints', async () => {
        // Providers budget their calls to answer before the deadline; a store that stops answering does not.
        await withService('stalled', async (url, key) => {
          const body = JSON.stringify({ tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' });
          assertError(await call('POST', '/v1/transaction/check', { url, key, body }), 504, 'request_timeout', true);
          assertError(await call('GET', '/v1/usage', { url, key }), 504, 'request_timeout', true);
        });
      });
    });

    describe('routing', () => {
      test('unknown path and wrong method answer in the envelope', async () => {
        const { key } = await tenant();
        // The spec has no routing code: the core answers validation_error with the HTTP status.
        assertError(await call('GET', '/v1/nothing-here', { key }), 404, 'validation_error', false);
        const wrong = await call('GET', '/v1/transaction/check', { key });
        assertError(wrong, 405, 'validation_error', false);
        assert.equal(wrong.headers.allow, 'POST');
        const wrongUsage = await call('POST', '/v1/usage', { key, body: '{}' });
        assertError(wrongUsage, 405, 'validation_error', false);
        assert.equal(wrongUsage.headers.allow, 'GET');
      });
    });
  });
}
