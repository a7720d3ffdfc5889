// HTTP conformance, the spec's idempotency record: replay, conflict, in progress, stored errors, rotation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TRON_FIXTURE_TX } from '../fake-tron-fixtures.js';
import { VALID_ADDRESS, type Answer, type HttpSuite } from './suite.js';

export function httpIdempotencyTests(s: HttpSuite): void {
  const { tenant, check, assertError } = s;
  describe('idempotency', () => {
    test('Idempotency: replay is byte-identical with Idempotent-Replayed and the original X-Request-ID; conflict is 409', async () => {
      const { key } = await tenant();
      const body = { tx_hash: TRON_FIXTURE_TX.usdtTransfer, network: 'tron' };
      const first = await check(key, body, { 'idempotency-key': 'order-1' });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const replay = await check(key, body, { 'idempotency-key': 'order-1', 'x-request-id': 'another-id' });
      assert.equal(replay.status, 200);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.text, first.text);
      assert.equal(replay.headers['x-request-id'], first.json.request_id);
      const conflict = await check(
        key,
        { ...body, expected_recipient: VALID_ADDRESS },
        { 'idempotency-key': 'order-1' },
      );
      assertError(conflict, 409, 'idempotency_conflict', false);
    });

    test('Idempotency: same key while the first is processing → 409 idempotency_in_progress with Retry-After', async () => {
      const { key } = await tenant();
      const removeFault = s.node.fault({ path: 'gettransactionbyid', fault: { kind: 'latency', ms: 600 } });
      try {
        const body = { tx_hash: TRON_FIXTURE_TX.trc10Transfer, network: 'tron' };
        const first = check(key, body, { 'idempotency-key': 'slow-1' });
        await new Promise((r) => setTimeout(r, 150));
        const second = await check(key, body, { 'idempotency-key': 'slow-1' });
        assertError(second, 409, 'idempotency_in_progress', true);
        assert.match(second.headers['retry-after'] ?? '', /^\d+$/);
        assert.equal((await first).status, 200);
      } finally {
        removeFault();
      }
    });

    test('Errors 2: a finalized error of an idempotent check is stored and replayed unchanged', async () => {
      const { key } = await tenant();
      const body = { tx_hash: TRON_FIXTURE_TX.unfreezeBalanceV1, network: 'tron' };
      const removeFault = s.node.fault({ fault: { kind: 'status', status: 502 } });
      let first: Answer;
      try {
        first = await check(key, body, { 'idempotency-key': 'failed-once' });
      } finally {
        removeFault();
      }
      assertError(first, 503, 'provider_unavailable', true);
      const replay = await check(key, body, { 'idempotency-key': 'failed-once' });
      assert.equal(replay.status, 503);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.text, first.text);
    });

    test('Authentication 7: idempotency keys survive API key rotation; the revoked key is refused even for a replay', async () => {
      const { id, key, keyId } = await tenant();
      const body = { tx_hash: TRON_FIXTURE_TX.trc10Transfer, network: 'tron' };
      const first = await check(key, body, { 'idempotency-key': 'rotate-1' });
      assert.equal(first.status, 200, first.text);
      const rotated = (await s.service.admin.rotateApiKey({ kind: 'operator' }, id, keyId))._unsafeUnwrap();
      assertError(await check(key, body, { 'idempotency-key': 'rotate-1' }), 401, 'invalid_api_key', false);
      const replay = await check(rotated.key, body, { 'idempotency-key': 'rotate-1' });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.text, first.text);
    });
  });
}
