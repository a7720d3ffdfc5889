import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errAsync, ResultAsync } from 'neverthrow';
import { createMemoryStores } from '@tron-safety/store-memory';
import type { ChainFactsProvider } from '../src/chain/facts.js';
import { describeError } from '../src/runtime/errors.js';
import { displayPrefix, generateApiKey, hashApiKey, sameKeyHash } from '../src/runtime/keys.js';
import { withSignalOf } from '../src/runtime/lazy-signal.js';
import { rateLimitHeaders } from '../src/runtime/limit-headers.js';
import { requestIdFrom } from '../src/runtime/request-id.js';
import { resolveOptions } from '../src/runtime/context.js';
import { createSafetyService } from '../src/runtime/service.js';
import { minuteOf, monthOf } from '../src/runtime/time.js';
import {
  checkBody,
  instantChain,
  instantRisk,
  seedTenant,
  storedCheckResponse,
} from '../src/testing/service-harness.js';

const TX = 'a'.repeat(64);

describe('error mapping', () => {
  test('Response headers: Retry-After is whole seconds, rounded up, at least 1', () => {
    assert.equal(
      describeError({ kind: 'quota_exceeded', retryAfterSeconds: 86_400.2 }).headers['Retry-After'],
      '86401',
    );
    assert.equal(describeError({ kind: 'rate_limit_exceeded', retryAfterSeconds: 0 }).headers['Retry-After'], '1');
  });
});

