// HTTP conformance, the check's answer: its fields, X-Request-ID and a transaction the node lacks.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TRON_FIXTURE_TX } from '../fake-tron-fixtures.js';
import { CHECK_FIELDS, UNKNOWN_TX, type HttpSuite } from './suite.js';

export function httpCheckTests(s: HttpSuite): void {
  const { tenant, check } = s;
  describe('POST /v1/transaction/check', () => {
    test('TransactionCheckResponse: 200 with all 27 fields, X-Request-ID = request_id, rate and quota headers', async () => {
      const { key } = await tenant();
      const answer = await check(key, { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' });
      assert.equal(answer.status, 200, answer.text);
      assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(answer.json).sort(), [...CHECK_FIELDS].sort());
      assert.equal(answer.headers['x-request-id'], answer.json.request_id);
      assert.equal(answer.json.tx_hash, TRON_FIXTURE_TX.trxTransfer);
      assert.equal(answer.json.transaction_state, 'confirmed');
      assert.ok(answer.json.reasons.length >= 2 && answer.json.reasons.length <= 5);
      for (const h of [
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'x-quota-limit',
        'x-quota-remaining',
        'x-quota-reset',
      ]) {
        assert.match(answer.headers[h] ?? '', /^\d+$/, h);
      }
      assert.equal(answer.headers['x-ratelimit-limit'], '1000');
      assert.equal(answer.headers['ratelimit-policy'], '"minute";q=1000;w=60');
      assert.match(answer.headers.ratelimit ?? '', /^"minute";r=\d+;t=\d+$/);
    });

    test("Response headers: a caller's X-Request-ID is kept; an invalid one is replaced", async () => {
      const { key } = await tenant();
      const kept = await check(
        key,
        { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' },
        { 'x-request-id': 'order-42.attempt-1' },
      );
      assert.equal(kept.json.request_id, 'order-42.attempt-1');
      assert.equal(kept.headers['x-request-id'], 'order-42.attempt-1');
      const replaced = await check(key, { tx_hash: 'zz', network: 'tron' }, { 'x-request-id': 'has spaces' });
      assert.notEqual(replaced.json.request_id, 'has spaces');
      assert.equal(replaced.headers['x-request-id'], replaced.json.request_id);
    });

    test('Response rules: a transaction the node does not know: 200, not_found, never CLEAR', async () => {
      const { key } = await tenant();
      const answer = await check(key, { tx_hash: UNKNOWN_TX, network: 'tron' });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.transaction_state, 'not_found');
      assert.notEqual(answer.json.overall_state, 'CLEAR');
      assert.equal(answer.json.sanctions_hit, null);
    });
  });
}
