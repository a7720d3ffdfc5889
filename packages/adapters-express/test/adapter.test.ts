import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { echoHandler, listenOnLoopback, runAdapterConformance } from '@tron-safety/core/testing';
import express from 'express';
import { request } from 'undici';
import { keepRawBody, safetyParserErrors, safetyRouter } from '../src/index.js';

const listen = (app: express.Express) => listenOnLoopback((port, host) => app.listen(port, host));

/** The host's own error handler, last: what the adapter's handlers leave to it. */
const hostErrors: express.ErrorRequestHandler = (error: { status?: number }, _req, res, _next) => {
  res
    .status(error.status ?? 500)
    .type('text/plain')
    .send('host');
};

runAdapterConformance(
  'express',
  // The router first, then the host's own JSON parser and route, as the README tells a host to mount it.
  (handler) => {
    const app = express();
    app.use(safetyRouter(handler));
    app.use(express.json());
    app.post('/mine', (req, res) => res.json({ host: true, got: req.body }));
    return listen(app);
  },
  {
    // express.json() first (it keeps no raw bytes), the router behind it, its parser errors answered.
    startBehindParser: (handler) => {
      const app = express();
      app.use(express.json());
      app.use(safetyRouter(handler));
      app.use(safetyParserErrors());
      app.use(hostErrors);
      return listen(app);
    },
  },
);

/** Answers with what it received, so the test sees exactly what the adapter passed on. */
const echo = echoHandler(200, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1' });

describe('express adapter', () => {
  const servers: { url: string; close: () => Promise<unknown> }[] = [];
  let afterJson: string;
  let afterJsonRaw: string;
  before(async () => {
    const b = express();
    b.use(express.json());
    b.use(safetyRouter(echo));
    const c = express();
    c.use(express.json({ verify: keepRawBody }));
    c.use(safetyRouter(echo));
    for (const app of [b, c]) servers.push(await listen(app));
    [afterJson, afterJsonRaw] = servers.map((s) => s.url) as [string, string];
  });
  after(() => Promise.all(servers.map((s) => s.close())));

  test('behind express.json(): the kept raw bytes, else the parsed body re-serialized, else over the limit', async () => {
    const raw = '{ "b" : 2 }';
    const opts = { method: 'POST' as const, headers: { 'content-type': 'application/json' }, body: raw };
    const kept = (await (await request(`${afterJsonRaw}/v1/transaction/check`, opts)).body.json()) as { body: string };
    assert.equal(kept.body, raw);
    const reserialized = (await (await request(`${afterJson}/v1/transaction/check`, opts)).body.json()) as {
      body: string;
    };
    assert.equal(reserialized.body, '{"b":2}');
    const big = await request(`${afterJson}/v1/transaction/check`, { ...opts, body: `{"a":"${'x'.repeat(5000)}"}` });
    assert.equal(big.statusCode, 422);
    await big.body.dump();
    const plain = (await (
      await request(`${afterJson}/v1/transaction/check`, { method: 'POST', body: 'not json' })
    ).body.json()) as { body: string };
    assert.equal(plain.body, 'not json');
  });

  test('behind express.raw() or express.text(): the Buffer is the body as sent, the string its UTF-8 bytes', async () => {
    const sent = '{"tx_hash":"é"}';
    for (const parser of [express.raw({ type: '*/*' }), express.text({ type: '*/*' })]) {
      const app = express();
      app.use(parser);
      app.use(safetyRouter(echo));
      const server = await listen(app);
      try {
        const res = await request(`${server.url}/v1/transaction/check`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: sent,
        });
        assert.deepEqual(await res.body.json(), {
          method: 'POST',
          path: '/v1/transaction/check',
          query: {},
          apiKey: null,
          body: sent,
          size: Buffer.byteLength(sent),
          tooLarge: false,
        });
      } finally {
        await server.close();
      }
    }
  });
});