describe('small parts', () => {
  test("a provider context's signal is its source's, read only when read, and kept by a spread copy", () => {
    let reads = 0;
    const signal = AbortSignal.timeout(5000);
    const ctx = withSignalOf(
      {
        get signal() {
          reads++;
          return signal;
        },
      },
      { deadlineAt: 1 },
    );
    assert.equal(reads, 0, 'made on first read, never before');
    const literal = Object.getOwnPropertyDescriptor(
      {
        get signal() {
          return signal;
        },
      },
      'signal',
    )!;
    const own = Object.getOwnPropertyDescriptor(ctx, 'signal')!;
    assert.deepEqual(
      [own.enumerable, own.configurable, own.set],
      [literal.enumerable, literal.configurable, undefined],
    );
    const copy = { ...ctx, deadlineAt: 0 };
    assert.equal(copy.signal, signal);
    assert.equal(ctx.signal, signal);
    assert.deepEqual(Object.keys(copy).sort(), ['deadlineAt', 'signal']);
  });

  test('request id: 1–128 of [A-Za-z0-9._:-], else generated', () => {
    const gen = () => 'generated';
    assert.equal(requestIdFrom('a.b_c:d-1', gen), 'a.b_c:d-1');
    assert.equal(requestIdFrom('x'.repeat(128), gen), 'x'.repeat(128));
    for (const bad of [undefined, '', 'x'.repeat(129), 'a b', 'a/b', ['a', 'b']])
      assert.equal(requestIdFrom(bad, gen), 'generated');
  });

  test('keys: prefixed, 256-bit, hashed, compared in constant time', () => {
    const key = generateApiKey();
    assert.match(key, /^tsk_live_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(generateApiKey(), key);
    assert.equal(displayPrefix(key), key.slice(0, 17));
    assert.ok(sameKeyHash(hashApiKey(key), hashApiKey(key)));
    assert.ok(!sameKeyHash(hashApiKey(key), hashApiKey(`${key}x`)));
    assert.ok(!sameKeyHash('zz', hashApiKey(key)));
  });

  test('UTC month and minute windows, across the year end', () => {
    const month = monthOf(new Date('2026-12-31T23:59:59.999Z'));
    assert.deepEqual(month, {
      key: '2026-12',
      start: new Date('2026-12-01T00:00:00.000Z'),
      end: new Date('2027-01-01T00:00:00.000Z'),
    });
    assert.deepEqual(minuteOf(new Date('2026-12-31T23:59:59.999Z')), {
      start: new Date('2026-12-31T23:59:00.000Z'),
      end: new Date('2027-01-01T00:00:00.000Z'),
    });
  });

  test('rate headers: X-RateLimit-* in Unix seconds beside the IETF fields in delay-seconds', () => {
    const now = new Date('2026-01-01T00:00:45.500Z');
    assert.deepEqual(rateLimitHeaders(100, 101, new Date('2026-01-01T00:01:00.000Z'), now), {
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(Date.UTC(2026, 0, 1, 0, 1) / 1000),
      'RateLimit-Policy': '"minute";q=100;w=60',
      RateLimit: '"minute";r=0;t=15',
    });
  });
});

describe('providers outside their contract', () => {
  const post = (service: ReturnType<typeof createSafetyService>, apiKey: string, key: string) =>
    service.handle({
      method: 'POST',
      path: '/v1/transaction/check',
      query: {},
      headers: { 'x-api-key': apiKey, 'idempotency-key': key },
      body: checkBody(TX),
    });

  test('a chain provider that ignores the signal still ends at the deadline with 504', async () => {
    const never: ChainFactsProvider = { getTransactionFacts: () => new ResultAsync(new Promise(() => {})) };
    const stores = createMemoryStores();
    const service = createSafetyService(stores, { chain: never, risk: instantRisk() }, { deadlineMs: 150 });
    const { apiKey, organizationId } = await seedTenant(service);
    const started = performance.now();
    const r = await post(service, apiKey, 'k');
    assert.equal(r.status, 504);
    assert.ok(performance.now() - started < 1000);
    assert.deepEqual(
      await stores.quota.getUsage({ organizationId, period: monthOf(new Date()).key, now: new Date() }),
      { used: 0, reserved: 0 },
    );
  });

  test('a provider that throws: 500 in the envelope, key and reservation released, hook failures ignored', async () => {
    let throwing = true;
    const chain: ChainFactsProvider = {
      getTransactionFacts: () => {
        if (throwing) throw new Error('bug');
        return errAsync({ kind: 'unavailable', detail: 'down' });
      },
    };
    const service = createSafetyService(
      createMemoryStores(),
      { chain, risk: instantRisk() },
      {
        onError: () => {
          throw new Error('the hook fails too');
        },
      },
    );
    const { apiKey } = await seedTenant(service);
    const r = await post(service, apiKey, 'k');
    assert.equal(r.status, 500);
    assert.equal(JSON.parse(r.body).error.code, 'internal_error');
    assert.equal(JSON.parse(r.body).request_id, r.headers['X-Request-ID']);
    throwing = false;
    const again = await post(service, apiKey, 'k');
    assert.equal(again.status, 503, 'the key was released: the retry executed');
    assert.equal(again.headers['Idempotent-Replayed'], undefined);
  });
});

describe('stored idempotency responses', () => {
  test("Idempotency: a stored result keeps its X-Request-ID, the body's request_id (a 0.1.0 host replays the stored headers as they are); a replay carries the original id once", async () => {
    const stores = createMemoryStores();
    const service = createSafetyService(stores, { chain: instantChain(), risk: instantRisk() });
    const { apiKey, organizationId } = await seedTenant(service);
    const first = await service.check({ apiKey, request: checkBody(TX), idempotencyKey: 'k', requestId: 'first' });
    const stored = await storedCheckResponse(stores, organizationId, 'k', TX);
    assert.ok(stored, 'the result is stored');
    assert.deepEqual(stored.headers, { 'X-Request-ID': 'first' });
    assert.equal(stored.body, JSON.stringify(first.body));
    assert.equal(JSON.parse(stored.body).request_id, 'first');
    const replay = await service.check({ apiKey, request: checkBody(TX), idempotencyKey: 'k', requestId: 'second' });
    assert.equal(replay.replayed, true);
    assert.deepEqual(
      Object.entries(replay.headers).filter(([name]) => name.toLowerCase() === 'x-request-id'),
      [['X-Request-ID', 'first']],
    );
    assert.deepEqual(replay.body, first.body);
  });
});

describe('service options', () => {
  test('defaults: a 12 s deadline, 24 h retention, 1 s settle grace (inside the deadline), leases past them', () => {
    const o = resolveOptions({});
    assert.deepEqual([o.deadlineMs, o.idempotencyRetentionMs, o.settleGraceMs], [12_000, 86_400_000, 1000]);
    assert.ok(o.leaseMs > o.deadlineMs + o.settleGraceMs);
  });

  test('values that would silently turn a control off are refused', () => {
    for (const bad of [
      { deadlineMs: 0 },
      { deadlineMs: Number.NaN },
      { idempotencyRetentionSeconds: -1 },
      { idempotencyRetentionSeconds: Number.NaN },
      { idempotencyRetentionSeconds: Number.POSITIVE_INFINITY },
      // Shorter than the lease (default deadline + 30 s): a retry after a lost answer would bill again.
      { idempotencyRetentionSeconds: 1 },
      { deadlineMs: 1000, leaseMs: 60_001, idempotencyRetentionSeconds: 60 },
      { settleGraceMs: -5 },
      { deadlineMs: 1000, leaseMs: 1000 },
      { deadlineMs: 1000, settleGraceMs: 1000 },
    ]) {
      assert.throws(() => resolveOptions(bad), Error, JSON.stringify(bad));
    }
  });

  test('handle answers (never rejects) even for a request without headers', async () => {
    const service = createSafetyService(createMemoryStores(), { chain: instantChain(), risk: instantRisk() });
    const r = await service.handle({ method: 'GET', path: '/v1/usage', query: {}, body: new Uint8Array() } as never);
    assert.equal(r.status, 500);
    assert.equal(JSON.parse(r.body).error.code, 'internal_error');
  });
});

describe('embedding without HTTP', () => {
  test('check and usage answer typed results, the same as handle', async () => {
    const service = createSafetyService(createMemoryStores(), { chain: instantChain(), risk: instantRisk() });
    const { apiKey, organizationId } = await seedTenant(service);
    const checked = await service.check({
      apiKey,
      request: { tx_hash: TX, network: 'tron' },
      idempotencyKey: 'e',
      requestId: 'embed-1',
    });
    assert.ok(checked.ok);
    assert.equal(checked.status, 200);
    assert.equal(checked.body.request_id, 'embed-1');
    assert.equal(checked.body.coverage, 'complete');
    assert.equal(checked.replayed, false);
    const again = await service.check({ apiKey, request: checkBody(TX), idempotencyKey: 'e' });
    assert.ok(again.ok && again.replayed);
    const refused = await service.check({ apiKey: 'nope', request: { tx_hash: TX, network: 'tron' } });
    assert.ok(!refused.ok);
    assert.equal(refused.body.error.code, 'invalid_api_key');
    const usage = await service.usage({ apiKey, days: 1 });
    assert.ok(usage.ok);
    assert.equal(usage.body.tenant_id, organizationId);
    assert.equal(usage.body.period.used, 1);
    assert.equal(usage.body.recent.requests, 1);
  });
});
