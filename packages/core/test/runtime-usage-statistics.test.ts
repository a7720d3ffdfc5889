import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createSafetyService } from '../src/runtime/service.js';
import { MIN_LATENCY_SAMPLES } from '../src/runtime/usage-statistics.js';
import type { UsageRecord } from '../src/stores/usage.js';
import { instantChain, instantRisk, seedTenant } from '../src/testing/service-harness.js';

const NOW = new Date('2026-06-30T15:00:00Z');
const DAY = 86_400_000;

async function world() {
  const stores = createMemoryStores();
  const service = createSafetyService(stores, { chain: instantChain(), risk: instantRisk() }, { now: () => NOW });
  const { organizationId } = await seedTenant(service);
  const record = (daysAgo: number, latencyMs: number, overrides: Partial<UsageRecord> = {}) =>
    stores.usage.recordUsage({
      organizationId,
      at: new Date(NOW.getTime() - daysAgo * DAY),
      network: 'tron',
      overallState: 'CLEAR',
      coverage: 'complete',
      billable: true,
      latencyMs,
      errorCode: null,
      ...overrides,
    });
  const statistics = async () =>
    (
      await service.admin.usageStatistics({ kind: 'member', organizationId, role: 'viewer' }, organizationId)
    )._unsafeUnwrap();
  return { service, organizationId, record, statistics };
}

test('Usage statistics: every UTC day of the last 30, oldest first, empty days included', async () => {
  const { record, statistics } = await world();
  await record(0, 10);
  await record(29, 10, { overallState: 'REVIEW', billable: false });
  await record(30, 10, { overallState: null, errorCode: 'provider_unavailable' });
  const { days } = await statistics();
  assert.equal(days.length, 30);
  assert.deepEqual([days[0]!.day, days.at(-1)!.day], ['2026-06-01', '2026-06-30']);
  assert.deepEqual(days[0]!.byOverallState, { REVIEW: 1 }, '29 days ago is in; 30 days ago is not');
  assert.equal(
    days.reduce((n, d) => n + d.requests, 0),
    2,
  );
  assert.equal(days[10]!.requests, 0);
});

test('Usage statistics: p50/p95 only from 20 completed latency samples in the last 30 days', async () => {
  const { record, statistics } = await world();
  await record(40, 9_000); // outside the 30 days: never a sample
  for (let i = 0; i < MIN_LATENCY_SAMPLES - 1; i++) await record(i % 30, 100);
  assert.deepEqual((await statistics()).latency, { samples: 19, p50Ms: null, p95Ms: null });
  await record(3, 4_000, { overallState: null, errorCode: 'request_timeout' }); // an error is a completed check too
  const { latency } = await statistics();
  assert.equal(latency.samples, 20);
  assert.ok(latency.p50Ms! >= 100 && latency.p50Ms! < 120, `p50 ${latency.p50Ms}`);
  assert.ok(
    latency.p95Ms! >= 100 && latency.p95Ms! <= 120,
    `p95 ${latency.p95Ms}: the 19th of 20 is in the 100–120 ms bucket`,
  );
});

test('Usage statistics: scoped to the member’s organization', async () => {
  const { service, organizationId } = await world();
  const other = await seedTenant(service, {}, '6f1c2a4e-0000-4000-8000-000000000002');
  const refused = await service.admin.usageStatistics(
    { kind: 'member', organizationId: other.organizationId, role: 'owner' },
    organizationId,
  );
  assert.equal(refused._unsafeUnwrapErr().code, 'forbidden');
});
