import assert from 'node:assert/strict';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { answerNodeRequest, preParsedBody } from '../src/runtime/node-adapter.js';

// What the Express and Koa adapters share, on its own: the adapters' suites run it over HTTP.

const requestWith = (headers: IncomingMessage['headers']) => ({ headers }) as IncomingMessage;

describe('node adapter', () => {
  test('Billing: a request its client abandoned while a middleware before the adapter was busy is neither read nor handled', async () => {
    const req = new IncomingMessage(new Socket());
    req.headers = { 'content-length': '300' };
    req.destroy();
    let handled = 0;
    const service = { handle: async () => (handled++, { status: 200, headers: {}, body: '{}' }) };
    const answer = answerNodeRequest(service, {
      req,
      method: 'POST',
      path: '/v1/transaction/check',
      query: {},
      parsed: { raw: undefined, body: undefined },
    });
    const settled = await Promise.race([answer, sleep(2000, 'still waiting for a body that will never come')]);
    assert.equal(typeof settled === 'string' ? settled : settled.response.status, 422);
    assert.equal(handled, 0);
  });

  test('Limits: behind a parser the declared Content-Length is measured; a chunked body, on what the parser left', () => {
    const small = { raw: undefined, body: { tx_hash: 'a' } };
    assert.equal(preParsedBody(requestWith({ 'content-length': '4097' }), small)?.bodyTooLarge, true);
    assert.equal(preParsedBody(requestWith({ 'content-length': '4096' }), small)?.bodyTooLarge, false);
    const chunked = requestWith({ 'transfer-encoding': 'chunked' });
    assert.equal(preParsedBody(chunked, small)?.bodyTooLarge, false);
    assert.equal(preParsedBody(chunked, { raw: undefined, body: { pad: 'x'.repeat(4096) } })?.bodyTooLarge, true);
  });

  test('Validation: behind a parser, numbers JSON cannot hold stay numbers wherever they are, with their sign', () => {
    const body = { a: Infinity, b: [-Infinity], c: { d: 1 } };
    const read = preParsedBody(requestWith({}), { raw: undefined, body });
    assert.deepEqual(JSON.parse(Buffer.from(read!.body).toString('utf8')), {
      a: Number.MAX_VALUE,
      b: [-Number.MAX_VALUE],
      c: { d: 1 },
    });
  });
});
