import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createRiskProviders, createSafetyService, type SafetyStores } from '@tron-safety/core';
import { instantChain, instantRisk, seedTenant } from '@tron-safety/core/testing';
import { createMemoryStores } from '@tron-safety/store-memory';
import { request } from 'undici';
import { staleReason } from '../build-state.mjs';
import { DEFAULT_HTTP_LIMITS, parseConfig } from '../src/config.js';
import { createHttpServer, listen, stopAccepting, type Framework } from '../src/http-app.js';
import { createLogger, withRequestLog } from '../src/log.js';
import { withHostRoutes } from '../src/routes.js';
import { startTestHost, TEST_KEY, type TestHost } from './support.js';

// Hardened HTTP: slow clients are cut off, connections are capped, and every answer (200, 4xx,
// 5xx) carries Cache-Control: no-store and X-Content-Type-Options: nosniff through both adapters.

/** Opens a raw connection, sends `data`, and resolves with what came back and when the server closed it. */
function trickle(url: string, data: string): Promise<{ answer: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.write(data));
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('close', () => resolve({ answer, closedAfterMs: performance.now() - started }));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error('the server never closed the connection')));
  });
}

describe('Hardened HTTP: server timeouts and the connection cap', () => {
  let t: TestHost;
  before(async () => {
    t = await startTestHost({ HTTP_MAX_CONNECTIONS: '3' }, (config) => ({
      ...config,
      http: { ...config.http, requestTimeoutMs: 1_000, headersTimeoutMs: 600 },
    }));
  });
  after(() => t?.host.stop('test end'));

  test('the defaults: 15 s for a whole request, 10 s for headers, 5 s keep-alive, 1024 connections', () => {
    assert.deepEqual(DEFAULT_HTTP_LIMITS, {
      maxConnections: 1024,
      requestTimeoutMs: 15_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 5_000,
    });
    assert.deepEqual(parseConfig({ HTTP_MAX_CONNECTIONS: '10' })._unsafeUnwrap().http.maxConnections, 10);
    assert.equal(parseConfig({ HTTP_MAX_CONNECTIONS: '0' })._unsafeUnwrapErr().field, 'HTTP_MAX_CONNECTIONS');
    assert.equal(t.host.server.requestTimeout, 1_000);
    assert.equal(t.host.server.keepAliveTimeout, 5_000);
  });

  test('a client that has not sent its whole body within the request timeout is cut off (408), in time', async () => {
    const headers = `POST /v1/transaction/check HTTP/1.1\r\nHost: x\r\nX-API-Key: ${TEST_KEY}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"tx_hash":`;
    const { answer, closedAfterMs } = await trickle(t.host.url, headers);
    assert.match(answer, /^HTTP\/1\.1 408/);
    assert.ok(closedAfterMs >= 900 && closedAfterMs < 2_500, `closed after ${Math.round(closedAfterMs)} ms`);
  });

  test('a client that never finishes its headers is cut off too', async () => {
    const { closedAfterMs } = await trickle(t.host.url, 'GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    assert.ok(closedAfterMs < 2_500, `closed after ${Math.round(closedAfterMs)} ms`);
  });

  test('HTTP_MAX_CONNECTIONS: past the cap a new connection is closed at once; the open ones still answer', async () => {
    const { hostname, port } = new URL(t.host.url);
    const open = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<ReturnType<typeof connect>>((resolve) => {
            const s = connect(Number(port), hostname, () => resolve(s));
          }),
      ),
    );
    try {
      await new Promise((r) => setTimeout(r, 50));
      const extra = await trickle(t.host.url, 'GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.equal(extra.answer, '');
      const answered = await new Promise<string>((resolve) => {
        let text = '';
        open[0]!.on('data', (chunk) => {
          text += chunk;
          if (text.includes('business_access')) resolve(text);
        });
        open[0]!.write('GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\n');
      });
      assert.match(answered, /^HTTP\/1\.1 200/);
    } finally {
      for (const socket of open) socket.destroy();
    }
  });
});

/**
 * Stores that fail in two ways: admitting one key (`checks.begin`; its requests answer 503
 * rate_limiter_unavailable) and reading a 90-day usage report (500 internal_error).
 */
function failingStores(): SafetyStores {
  const stores = createMemoryStores();
  const checks = stores.checks;
  const usage = stores.usage;
  return {
    ...stores,
    checks: {
      begin: async (params) => {
        if ('apiKeyHash' in params.credential && params.credential.apiKeyHash === BROKEN_HASH) {
          throw new Error('store down');
        }
        return checks.begin(params);
      },
      finish: (params) => checks.finish(params),
    },
    usage: {
      recordUsage: (record) => usage.recordUsage(record),
      readUsageDays: async (params) => {
        if (Date.parse(params.lastDay) - Date.parse(params.firstDay) === 89 * 86_400_000) throw new Error('store down');
        return usage.readUsageDays(params);
      },
      purgeUsageBefore: (day, limit) => usage.purgeUsageBefore(day, limit),
    },
  };
}
const BROKEN_KEY = 'tsk_live_broken_store_000000000000000000';
const BROKEN_HASH = (await import('@tron-safety/core')).hashApiKey(BROKEN_KEY);

