// HTTP conformance, GET /v1/usage: the report, its validation and what it counts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TRON_FIXTURE_TX } from '../fake-tron-fixtures.js';
import type { HttpSuite } from './suite.js';

export function httpUsageTests(s: HttpSuite): void {
  const { tenant, call, check, assertError } = s;
  describe('GET /v1/usage', () => {
    test('GET /v1/usage: 200 UsageResponse for the key’s organization, with rate headers', async () => {
      const { id, key } = await tenant({ monthlyQuota: 77 });
      const answer = await call('GET', '/v1/usage?days=7', { key });
      assert.equal(answer.status, 200, answer.text);
      assert.ok(answer.headers['x-request-id']);
      assert.deepEqual(Object.keys(answer.json).sort(), ['limits', 'period', 'plan', 'recent', 'tenant_id']);
      assert.equal(answer.json.tenant_id, id);
      assert.equal(answer.json.period.limit, 77);
      assert.equal(answer.json.period.remaining, 77);
      assert.equal(answer.json.recent.days, 7);
      assert.match(answer.headers['x-ratelimit-remaining'] ?? '', /^\d+$/);
    });

    test('GET /v1/usage: 422 validation_error for days outside 1..90; 401 without a key', async () => {
      const { key } = await tenant();
      for (const days of ['0', '91', 'abc', '1.5']) {
        assertError(await call('GET', `/v1/usage?days=${days}`, { key }), 422, 'validation_error', false);
      }
      assertError(await call('GET', '/v1/usage'), 401, 'invalid_api_key', false);
    });

    test('GET /v1/usage: usage counts completed checks; idempotent replays are not new records', async () => {
      const { key } = await tenant();
      const body = { tx_hash: TRON_FIXTURE_TX.trxTransferToNewAccount, network: 'tron' };
      await check(key, body, { 'idempotency-key': 'u-1' });
      await check(key, body, { 'idempotency-key': 'u-1' });
      const usage = await call('GET', '/v1/usage', { key });
      assert.equal(usage.json.recent.requests, 1);
    });
  });
}
