import assert from 'node:assert/strict';
import net from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import type { CoreHttpHandler } from '../runtime/http.js';
import { validateCheckRequest } from '../validation/check-request.js';
import type { ConformanceServer } from './http-conformance.js';
import { echoHandler } from './service-harness.js';

type StartServer = (handler: CoreHttpHandler) => Promise<ConformanceServer>;

export interface AdapterConformanceOptions {
  /**
   * Serves `handler` through the adapter mounted *behind* the framework's usual JSON body parser
   * (its default options: a limit far above 4 KiB), with the adapter's parser-error handler mounted
   * as its README says, and the host's own error handling answering what remains with its status and
   * the text `host`. Runs the parser-first cases.
   */
  startBehindParser?: StartServer;
}

/**
 * The adapter-level HTTP suite every framework adapter runs: what reaches the handler (method,
 * path, query, repeated headers, raw bytes, the 4 KiB flag; nothing of an abandoned upload), what
 * goes back (status, headers, body), the host's own routes beside it and the 500 envelope when
 * `handle` rejects; with `startBehindParser`, the same rules behind a body parser.
 *
 * `startServer(handler)` serves `handler` through the adapter, mounted first in a host app on
 * 127.0.0.1, followed by the host's JSON body parser and its own route `POST /mine` that answers
 * `{ host: true, got: <the parsed body> }`; any other path is the host's 404.
 */
export function runAdapterConformance(
  name: string,
  startServer: StartServer,
  options: AdapterConformanceOptions = {},
): void {
  describe(`adapter conformance: ${name}`, () => {
    let ok: ConformanceServer;
    let limited: ConformanceServer;
    before(async () => {
      ok = await startServer(
        echoHandler(200, {
          'content-type': 'application/json; charset=utf-8',
          'x-request-id': 'r-1',
          'x-ratelimit-limit': '10',
        }),
      );
      // No content type from the handler here: the adapter must still label the body as JSON.
      limited = await startServer(echoHandler(429, { 'x-request-id': 'r-1', 'retry-after': '3' }));
    });
    after(() => Promise.all([ok?.close(), limited?.close()]));

    test('passes method, path, query, headers and the raw bytes; writes status, headers and body back, an error status too', async () => {
      const raw = '{ "tx_hash" : "ab" }';
      const received = {
        method: 'POST',
        path: '/v1/usage',
        query: { days: '7', x: ['1', '2'] },
        apiKey: 'k',
        body: raw,
        size: raw.length,
        tooLarge: false,
      };
      const cases = [
        { server: ok, status: 200, header: 'x-ratelimit-limit', value: '10' },
        { server: limited, status: 429, header: 'retry-after', value: '3' },
      ];
      for (const { server, status, header, value } of cases) {
        const res = await request(`${server.url}/v1/usage?days=7&x=1&x=2`, {
          method: 'POST',
          headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
          body: raw,
        });
        assert.equal(res.statusCode, status);
        assert.equal(res.headers['x-request-id'], 'r-1');
        assert.equal(res.headers[header], value);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.deepEqual(await res.body.json(), received);
      }
    });

    test('a header sent twice arrives as both values, not joined into one', async () => {
      const res = await request(`${ok.url}/v1/usage`, { headers: { 'x-api-key': ['k1', 'k2'] } });
      assert.deepEqual(((await res.body.json()) as { apiKey: unknown }).apiKey, ['k1', 'k2']);
    });

    test('Limits: a body over 4 KiB is flagged, by Content-Length and when chunked; 4 KiB exactly is passed on', async () => {
      const declared = await request(`${ok.url}/v1/transaction/check`, {
        method: 'POST',
        body: `{"a":"${'x'.repeat(5000)}"}`,
      });
      assert.equal(declared.statusCode, 422);
      assert.equal(declared.headers.connection, 'close', 'the server reads no more of an oversized body');
      assert.equal(((await declared.body.json()) as { tooLarge: boolean }).tooLarge, true);
      async function* chunks() {
        for (let i = 0; i < 10; i++) yield Buffer.from('x'.repeat(1000));
      }
      const chunked = await request(`${ok.url}/v1/transaction/check`, {
        method: 'POST',
        body: Readable.from(chunks()),
      });
      assert.equal(chunked.statusCode, 422);
      assert.equal(((await chunked.body.json()) as { tooLarge: boolean }).tooLarge, true);
      const whole = 'y'.repeat(4096);
      const exact = await request(`${ok.url}/v1/transaction/check`, { method: 'POST', body: whole });
      assert.equal(exact.statusCode, 200);
      assert.deepEqual(await exact.body.json(), {
        method: 'POST',
        path: '/v1/transaction/check',
        query: {},
        apiKey: null,
        body: whole,
        size: 4096,
        tooLarge: false,
      });
    });

    test("the host's own routes and body parser keep working beside it", async () => {
      const res = await request(`${ok.url}/mine`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      assert.deepEqual(await res.body.json(), { host: true, got: { a: 1 } });
      const other = await request(`${ok.url}/elsewhere`);
      assert.equal(other.statusCode, 404);
      await other.body.dump();
    });

    test('Billing: an upload the client abandoned before its Content-Length arrived never reaches the service', async () => {
      const handled: string[] = [];
      const server = await startServer({
        handle: async (req) => (handled.push(req.path), { status: 200, headers: {}, body: '{}' }),
      });
      try {
        // A valid check as the first 40 of 300 declared bytes: run, it would be billed with nobody to answer.
        await abandonedUpload(server.url, `{"tx_hash":"${'a'.repeat(64)}","network":"tron"}`, 300);
        // Answered on another connection after the server saw the first one go.
        await (await request(`${server.url}/v1/usage`)).body.dump();
        assert.deepEqual(handled, ['/v1/usage']);
      } finally {
        await server.close();
      }
    });

    test('Errors: a failing service still answers in the spec envelope, never HTML', async () => {
      const server = await startServer({ handle: () => Promise.reject(new Error('boom')) });
      try {
        const res = await request(`${server.url}/v1/usage`);
        assert.equal(res.statusCode, 500);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        const body = (await res.body.json()) as { request_id: string; error: { code: string } };
        assert.equal(body.error.code, 'internal_error');
        assert.equal(res.headers['x-request-id'], body.request_id);
      } finally {
        await server.close();
      }
    });
  });
  const { startBehindParser } = options;
  if (startBehindParser) {
    describe(`adapter conformance behind a body parser: ${name}`, () => parserFirstTests(startBehindParser));
  }
}

/**
 * Sends a check's headers declaring `declared` bytes (and `Expect: 100-continue`, so the server has
 * handed the request to the app before anything else is sent), then `partial` and goes away.
 */
function abandonedUpload(url: string, partial: string, declared: number): Promise<void> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(
        `POST /v1/transaction/check HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${declared}\r\nExpect: 100-continue\r\n\r\n`,
      );
    });
    socket.once('data', (data) => {
      assert.match(data.toString('latin1'), /^HTTP\/1\.1 100 /);
      socket.end(partial, () => socket.destroy());
    });
    socket.on('close', () => resolve());
    socket.on('error', () => {}); // the server may reset it first: gone is gone
  });
}