for (const framework of ['express', 'koa'] as Framework[]) {
  describe(`Hardened HTTP: the API headers on every answer (${framework})`, () => {
    let url = '';
    let close: () => Promise<void>;
    let apiKey = '';
    let service: ReturnType<typeof createSafetyService>;
    before(async () => {
      service = createSafetyService(failingStores(), { chain: instantChain(), risk: instantRisk() });
      apiKey = (await seedTenant(service)).apiKey;
      const server = createHttpServer(withRequestLog(withHostRoutes(service), createLogger('silent')), framework);
      url = (await listen(server, 0, '127.0.0.1')).url;
      close = () => stopAccepting(server);
    });
    after(() => close?.());

    test('200, 401, 404, 405, 422 (also over the size limit), 500 and 503 all carry no-store and nosniff', async () => {
      const post = (body: string, headers: Record<string, string> = {}) => ({
        method: 'POST' as const,
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...headers },
        body,
      });
      const valid = JSON.stringify({ tx_hash: '11'.repeat(32), network: 'tron' });
      const cases: [string, Parameters<typeof request>[1], number][] = [
        ['/v1/transaction/check', post(valid), 200],
        ['/v1/usage', { headers: { 'x-api-key': apiKey } }, 200],
        ['/', {}, 200],
        ['/v1/openapi.json', {}, 200],
        ['/v1/status', {}, 200],
        ['/v1/usage', { headers: { 'x-api-key': 'tsk_live_nope' } }, 401],
        ['/v1/nothing', {}, 404],
        ['/v1/transaction/check', { method: 'GET' }, 405],
        ['/v1/transaction/check', post('{"tx_hash":1}'), 422],
        ['/v1/transaction/check', post(`{"a":"${'x'.repeat(5000)}"}`), 422],
        ['/v1/usage', { headers: { 'x-api-key': BROKEN_KEY } }, 503],
        ['/v1/usage?days=90', { headers: { 'x-api-key': apiKey } }, 500],
      ];
      for (const [path, options, status] of cases) {
        const res = await request(`${url}${path}`, options);
        await res.body.dump();
        assert.equal(res.statusCode, status, path);
        assert.equal(res.headers['cache-control'], 'no-store', `${status} ${path}`);
        assert.equal(res.headers['x-content-type-options'], 'nosniff', `${status} ${path}`);
      }
      service.setApiDisabled(true);
      const paused = await request(`${url}/v1/usage`, { headers: { 'x-api-key': apiKey } });
      await paused.body.dump();
      service.setApiDisabled(false);
      assert.equal(paused.statusCode, 503);
      assert.equal(paused.headers['cache-control'], 'no-store');
      assert.equal(paused.headers['x-content-type-options'], 'nosniff');
    });

    test("the adapter's own 500, when the handler itself rejects, carries them too", async () => {
      const server = createHttpServer({ handle: () => Promise.reject(new Error('boom')) }, framework);
      const { url: broken } = await listen(server, 0, '127.0.0.1');
      try {
        const res = await request(`${broken}/v1/usage`);
        await res.body.dump();
        assert.equal(res.statusCode, 500);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
      } finally {
        await stopAccepting(server);
      }
    });

    test('GET / is a short HTML page pointing to the OpenAPI document and the docs', async () => {
      const res = await request(`${url}/`);
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      const page = await res.body.text();
      assert.match(page, /href="\/v1\/openapi\.json"/);
      assert.match(page, /Documentation/);
    });
  });
}

test('an app embedding the core gets the headers from handle() itself', async () => {
  const service = createSafetyService(createMemoryStores(), {
    chain: null,
    risk: createRiskProviders()._unsafeUnwrap(),
  });
  const response = await service.handle({
    method: 'GET',
    path: '/v1/usage',
    query: {},
    headers: {},
    body: new Uint8Array(),
  });
  assert.equal(response.status, 401);
  assert.equal(response.headers['Cache-Control'], 'no-store');
  assert.equal(response.headers['X-Content-Type-Options'], 'nosniff');
});

describe('--help and --version on every bin, without starting anything', () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const built = staleReason(root) === null;
  const run = (entry: string, ...args: string[]) =>
    spawnSync(
      process.execPath,
      built
        ? [`examples/host/dist/${entry}.js`, ...args]
        : ['--conditions=source', '--import', 'tsx', `examples/host/src/${entry}.ts`, ...args],
      { cwd: root, encoding: 'utf8', timeout: 30_000, env: { ...process.env, PORT: '1' } },
    );

  test('tron-safety-host (main.js): --help prints usage and exits 0 without listening; --version; bad arguments 64', () => {
    const help = run('main', '--help');
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: tron-safety-host/);
    assert.doesNotMatch(help.stdout + help.stderr, /listening/);
    const version = run('main', '--version');
    assert.equal(version.status, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
    assert.equal(run('main', '--bogus').status, 64);
  });

  test('tron-safety-admin: --help and --version', () => {
    const help = run('admin', '--help');
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /Usage: tron-safety-admin/);
    const version = run('admin', '--version');
    assert.equal(version.status, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  });
});
