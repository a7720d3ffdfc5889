import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { echoHandler, listenOnLoopback } from '@tron-safety/core/fakes';
import express from 'express';
import { request } from 'undici';
import { keepRawBody, safetyRouter } from '../src/index.js';

/** Answers with what it received, so the test sees exactly what the adapter passed on. */
const echo = echoHandler(200, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1', 'x-ratelimit-limit': '10' });
const listen = (app: express.Express) => listenOnLoopback((port, host) => app.listen(port, host));

describe('express adapter', () => {
  const servers: { url: string; close: () => Promise<unknown> }[] = [];
  let bare: string;
  let afterJson: string;
  let afterJsonRaw: string;
  before(async () => {
    const a = express();
    a.use(safetyRouter(echo));
    a.use(express.json());
    a.post('/mine', (req, res) => res.json({ host: true, got: req.body }));
    const b = express();
    b.use(express.json());
    b.use(safetyRouter(echo));
    const c = express();
    c.use(express.json({ verify: keepRawBody }));
    c.use(safetyRouter(echo));
    for (const app of [a, b, c]) servers.push(await listen(app));
    [bare, afterJson, afterJsonRaw] = servers.map((s) => s.url) as [string, string, string];
  });
  after(() => Promise.all(servers.map((s) => s.close())));

  test('passes method, path, query, headers and the raw bytes; writes status, headers and body back', async () => {
    const raw = '{ "tx_hash" : "ab" }';
    const res = await request(`${bare}/v1/usage?days=7&x=1&x=2`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
      body: raw,
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-request-id'], 'r-1');
    assert.equal(res.headers['x-ratelimit-limit'], '10');
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const seen = (await res.body.json()) as Record<string, unknown>;
    assert.deepEqual(seen, {
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
    const big = `{"a":"${'x'.repeat(5000)}"}`;
    const declared = await request(`${bare}/v1/transaction/check`, { method: 'POST', body: big });
    assert.equal(declared.statusCode, 422);
    assert.equal(declared.headers.connection, 'close', 'the server reads no more of an oversized body');
    assert.equal(((await declared.body.json()) as { tooLarge: boolean }).tooLarge, true);
    async function* chunks() {
      for (let i = 0; i < 10; i++) yield Buffer.from('x'.repeat(1000));
    }
    const chunked = await request(`${bare}/v1/transaction/check`, { method: 'POST', body: Readable.from(chunks()) });
    assert.equal(chunked.statusCode, 422);
    assert.equal(((await chunked.body.json()) as { tooLarge: boolean }).tooLarge, true);
    const exact = await request(`${bare}/v1/transaction/check`, { method: 'POST', body: 'y'.repeat(4096) });
    assert.equal(((await exact.body.json()) as { size: number }).size, 4096);
  });

  test("the host's own routes and body parser keep working beside it", async () => {
    const res = await request(`${bare}/mine`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    assert.deepEqual(await res.body.json(), { host: true, got: { a: 1 } });
    const other = await request(`${bare}/elsewhere`);
    assert.equal(other.statusCode, 404);
    await other.body.dump();
  });

  test('behind express.json(): the kept raw bytes, else the parsed body re-serialized, else over the limit', async () => {
    const raw = '{ "b" : 2 }';
    const opts = { method: 'POST' as const, headers: { 'content-type': 'application/json' }, body: raw };
    const kept = (await (await request(`${afterJsonRaw}/v1/transaction/check`, opts)).body.json()) as { body: string };
    assert.equal(kept.body, raw);
    const reserialized = (await (await request(`${afterJson}/v1/transaction/check`, opts)).body.json()) as { body: string };
    assert.equal(reserialized.body, '{"b":2}');
    const big = await request(`${afterJson}/v1/transaction/check`, { ...opts, body: `{"a":"${'x'.repeat(5000)}"}` });
    assert.equal(big.statusCode, 422);
    await big.body.dump();
    const plain = (await (await request(`${afterJson}/v1/transaction/check`, { method: 'POST', body: 'not json' })).body.json()) as { body: string };
    assert.equal(plain.body, 'not json');
  });

  test('a failing service still answers in the spec envelope, never HTML', async () => {
    const app = express();
    app.use(safetyRouter({ handle: () => Promise.reject(new Error('boom')) }));
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
