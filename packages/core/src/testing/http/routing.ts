// HTTP conformance, routing: what the core answers outside its two operations.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HttpSuite } from './suite.js';

export function httpRoutingTests(s: HttpSuite): void {
  const { tenant, call, assertError } = s;
  describe('routing', () => {
    test('Errors: unknown path and wrong method answer in the envelope', async () => {
      const { key } = await tenant();
      // The spec has no routing code: the core answers validation_error with the HTTP status.
      assertError(await call('GET', '/v1/nothing-here', { key }), 404, 'validation_error', false);
      const wrong = await call('GET', '/v1/transaction/check', { key });
      assertError(wrong, 405, 'validation_error', false);
      assert.equal(wrong.headers.allow, 'POST');
      const wrongUsage = await call('POST', '/v1/usage', { key, body: '{}' });
      assertError(wrongUsage, 405, 'validation_error', false);
      assert.equal(wrongUsage.headers.allow, 'GET');
    });
  });
}
