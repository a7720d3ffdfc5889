// HTTP conformance, the spec's limits: body size, monthly quota, rate and concurrency.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TRON_FIXTURE_TX } from '../fake-tron-fixtures.js';
import type { HttpSuite } from './suite.js';

export function httpLimitsTests(s: HttpSuite): void {
  const { tenant, call, check, assertError } = s;
  describe('limits', () => {
    test('Limits: 422 payload_too_large for a body over 4 KiB, in the envelope (not a framework page)', async () => {
      const { key } = await tenant();
      const big = JSON.stringify({
        tx_hash: TRON_FIXTURE_TX.trxTransfer,
        network: 'tron',
        expected_amount: '1'.repeat(5000),
      });
      assertError(await check(key, big), 422, 'payload_too_large', false);
      const padded = `{"tx_hash":"${TRON_FIXTURE_TX.trxTransfer}","network":"tron"}${' '.repeat(4096)}`;
      assertError(await check(key, padded), 422, 'payload_too_large', false);
    });

    test('Limits: quota: a complete check consumes one unit; when full, 429 quota_exceeded with Retry-After and X-Quota-*', async () => {
      const { key } = await tenant({ monthlyQuota: 1 });
      const body = { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' };
      const first = await check(key, body);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.coverage, 'complete', 'the fixture check must be complete to be billed');
      assert.equal(first.headers['x-quota-limit'], '1');
      assert.equal(first.headers['x-quota-remaining'], '0');
      const second = await check(key, body);
      assertError(second, 429, 'quota_exceeded', true);
      assert.match(second.headers['retry-after'] ?? '', /^\d+$/);
      assert.equal(second.headers['x-quota-remaining'], '0');
      const usage = await call('GET', '/v1/usage', { key });
      assert.equal(usage.json.period.used, 1);
      assert.equal(usage.json.period.reserved, 0);
    });

    test('Limits: rate limit: past the per-minute limit, 429 rate_limit_exceeded with Retry-After and X-RateLimit-*', async () => {
      const { key } = await tenant({ rateLimitPerMinute: 2 });
      const body = { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' };
      // The host runs on the real clock: start clear of a UTC minute boundary, where the window resets.
      const msLeftInMinute = 60_000 - (Date.now() % 60_000);
      if (msLeftInMinute < 3_000) await new Promise((resolve) => setTimeout(resolve, msLeftInMinute + 50));
      assert.equal((await check(key, body)).headers['x-ratelimit-remaining'], '1');
      assert.equal((await check(key, body)).status, 200);
      const limited = await check(key, body);
      assertError(limited, 429, 'rate_limit_exceeded', true);
      assert.match(limited.headers['retry-after'] ?? '', /^\d+$/);
      assert.equal(limited.headers['x-ratelimit-limit'], '2');
      assert.equal(limited.headers['x-ratelimit-remaining'], '0');
      assert.match(limited.headers['x-ratelimit-reset'] ?? '', /^\d+$/);
      assertError(await call('GET', '/v1/usage', { key }), 429, 'rate_limit_exceeded', true);
    });

    test('Limits: concurrency: a second check while one is in flight → 429 concurrency_limit_exceeded', async () => {
      const { key } = await tenant({ maxConcurrentRequests: 1 });
      const removeFault = s.node.fault({ path: 'gettransactionbyid', fault: { kind: 'latency', ms: 600 } });
      try {
        const first = check(key, { tx_hash: TRON_FIXTURE_TX.voteWitness, network: 'tron' });
        await new Promise((r) => setTimeout(r, 150));
        const second = await check(key, { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' });
        assertError(second, 429, 'concurrency_limit_exceeded', true);
        assert.match(second.headers['retry-after'] ?? '', /^\d+$/);
        assert.equal((await first).status, 200);
      } finally {
        removeFault();
      }
    });
  });
}
