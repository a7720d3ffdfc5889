import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createSafetyService } from '../src/runtime/service.js';
import { TRON_FIXTURE_TX } from '../src/testing/fake-tron-fixtures.js';
import { checkBody, seedTenant } from '../src/testing/service-harness.js';
import { serviceEnvironment } from './runtime-support.js';

// What a check holds (its concurrency slot, its quota reservation) is given back when its answer is
// decided, also when the store fails once on the way: the fake java-tron node and fake Chainalysis over
// HTTP, the real providers, store-memory with a finish that fails when told to.

const env = serviceEnvironment();

/**
 * A service whose store fails the next `failures` finish calls: before doing anything, or with
 * `afterCommit`, once it has done everything (the answer lost on the way back).
 */
async function failingFinish(failures: number, { afterCommit = false } = {}) {
  const stores = createMemoryStores();
  const finish = stores.checks.finish.bind(stores.checks);
  let left = failures;
  const lost = () => Promise.reject(new Error('connection reset'));
  stores.checks.finish = (params) => (left-- <= 0 ? finish(params) : afterCommit ? finish(params).then(lost) : lost());
  const reports: string[] = [];
  const onError = (error: unknown) => reports.push(String(error));
  const service = createSafetyService(stores, { chain: env.chain, risk: env.risk }, { onError });
  const tenant = await seedTenant(service, { maxConcurrentRequests: 1, monthlyQuota: 1 });
  const check = async (txHash: string) => {
    const r = await service.handle({
      method: 'POST',
      path: '/v1/transaction/check',
      query: {},
      headers: { 'x-api-key': tenant.apiKey },
      body: checkBody(txHash),
    });
    return { status: r.status, body: JSON.parse(r.body) as Record<string, any> };
  };
  const period = async () =>
    (await service.admin.usage({ kind: 'operator' }, tenant.organizationId))._unsafeUnwrap().period;
  const requests = async () =>
    (await service.admin.usage({ kind: 'operator' }, tenant.organizationId))._unsafeUnwrap().recent;
  return { check, period, requests, reports };
}

describe('Quota reservation and concurrency slot: given back when the answer is decided', () => {
  test('a nonbillable check whose finish fails once still gives back its reservation and slot', async () => {
    const s = await failingFinish(1);
    const partial = await s.check(TRON_FIXTURE_TX.trc10Transfer);
    assert.equal(partial.status, 200);
    assert.equal(partial.body.coverage, 'partial', 'nothing to bill');
    assert.deepEqual(await s.period(), { ...(await s.period()), used: 0, reserved: 0, remaining: 1 });
    // The organization's one slot and one unit are free for the next check at once, not after the lease.
    const next = await s.check(TRON_FIXTURE_TX.usdtTransfer);
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal(next.body.coverage, 'complete');
    assert.equal((await s.period()).used, 1);
  });

  test('a finish whose answer is lost after it committed is tried again and counts the check once', async () => {
    const s = await failingFinish(1, { afterCommit: true });
    const paid = await s.check(TRON_FIXTURE_TX.usdtTransfer);
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.coverage, 'complete');
    assert.equal((await s.period()).used, 1, 'billed once');
    const recent = await s.requests();
    assert.deepEqual([recent.requests, recent.billable], [1, 1], 'one request in the usage report');
    assert.ok(!s.reports.some((r) => r.includes('not billed')), s.reports.join('\n'));
  });
});
