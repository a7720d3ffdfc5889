import assert from 'node:assert/strict';
import { text } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import { echoHandler, listenOnLoopback, runAdapterConformance } from '@tron-safety/core/testing';
import Koa from 'koa';
import { request } from 'undici';
import { safetyMiddleware } from '../src/index.js';

/** What `@koa/bodyparser` leaves behind: the stream read, `rawBody` and `body` on the request. */
const parser: Koa.Middleware = async (ctx, next) => {
  const raw = await text(ctx.req);
  Object.assign(ctx.request, { rawBody: raw, body: raw ? JSON.parse(raw) : {} });
  await next();
};

const listen = (app: Koa) => listenOnLoopback((port, host) => app.listen(port, host));

// The middleware first, then the host's own body parser and route; Koa answers 404 for the rest.
runAdapterConformance('koa', (handler) => {
  const app = new Koa();
  app.use(safetyMiddleware(handler));
  app.use(parser);
  app.use((ctx) => {
    if (ctx.method === 'POST' && ctx.path === '/mine')
      ctx.body = { host: true, got: (ctx.request as { body?: unknown }).body };
  });
  return listen(app);
});

describe('koa adapter', () => {
  let afterParser: { url: string; close: () => Promise<unknown> };
  before(async () => {
    const app = new Koa();
    app.use(parser);
    app.use(
      safetyMiddleware(echoHandler(200, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1' })),
    );
    afterParser = await listen(app);
  });
  after(() => afterParser.close());

  test('a middleware around it sees the answer in ctx.status, ctx.body and the headers, and can still change them', async () => {
    const answer = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-2', 'x-quota-limit': '5' };
    const app = new Koa();
    let seen: unknown;
    app.use(async (ctx, next) => {
      await next();
      const { 'content-length': _length, ...headers } = ctx.response.headers;
      seen = { status: ctx.status, body: ctx.body, headers, requestId: ctx.response.get('x-request-id') };
      ctx.set('x-outer', 'yes');
    });
    app.use(safetyMiddleware(echoHandler(201, answer)));
    const around = await listen(app);
    try {
      const raw = '{"a":1}';
      const res = await request(`${around.url}/v1/transaction/check`, { method: 'POST', body: raw });
      const body = await res.body.text();
      assert.equal(res.statusCode, 201);
      assert.equal(res.headers['x-outer'], 'yes');
      assert.equal(res.headers['x-quota-limit'], '5');
      assert.deepEqual(seen, { status: 201, body, headers: answer, requestId: 'r-2' });
    } finally {
      await around.close();
    }
  });

  test('behind a body parser it uses the raw body the parser kept (ctx.request.rawBody)', async () => {
    const raw = '{ "b" : 2 }';
    const res = await request(`${afterParser.url}/v1/transaction/check`, { method: 'POST', body: raw });
    assert.equal(((await res.body.json()) as { body: string }).body, raw);
  });
});
