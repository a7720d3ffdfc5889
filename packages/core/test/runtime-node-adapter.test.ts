import assert from 'node:assert/strict';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { answerNodeRequest, preParsedBody } from '../src/runtime/node-adapter.js';
import { parserErrorResponse } from '../src/runtime/parser-errors.js';

// What the Express and Koa adapters share, on its own: the adapters' suites run it over HTTP.

const requestWith = (headers: IncomingMessage['headers']) => ({ headers }) as IncomingMessage;

/** An error as body-parser, raw-body (through http-errors) or co-body make them. */
const parserError = (fields: { status: number; type?: string }, syntax = false) =>
  Object.assign(syntax ? new SyntaxError('Unexpected end of JSON input') : new Error('refused'), fields);

describe('node adapter', () => {
  test("Errors: a body parser's refusals are the spec's 422 (payload_too_large over its limit, else validation_error); the host's own errors are left to it", () => {
    const req = requestWith({ 'x-request-id': 'req-1' });
    const answered = [
      { error: parserError({ status: 400, type: 'entity.parse.failed' }, true), code: 'validation_error' },
      { error: parserError({ status: 400 }, true), code: 'validation_error' }, // co-body's JSON.parse failure
      { error: parserError({ status: 413, type: 'entity.too.large' }), code: 'payload_too_large' },
      { error: parserError({ status: 415, type: 'charset.unsupported' }), code: 'validation_error' },
      { error: parserError({ status: 400, type: 'request.size.invalid' }), code: 'validation_error' },
    ];
    for (const { error, code } of answered) {
      const response = parserErrorResponse(req, error);
      assert.equal(response?.status, 422, error.message);
      assert.equal(response.headers['X-Request-ID'], 'req-1');
      assert.equal(response.headers['Cache-Control'], 'no-store');
      assert.deepEqual(JSON.parse(response.body).error.code, code);
    }
    const left = [
      parserError({ status: 403, type: 'entity.verify.failed' }),
      parserError({ status: 401 }),
      new SyntaxError('a bug in a host middleware'),
      'a string',
      null,
    ];
    for (const error of left) assert.equal(parserErrorResponse(req, error), undefined, String(error));
  });

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