/** The parser-first cases: what a parser leaves reaches the service as the adapter first would pass it, and its refusals are answered in the spec's envelope. */
function parserFirstTests(startBehindParser: StartServer): void {
  let server: ConformanceServer;
  before(async () => {
    server = await startBehindParser(echoHandler(200, { 'content-type': 'application/json; charset=utf-8' }));
  });
  after(() => server?.close());
  const check = (body: string, headers: Record<string, string> = {}, path = '/v1/transaction/check') =>
    request(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  const tx = `"tx_hash":"${'a'.repeat(64)}","network":"tron"`;

  test('Validation: a number JSON cannot hold (expected_amount 1e999) still reaches the service as a number: 422 invalid_expected_amount, not a check without an amount', async () => {
    const res = await check(`{${tx},"expected_amount":1e999}`);
    const received = (await res.body.json()) as { body: string };
    const validated = validateCheckRequest(Buffer.from(received.body, 'utf8'));
    assert.equal(validated.isErr() && validated.error.code, 'invalid_expected_amount', received.body);
  });

  test('Limits: a body declared over 4 KiB is flagged, however little the parser left of it', async () => {
    const res = await check(`{${tx}}${' '.repeat(5000)}`);
    assert.equal(res.statusCode, 422);
    assert.equal(((await res.body.json()) as { tooLarge: boolean }).tooLarge, true);
  });

  test("Errors: the parser's refusals on the API's paths are the spec's 422 envelope (validation_error, payload_too_large over its limit) with X-Request-ID, no-store and nosniff; elsewhere the host's error handling answers", async () => {
    const cases = [
      { body: `{${tx}`, code: 'validation_error' },
      { body: `{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`, code: 'payload_too_large' },
    ];
    for (const { body, code } of cases) {
      const res = await check(body, { 'x-request-id': `parser-${code}` });
      assert.equal(res.statusCode, 422, code);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.headers['x-request-id'], `parser-${code}`);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      const answer = (await res.body.json()) as { request_id: string; error: { code: string; retryable: boolean } };
      assert.equal(answer.request_id, `parser-${code}`);
      assert.deepEqual({ code: answer.error.code, retryable: answer.error.retryable }, { code, retryable: false });
    }
    const mine = await check(`{${tx}`, { 'x-request-id': 'host-route' }, '/mine');
    assert.deepEqual({ status: mine.statusCode, body: await mine.body.text() }, { status: 400, body: 'host' });
    assert.equal(mine.headers['x-request-id'], undefined, "the host's own paths keep the host's error handling");
  });
}
