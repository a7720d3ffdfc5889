// HTTP conformance, the spec's error codes over the wire: access (401, 403), validation (422), the
// provider and the service failing (503, 500, 504), each in the envelope.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TRON_FIXTURE_TX } from '../fake-tron-fixtures.js';
import { createSafetyService } from '../../runtime/service.js';
import { DEADLINE_MS, type Answer, type HttpSuite } from './suite.js';

export function httpErrorsTests(s: HttpSuite): void {
  const { tenant, call, check, assertError } = s;
  describe('errors', () => {
    test('Authentication 6: 401 invalid_api_key: missing, unknown and revoked keys', async () => {
      const body = { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' };
      assertError(
        await call('POST', '/v1/transaction/check', { body: JSON.stringify(body) }),
        401,
        'invalid_api_key',
        false,
      );
      assertError(await check('tsk_live_not-a-real-key-at-all-000000', body), 401, 'invalid_api_key', false);
      const { id, key, keyId } = await tenant();
      await s.service.admin.revokeApiKey({ kind: 'operator' }, id, keyId);
      assertError(await check(key, body), 401, 'invalid_api_key', false);
      const twice = (await tenant()).key;
      const repeated = await call('POST', '/v1/transaction/check', {
        body: JSON.stringify(body),
        headers: { 'x-api-key': [twice, twice] },
      });
      assertError(repeated, 401, 'invalid_api_key', false);
    });

    test('Authentication 6: 403 tenant_suspended and network_not_enabled', async () => {
      const body = { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' };
      const suspended = await tenant({}, 'suspended');
      assertError(await check(suspended.key, body), 403, 'tenant_suspended', false);
      const noTron = await tenant({ enabledNetworks: [] });
      assertError(await check(noTron.key, body), 403, 'network_not_enabled', false);
    });

    test('Errors: 422: every validation code in the envelope', async () => {
      const { key } = await tenant();
      const tx = TRON_FIXTURE_TX.usdtTransfer;
      assertError(await check(key, { tx_hash: 'xyz', network: 'tron' }), 422, 'malformed_tx_hash', false);
      assertError(await check(key, { tx_hash: tx, network: 'ethereum' }), 422, 'invalid_network', false);
      assertError(
        await check(key, { tx_hash: tx, network: 'tron', expected_recipient: 'TNotAnAddress' }),
        422,
        'invalid_tron_address',
        false,
      );
      assertError(
        await check(key, { tx_hash: tx, network: 'tron', expected_amount: '1e5' }),
        422,
        'invalid_expected_amount',
        false,
      );
      assertError(
        await check(key, { tx_hash: tx, network: 'tron' }, { 'idempotency-key': 'x'.repeat(129) }),
        422,
        'invalid_idempotency_key',
        false,
      );
      // Sent twice, not joined into one "a, b" key by the server.
      assertError(
        await check(key, { tx_hash: tx, network: 'tron' }, { 'idempotency-key': ['a', 'b'] }),
        422,
        'invalid_idempotency_key',
        false,
      );
      assertError(await check(key, { tx_hash: tx, network: 'tron', extra: 1 }), 422, 'validation_error', false);
      assertError(await check(key, '{"tx_hash": '), 422, 'validation_error', false);
    });

    test('Errors: 503 provider_unavailable when the node fails; nothing billed, nothing left reserved', async () => {
      const { key } = await tenant();
      const removeFault = s.node.fault({ fault: { kind: 'status', status: 502 } });
      let answer: Answer;
      try {
        answer = await check(key, { tx_hash: TRON_FIXTURE_TX.withdrawBalance, network: 'tron' });
      } finally {
        removeFault();
      }
      assertError(answer, 503, 'provider_unavailable', true);
      const usage = await call('GET', '/v1/usage', { key });
      assert.equal(usage.json.period.used, 0);
      assert.equal(usage.json.period.reserved, 0);
    });

    test('Errors: 503 api_disabled while business access is paused, for both endpoints', async () => {
      const { key } = await tenant();
      s.service.setApiDisabled(true);
      try {
        assertError(await check(key, { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' }), 503, 'api_disabled');
        assertError(await call('GET', '/v1/usage', { key }), 503, 'api_disabled');
      } finally {
        s.service.setApiDisabled(false);
      }
    });

    describe('service-level failures', () => {
      /** A second service on its own server: no TRON provider, a limit store or a quota store that fails. */
      async function withService(
        variant: 'no_chain' | 'limits_down' | 'quota_down' | 'stalled',
        run: (url: string, key: string) => Promise<void>,
      ) {
        const stores = await s.options.createStores();
        // `begin` counts the rate (both endpoints) and reserves; `finish` bills; the usage report reads days.
        if (variant === 'limits_down') stores.checks.begin = () => Promise.reject(new Error('limit store down'));
        if (variant === 'quota_down') {
          // Fails when billing: the reservation must still be released.
          const finish = stores.checks.finish.bind(stores.checks);
          stores.checks.finish = (params) =>
            params.reservation?.commit ? Promise.reject(new Error('quota store down')) : finish(params);
        }
        if (variant === 'stalled') {
          stores.checks.begin = () => new Promise(() => {});
          stores.usage.readUsageDays = () => new Promise(() => {});
        }
        const other = createSafetyService(
          stores,
          { chain: variant === 'no_chain' ? null : s.chain, risk: s.risk },
          { deadlineMs: DEADLINE_MS },
        );
        const { key } = await tenant({}, 'active', other);
        const otherServer = await s.startServer(other);
        try {
          await run(otherServer.url, key);
        } finally {
          await otherServer.close();
          await other.close({ timeoutMs: 100 });
        }
      }

      test('Errors: 503 api_not_configured without a TRON provider', async () => {
        await withService('no_chain', async (url, key) => {
          const body = JSON.stringify({ tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' });
          assertError(await call('POST', '/v1/transaction/check', { url, key, body }), 503, 'api_not_configured');
        });
      });

      test('Errors: 503 rate_limiter_unavailable when limits cannot be enforced: fail closed, never unmetered', async () => {
        await withService('limits_down', async (url, key) => {
          const body = JSON.stringify({ tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' });
          assertError(
            await call('POST', '/v1/transaction/check', { url, key, body }),
            503,
            'rate_limiter_unavailable',
            true,
          );
          assertError(await call('GET', '/v1/usage', { url, key }), 503, 'rate_limiter_unavailable', true);
        });
      });

      test('Errors: 500 internal_error in the envelope when billing fails; the reservation is released, nothing billed', async () => {
        await withService('quota_down', async (url, key) => {
          const body = JSON.stringify({ tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' });
          assertError(await call('POST', '/v1/transaction/check', { url, key, body }), 500, 'internal_error', false);
          const usage = await call('GET', '/v1/usage', { url, key });
          assert.equal(usage.json.period.reserved, 0);
          assert.equal(usage.json.period.used, 0);
        });
      });

      test('Limits: 504 request_timeout at the deadline, for both endpoints', async () => {
        // Providers budget their calls to answer before the deadline; a store that stops answering does not.
        await withService('stalled', async (url, key) => {
          const body = JSON.stringify({ tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' });
          assertError(await call('POST', '/v1/transaction/check', { url, key, body }), 504, 'request_timeout', true);
          assertError(await call('GET', '/v1/usage', { url, key }), 504, 'request_timeout', true);
        });
      });
    });
  });
}
