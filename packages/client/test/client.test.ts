import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createSafetyClient, type CheckOptions, type SafetyClientOptions } from '../src/index.js';
import { MAX_TIMER_MS, sleep } from '../src/retry.js';
import { checkResponse } from './responses.js';

// The client against a scripted API on 127.0.0.1: each answer is chosen per attempt, and every
// request is recorded, so the spec's client rules (docs/SPEC.md, Errors) are seen on the wire.

type Reply = (req: IncomingMessage, res: ServerResponse) => void;
interface Seen {
  key: string | undefined;
  requestId: string | undefined;
  body: string;
  apiKey: string | undefined;
  at: number;
}

const envelope = (code: string, retryable: boolean) =>
  JSON.stringify({ request_id: 'r-err', error: { code, message: 'scripted', retryable } });
const json =
  (status: number, body: string, headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'r-1', ...headers });
    res.end(body);
  };
const REQUEST = { tx_hash: 'ab'.repeat(32), network: 'tron' as const };
const DAY_MS = 86_400_000;

describe('client: retries and idempotency (docs/SPEC.md, Errors)', () => {
  let script: Reply[] = [];
  const seen: Seen[] = [];
  let url = '';
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({
        key: req.headers['idempotency-key'] as string | undefined,
        requestId: req.headers['x-request-id'] as string | undefined,
        body,
        apiKey: req.headers['x-api-key'] as string | undefined,
        at: performance.now(),
      });
      (script.shift() ?? json(500, 'script exhausted'))(req, res);
    });
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function run(replies: Reply[], options: Partial<SafetyClientOptions> = {}, call: CheckOptions = {}) {
    script = replies;
    seen.length = 0;
    const client = createSafetyClient({ baseUrl: url, apiKey: 'tsk_test', retry: { baseDelayMs: 5 }, ...options });
    try {
      return await client.check(REQUEST, call);
    } finally {
      await client.close();
    }
  }

  test('Errors 4: after a network failure the same body is sent again with the same generated Idempotency-Key', async () => {
    const reset: Reply = (req) => req.socket.destroy();
    const outcome = await run([reset, json(200, checkResponse())]);
    assert.ok(outcome.isOk());
    assert.equal(seen.length, 2);
    assert.match(seen[0]!.key!, /^[0-9a-f-]{36}$/);
    assert.equal(seen[1]!.key, seen[0]!.key);
    assert.equal(seen[1]!.body, seen[0]!.body);
    assert.equal(outcome.value.idempotencyKey, seen[0]!.key);
    assert.equal(seen[0]!.apiKey, 'tsk_test');
  });

  test('Errors 1: Retry-After is honoured before the retry', async () => {
    const outcome = await run([
      json(429, envelope('rate_limit_exceeded', true), { 'retry-after': '1' }),
      json(200, checkResponse()),
    ]);
    assert.ok(outcome.isOk());
    assert.ok(seen[1]!.at - seen[0]!.at >= 950, `waited ${seen[1]!.at - seen[0]!.at} ms`);
    assert.equal(outcome.value.attempts, 2);
  });

  test('Errors 1: no wait past the overall deadline; the last error comes back with its Retry-After', async () => {
    const started = performance.now();
    const outcome = await run(
      [json(503, envelope('api_disabled', true), { 'retry-after': '60' })],
      { deadlineMs: 2_000 },
      { idempotencyKey: 'order-7' },
    );
    assert.ok(outcome.isErr() && outcome.error.kind === 'api_error');
    assert.equal(outcome.error.retryAfterMs, 60_000);
    assert.equal(outcome.error.idempotencyKey, 'order-7', 'the caller keeps the key for a later retry');
    assert.ok(performance.now() - started < 1_000);
  });

  test('Errors 1: attempts are capped, each backoff within its jittered bound', async () => {
    const busy = json(503, envelope('rate_limiter_unavailable', true));
    const outcome = await run([busy, busy, busy, busy], { retry: { maxAttempts: 3, baseDelayMs: 40, maxDelayMs: 60 } });
    assert.ok(outcome.isErr() && outcome.error.kind === 'api_error' && outcome.error.attempts === 3);
    assert.equal(seen.length, 3);
    assert.ok(seen[2]!.at - seen[1]!.at < 60 + 50, 'the second wait is capped by maxDelayMs');
    assert.equal(new Set(seen.map((s) => s.key)).size, 1);
  });

  test('Errors 2 and 5: a replayed error, a non-retryable error and a conflict are not retried', async () => {
    for (const reply of [
      json(503, envelope('provider_unavailable', true), { 'idempotent-replayed': 'true' }),
      json(422, envelope('malformed_tx_hash', false)),
      json(409, envelope('idempotency_conflict', false)),
    ]) {
      const outcome = await run([reply, json(200, checkResponse())]);
      assert.ok(outcome.isErr() && outcome.error.kind === 'api_error');
      assert.equal(seen.length, 1);
    }
  });

  test('Errors: a gateway answer without the envelope is unresolved and retried with the same key', async () => {
    const gateway: Reply = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad Gateway</html>');
    };
    const outcome = await run(
      [gateway, gateway],
      { retry: { maxAttempts: 2, baseDelayMs: 5 } },
      {
        idempotencyKey: 'order-8',
      },
    );
    assert.ok(outcome.isErr() && outcome.error.kind === 'unresolved');
    assert.equal(outcome.error.reason, 'bad_response');
    assert.equal(outcome.error.status, 502);
    assert.deepEqual(
      seen.map((s) => s.key),
      ['order-8', 'order-8'],
    );
  });

  test("a 2xx other than 200 is not the API's answer: unresolved bad_response with the key, not sent again", async () => {
    const created = json(201, checkResponse());
    const noContent: Reply = (_req, res) => res.writeHead(204).end();
    for (const [reply, status] of [
      [created, 201],
      [noContent, 204],
    ] as const) {
      const outcome = await run([reply, json(200, checkResponse())], {}, { idempotencyKey: 'order-2xx' });
      assert.ok(outcome.isErr() && outcome.error.kind === 'unresolved', String(status));
      assert.equal(outcome.error.reason, 'bad_response');
      assert.equal(outcome.error.status, status);
      assert.match(outcome.error.message, new RegExp(`^HTTP ${status}: the API answers a success with 200`));
      assert.equal(outcome.error.idempotencyKey, 'order-2xx', 'kept: the check may have run');
      assert.equal(seen.length, 1);
    }
  });

  test("Errors 1: without the API's envelope only a gateway's 429, 502, 503 or 504 is retried; a 404 asks about the base URL", async () => {
    const page =
      (status: number, body: string, type = 'text/html'): Reply =>
      (_req, res) =>
        res.writeHead(status, { 'content-type': type }).end(body);
    const cases: [Reply, number, number][] = [
      [page(404, '<html>Not Found</html>'), 404, 1],
      [page(404, ''), 404, 1],
      [page(301, '', 'text/plain'), 301, 1],
      [page(500, 'Internal Server Error', 'text/plain'), 500, 1],
      [page(401, '{"message":"Unauthorized"}', 'application/json'), 401, 1],
      [page(429, 'slow down'), 429, 2],
      [page(502, '<html>Bad Gateway</html>'), 502, 2],
      [page(503, ''), 503, 2],
      [page(504, '<html>Gateway Timeout</html>'), 504, 2],
    ];
    for (const [reply, status, attempts] of cases) {
      const outcome = await run([reply, reply], { retry: { maxAttempts: 2, baseDelayMs: 1 } }, { idempotencyKey: 'k' });
      assert.ok(outcome.isErr() && outcome.error.kind === 'unresolved', String(status));
      assert.equal(outcome.error.reason, 'bad_response');
      assert.equal(outcome.error.status, status);
      assert.equal(outcome.error.idempotencyKey, 'k');
      assert.equal(seen.length, attempts, `HTTP ${status}`);
      const hint = status === 404 || status === 301;
      assert.equal(/: is the base URL right\?$/.test(outcome.error.message), hint, outcome.error.message);
    }
  });

  test('Response rules: a 200 with fewer than 2 or more than 5 reasons is bad_response and not sent again', async () => {
    const reason = { code: 'TX_FINALIZED', category: 'transaction', severity: 'info' };
    for (const count of [0, 1, 6]) {
      const reasons = Array.from({ length: count }, () => reason);
      const outcome = await run([json(200, checkResponse({ reasons })), json(200, checkResponse())]);
      assert.ok(outcome.isErr() && outcome.error.kind === 'unresolved', String(count));
      assert.equal(outcome.error.reason, 'bad_response');
      assert.match(outcome.error.message, /reasons: expected 2 to 5 reasons, found an array/);
      assert.equal(seen.length, 1);
    }
    for (const count of [2, 5]) {
      const reasons = Array.from({ length: count }, () => reason);
      assert.ok((await run([json(200, checkResponse({ reasons }))])).isOk(), String(count));
    }
  });

  test('Versioning: unknown fields and future reason codes are tolerated, and the raw body is kept', async () => {
    const body = checkResponse({
      future_field: { nested: true },
      reasons: [
        { code: 'TX_FINALIZED', category: 'transaction', severity: 'info' },
        { code: 'SOMETHING_NEW', category: 'novel', severity: 'notice' },
      ],
    });
    const outcome = await run([json(200, body)]);
    assert.ok(outcome.isOk());
    assert.equal(outcome.value.raw, body);
    assert.equal(outcome.value.body.reasons[1]!.code, 'SOMETHING_NEW');
  });

  test('a 200 whose consumed fields do not decode is unresolved and not retried (a retry would replay it)', async () => {
    const outcome = await run([
      json(200, checkResponse({ overall_state: 'PROBABLY_FINE' })),
      json(200, checkResponse()),
    ]);
    assert.ok(outcome.isErr() && outcome.error.kind === 'unresolved');
    assert.match(outcome.error.message, /overall_state/);
    assert.equal(seen.length, 1);
  });

  test('a 200 over 1 MiB is bad_response with its status and is not sent again (a retry would replay it)', async () => {
    const big = json(200, checkResponse({ padding: 'x'.repeat(1_100_000) }));
    const outcome = await run([big, big]);
    assert.ok(outcome.isErr() && outcome.error.kind === 'unresolved');
    assert.equal(outcome.error.reason, 'bad_response');
    assert.equal(outcome.error.status, 200);
    assert.match(outcome.error.message, /larger than 1 MiB/);
    assert.equal(seen.length, 1);
  });

  test("a 200 that is not application/json (a proxy's page) is bad_response and not sent again", async () => {
    const noType: Reply = (_req, res) => res.writeHead(200).end(checkResponse());
    for (const reply of [json(200, checkResponse(), { 'content-type': 'text/html' }), noType]) {
      const outcome = await run([reply, json(200, checkResponse())]);
      assert.ok(outcome.isErr() && outcome.error.kind === 'unresolved');
      assert.equal(outcome.error.reason, 'bad_response');
      assert.match(outcome.error.message, /^HTTP 200 with Content-Type (text\/html|none)$/);
      assert.equal(seen.length, 1);
    }
    const charset = await run([json(200, checkResponse(), { 'content-type': 'Application/JSON; charset=utf-8' })]);
    assert.ok(charset.isOk(), 'parameters and case do not matter');
  });

  test('Headers: a requestId HTTP cannot carry unchanged is not_sent: nothing sent, nothing retried', async () => {
    for (const requestId of ['order\r\n42', 'order\u201342', ' order-42']) {
      const outcome = await run([json(200, checkResponse())], {}, { requestId });
      assert.ok(outcome.isErr(), JSON.stringify(requestId));
      assert.equal(outcome.error.kind, 'not_sent');
      assert.match(outcome.error.message, /^requestId cannot be sent as an HTTP header/);
      assert.equal(outcome.error.attempts, 0);
      assert.equal(seen.length, 0);
    }
    assert.ok((await run([json(200, checkResponse())], {}, { requestId: 'order-42' })).isOk());
    assert.equal(seen[0]!.requestId, 'order-42');
  });

  test('Configuration: an apiKey HTTP cannot carry unchanged, or a base URL that is not http(s), throws at creation', () => {
    for (const apiKey of ['tsk_live_abc\n', 'tsk_live_\u2013', 'tsk_live_abc ']) {
      assert.throws(() => createSafetyClient({ baseUrl: url, apiKey }), TypeError, JSON.stringify(apiKey));
    }
    for (const baseUrl of ['localhost:8080', 'ftp://127.0.0.1', 'not a url']) {
      assert.throws(() => createSafetyClient({ baseUrl, apiKey: 'k' }), TypeError, baseUrl);
    }
  });

  test("Errors 1: a deadline or attempt timeout of NaN, 0 or less throws at creation; a call's own deadlineMs is not_sent", async () => {
    for (const limits of [
      { deadlineMs: Number.NaN },
      { deadlineMs: 0 },
      { attemptTimeoutMs: -1 },
      { attemptTimeoutMs: Number.NaN },
    ]) {
      assert.throws(
        () => createSafetyClient({ baseUrl: url, apiKey: 'k', ...limits }),
        RangeError,
        JSON.stringify(limits),
      );
    }
    for (const deadlineMs of [Number.NaN, -5]) {
      const outcome = await run([json(200, checkResponse())], {}, { deadlineMs, idempotencyKey: 'order-9' });
      assert.ok(outcome.isErr() && outcome.error.kind === 'not_sent', String(deadlineMs));
      assert.equal(outcome.error.idempotencyKey, 'order-9');
      assert.equal(seen.length, 0);
    }
  });

  test("Errors 1: a Retry-After no timer can keep (a quota's, weeks) comes back to the caller, never resent at once", async () => {
    const quota = json(429, envelope('quota_exceeded', true), { 'retry-after': String(25 * 86_400) });
    const outcome = await run([quota, quota, quota], { deadlineMs: 60 * DAY_MS, retry: { maxAttempts: 3 } });
    assert.ok(outcome.isErr() && outcome.error.kind === 'api_error');
    assert.equal(outcome.error.retryAfterMs, 25 * DAY_MS);
    assert.equal(seen.length, 1);
    assert.throws(() => sleep(MAX_TIMER_MS + 1), RangeError, 'a longer sleep would end after 1 ms');
  });

  test("Errors 1: an attempt timeout beyond a timer's limit waits the limit, not 1 ms", async () => {
    const slow: Reply = (req, res) => setTimeout(() => json(200, checkResponse())(req, res), 50);
    const outcome = await run([slow], {
      attemptTimeoutMs: 30 * DAY_MS,
      deadlineMs: 60 * DAY_MS,
      retry: { maxAttempts: 1 },
    });
    assert.ok(outcome.isOk(), outcome.isErr() ? outcome.error.message : '');
  });

  test("a caller's abort during a backoff makes the outcome unresolved (aborted), not the error before it", async () => {
    const controller = new AbortController();
    const busy: Reply = (req, res) => {
      json(503, envelope('provider_unavailable', true), { 'retry-after': '5' })(req, res);
      setTimeout(() => controller.abort(), 50);
    };
    const started = performance.now();
    const outcome = await run([busy], {}, { signal: controller.signal, idempotencyKey: 'order-10' });
    assert.ok(outcome.isErr() && outcome.error.kind === 'unresolved');
    assert.equal(outcome.error.reason, 'aborted');
    assert.equal(outcome.error.attempts, 1);
    assert.equal(outcome.error.idempotencyKey, 'order-10', 'the key to resend with');
    assert.equal(seen.length, 1);
    assert.ok(performance.now() - started < 2_000, 'the backoff ended with the abort');
  });

  test('usage: a retryable error is retried, and days goes in the query', async () => {
    const usage = JSON.stringify({
      tenant_id: '0f5e3f3c-7d1a-4c59-9a43-2d1de0a0c0de',
      plan: null,
      limits: { rate_limit_per_minute: 1, max_concurrent_requests: 1, enabled_networks: ['tron'] },
      period: { start: 'a', end: 'b', used: 0, reserved: 0, limit: 1, remaining: 1 },
      recent: {
        days: 7,
        requests: 0,
        billable: 0,
        limited_data: 0,
        errors: 0,
        average_latency_ms: null,
        by_network: {},
        by_overall_state: {},
      },
    });
    let path = '';
    script = [
      json(504, envelope('request_timeout', true)),
      (req, res) => ((path = req.url!), json(200, usage)(req, res)),
    ];
    const client = createSafetyClient({ baseUrl: `${url}/`, apiKey: 'k', retry: { baseDelayMs: 5 } });
    const outcome = await client.usage({ days: 7 });
    await client.close();
    assert.ok(outcome.isOk());
    assert.equal(path, '/v1/usage?days=7');
    assert.equal(outcome.value.attempts, 2);
  });
});
