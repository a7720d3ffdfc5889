import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { echoHandler, listenOnLoopback, runAdapterConformance } from '@tron-safety/core/testing';
import Koa from 'koa';
import { request } from 'undici';
import coBody from 'co-body';
import { safetyMiddleware, safetyParserErrors } from '../src/index.js';

/**
 * `@koa/bodyparser`'s JSON parsing: co-body reads and parses (its errors thrown as they are), the
 * raw text kept in `ctx.request.rawBody`. Used directly: @koa/bodyparser's global augmentation of
 * Node's `IncomingMessage` (`rawBody: string`) would leak into every package's type check.
 */
const bodyParser = (): Koa.Middleware => async (ctx, next) => {
  if (ctx.is('application/json')) {
    const { parsed, raw } = (await coBody.json(ctx, { returnRawBody: true })) as { parsed: unknown; raw: string };
    Object.assign(ctx.request, { body: parsed, rawBody: raw });
  }
  await next();
};

const listen = (app: Koa) => listenOnLoopback((port, host) => app.listen(port, host));

/** The host's own error handling, first: what the adapter's middleware leaves to it. */
const hostErrors: Koa.Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    ctx.status = (error as { status?: number }).status ?? 500;
    ctx.body = 'host';
  }
};

runAdapterConformance(
  'koa',
  // The middleware first, then the host's own body parser and route; Koa answers 404 for the rest.
  (handler) => {
    const app = new Koa();
    app.use(safetyMiddleware(handler));
    app.use(bodyParser());
    app.use((ctx) => {
      if (ctx.method === 'POST' && ctx.path === '/mine')
        ctx.body = { host: true, got: (ctx.request as { body?: unknown }).body };
    });
    return listen(app);
  },
  {
    // The JSON parser first (it keeps the raw text), its errors answered by safetyParserErrors mounted before it.
    startBehindParser: (handler) => {
      const app = new Koa();
      app.use(hostErrors);
      app.use(safetyParserErrors());
      app.use(bodyParser());
      app.use(safetyMiddleware(handler));
      return listen(app);
    },
  },
);

describe('koa adapter', () => {
  let afterParser: { url: string; close: () => Promise<unknown> };
  before(async () => {
    const app = new Koa();
    app.use(bodyParser());
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
    const res = await request(`${afterParser.url}/v1/transaction/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: raw,
    });
    assert.equal(((await res.body.json()) as { body: string }).body, raw);
  });
});
