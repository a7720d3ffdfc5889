import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  serviceEnvironment,
  COMPLETE_TX,
  PARTIAL_TX,
  movableClock,
  check,
  getUsage,
  json,
  assertError,
  period,
} from './runtime-support.js';

// End to end through `handle`: the spec's idempotency record, row by row.

const env = serviceEnvironment();
const { setup, fullNodeTxCalls } = env;

describe('idempotency', () => {
  test('Idempotency: completed → replayed byte for byte with the original X-Request-ID; billed and recorded once', async () => {
    const s = await setup();
    const first = await check(s, COMPLETE_TX, { 'idempotency-key': 'once', 'x-request-id': 'original' });
    const again = await check(s, COMPLETE_TX, { 'idempotency-key': 'once', 'x-request-id': 'second' });
    assert.equal(again.status, 200);
    assert.equal(again.body, first.body);
    assert.equal(again.headers['X-Request-ID'], 'original');
    assert.equal(again.headers['Idempotent-Replayed'], 'true');
    assert.equal(first.headers['Idempotent-Replayed'], undefined);
    assert.ok(again.headers['X-RateLimit-Remaining'], 'replays pass the rate limit');
    assert.equal(
      again.headers['X-Quota-Remaining'],
      String((await period(s)).remaining),
      'and show the quota as it is now',
    );
    assert.equal((await period(s)).used, 1);
    assert.equal(json(await getUsage(s)).recent.requests, 1);
  });

  test('Idempotency: in progress → 409 idempotency_in_progress with Retry-After', async () => {
    const s = await setup();
    env.node.fault({ path: 'gettransactionbyid', times: 2, fault: { kind: 'latency', ms: 300 } });
    const first = check(s, COMPLETE_TX, { 'idempotency-key': 'busy' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const busy = await check(s, COMPLETE_TX, { 'idempotency-key': 'busy' });
    assertError(busy, 409, 'idempotency_in_progress', true);
    assert.equal(busy.headers['Retry-After'], '1');
    assert.equal((await first).status, 200);
  });

  test('Idempotency: same key, different body → 409 idempotency_conflict (also the normalized body decides)', async () => {
    const s = await setup();
    assert.equal((await check(s, COMPLETE_TX, { 'idempotency-key': 'c' })).status, 200);
    assertError(await check(s, PARTIAL_TX, { 'idempotency-key': 'c' }), 409, 'idempotency_conflict', false);
    const upper = await check(s, COMPLETE_TX.toUpperCase(), { 'idempotency-key': 'c' });
    assert.equal(upper.headers['Idempotent-Replayed'], 'true', 'tx_hash case is normalized');
  });

  test('Idempotency: retention expired → executes again as a new billable check', async () => {
    const clock = movableClock();
    const s = await setup({}, { now: clock.now, idempotencyRetentionSeconds: 60 });
    assert.equal((await check(s, COMPLETE_TX, { 'idempotency-key': 'r' })).status, 200);
    clock.advance(59_000);
    assert.equal((await check(s, COMPLETE_TX, { 'idempotency-key': 'r' })).headers['Idempotent-Replayed'], 'true');
    clock.advance(1_000);
    const fresh = await check(s, COMPLETE_TX, { 'idempotency-key': 'r' });
    assert.equal(fresh.headers['Idempotent-Replayed'], undefined);
    assert.equal((await period(s)).used, 2);
  });

  test('Authentication 7: keys survive API key rotation (scoped to the organization)', async () => {
    const s = await setup();
    const first = await check(s, COMPLETE_TX, { 'idempotency-key': 'rot' });
    const keys = await s.service.admin.listApiKeys({ kind: 'operator' }, s.organizationId);
    assert.ok(keys.isOk());
    const rotated = await s.service.admin.rotateApiKey(
      { kind: 'member', organizationId: s.organizationId, role: 'developer' },
      s.organizationId,
      keys.value[0]!.id,
    );
    assert.ok(rotated.isOk());
    assert.ok(rotated.value.key.startsWith('tsk_live_'));
    assertError(await check(s, COMPLETE_TX, { 'idempotency-key': 'rot' }), 401, 'invalid_api_key', false);
    const replay = await check({ ...s, apiKey: rotated.value.key }, COMPLETE_TX, { 'idempotency-key': 'rot' });
    assert.equal(replay.body, first.body);
    assert.equal(replay.headers['Idempotent-Replayed'], 'true');
  });

  test('Idempotency: 200 concurrent checks with one key: the providers are called once', async () => {
    const s = await setup();
    env.node.clearCalls();
    env.node.fault({ path: 'gettransactionbyid', fault: { kind: 'latency', ms: 50 } });
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => check(s, COMPLETE_TX, { 'idempotency-key': 'herd' })),
    );
    env.node.clearFaults();
    assert.equal(fullNodeTxCalls(), 1);
    const executed = answers.filter((r) => r.status === 200 && r.headers['Idempotent-Replayed'] === undefined);
    assert.equal(executed.length, 1);
    for (const r of answers) {
      if (r.status === 200) assert.equal(r.body, executed[0]!.body);
      else assertError(r, 409, 'idempotency_in_progress', true);
    }
    assert.equal((await period(s)).used, 1);
  });
});
