import assert from 'node:assert/strict';
import { text } from 'node:stream/consumers';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { echoHandler, listenOnLoopback } from '@tron-safety/core/fakes';
import Koa from 'koa';
import { request } from 'undici';
import { safetyMiddleware } from '../src/index.js';

/** Answers with what it received, so the test sees exactly what the adapter passed on. */
const echo = echoHandler(429, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1', 'retry-after': '3' });

/** What `@koa/bodyparser` leaves behind: the stream read, `rawBody` and `body` on the request. */
const parser: Koa.Middleware = async (ctx, next) => {
  const raw = await text(ctx.req);
  Object.assign(ctx.request, { rawBody: raw, body: raw ? JSON.parse(raw) : {} });
  await next();
};

const listen = (app: Koa) => listenOnLoopback((port, host) => app.listen(port, host));

describe('koa adapter', () => {
  const servers: { url: string; close: () => Promise<unknown> }[] = [];
  let bare: string;
  let afterParser: string;
  before(async () => {
    const a = new Koa();
    a.use(safetyMiddleware(echo));
    a.use((ctx) => {
      if (ctx.path === '/mine') ctx.body = { host: true };
    });
    const b = new Koa();
    b.use(parser);
    b.use(safetyMiddleware(echo));
    for (const app of [a, b]) servers.push(await listen(app));
    [bare, afterParser] = servers.map((s) => s.url) as [string, string];
  });
  after(() => Promise.all(servers.map((s) => s.close())));

  test('passes method, path, query, headers and bytes; an error status keeps its headers and JSON body', async () => {
    const raw = '{ "tx_hash" : "ab" }';
    const res = await request(`${bare}/v1/usage?days=7&x=1&x=2`, { method: 'POST', headers: { 'x-api-key': 'k' }, body: raw });
    assert.equal(res.statusCode, 429);
    assert.equal(res.headers['x-request-id'], 'r-1');
    assert.equal(res.headers['retry-after'], '3');
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepEqual(await res.body.json(), {
      method: 'POST',
      path: '/v1/usage',
      query: { days: '7', x: ['1', '2'] },
      apiKey: 'k',
      body: raw,
      size: raw.length,
      tooLarge: false,
    });
  });

  test('a header sent twice arrives as both values, not joined into one', async () => {
    const res = await request(`${bare}/v1/usage`, { headers: { 'x-api-key': ['k1', 'k2'] } });
    assert.deepEqual(((await res.body.json()) as { apiKey: unknown }).apiKey, ['k1', 'k2']);
  });

  test('a body over 4 KiB is flagged, by Content-Length and when chunked', async () => {
    const declared = await request(`${bare}/v1/transaction/check`, { method: 'POST', body: 'x'.repeat(5000) });
    assert.equal(declared.statusCode, 422);
    assert.equal(declared.headers.connection, 'close', 'the server reads no more of an oversized body');
    assert.equal(((await declared.body.json()) as { tooLarge: boolean }).tooLarge, true);
    async function* chunks() {
      for (let i = 0; i < 10; i++) yield Buffer.from('x'.repeat(1000));
    }
    const chunked = await request(`${bare}/v1/transaction/check`, { method: 'POST', body: Readable.from(chunks()) });
    assert.equal(chunked.statusCode, 422);
    assert.equal(((await chunked.body.json()) as { tooLarge: boolean }).tooLarge, true);
  });

  test("the host's own routes keep working beside it", async () => {
    assert.deepEqual(await (await request(`${bare}/mine`)).body.json(), { host: true });
  });

  test('behind a body parser it uses the raw body the parser kept', async () => {
    const raw = '{ "b" : 2 }';
    const res = await request(`${afterParser}/v1/transaction/check`, { method: 'POST', body: raw });
    assert.equal(((await res.body.json()) as { body: string }).body, raw);
  });

  test('a failing service still answers in the spec envelope', async () => {
    const app = new Koa();
    app.use(safetyMiddleware({ handle: () => Promise.reject(new Error('boom')) }));
    const server = await listen(app);
    try {
      const res = await request(`${server.url}/v1/usage`);
      assert.equal(res.statusCode, 500);
      const body = (await res.body.json()) as { request_id: string; error: { code: string } };
      assert.equal(body.error.code, 'internal_error');
      assert.equal(res.headers['x-request-id'], body.request_id);
    } finally {
      await server.close();
    }
  });
});
