import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryStores } from '../src/index.js';

test('usage records past the retention are dropped as new ones arrive', async () => {
  const { usage } = createMemoryStores({ usageRetentionDays: 10 });
  const now = new Date('2026-05-20T00:00:00Z');
  const record = (at: Date) => ({
    organizationId: 'org',
    at,
    network: 'tron',
    overallState: 'CLEAR' as const,
    coverage: 'complete' as const,
    billable: true,
    latencyMs: 1,
    errorCode: null,
  });
  await usage.appendUsage(record(new Date(now.getTime() - 11 * 86_400_000)));
  for (let i = 1; i < 1024; i++) await usage.appendUsage(record(now));
  const summary = await usage.summarizeUsage({
    organizationId: 'org',
    since: new Date(0),
    until: new Date(now.getTime() + 1),
  });
  assert.equal(summary.requests, 1023);
});

test('retention keeps working with far more records than fit in a call’s arguments', async () => {
  const { usage } = createMemoryStores({ usageRetentionDays: 10 });
  const now = new Date('2026-05-20T00:00:00Z');
  const record = {
    organizationId: 'org',
    at: now,
    network: 'tron',
    overallState: 'CLEAR' as const,
    coverage: 'complete' as const,
    billable: true,
    latencyMs: 1,
    errorCode: null,
  };
  for (let i = 0; i < 150_000; i++) await usage.appendUsage(record);
  assert.equal(await usage.purgeUsageBefore(new Date(now.getTime() - 86_400_000)), 0);
  const summary = await usage.summarizeUsage({
    organizationId: 'org',
    since: new Date(0),
    until: new Date(now.getTime() + 1),
  });
  assert.equal(summary.requests, 150_000);
  assert.equal(await usage.purgeUsageBefore(new Date(now.getTime() + 1)), 150_000);
});
