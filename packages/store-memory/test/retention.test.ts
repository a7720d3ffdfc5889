import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryStores } from '../src/index.js';

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

test('usage days past the retention are dropped as a new day starts', async () => {
  const { usage } = createMemoryStores({ usageRetentionDays: 10 });
  const now = new Date('2026-05-20T00:00:00Z');
  await usage.recordUsage(record(new Date(now.getTime() - 11 * 86_400_000)));
  await usage.recordUsage(record(new Date(now.getTime() - 9 * 86_400_000)));
  for (let i = 1; i < 1024; i++) await usage.recordUsage(record(now));
  const days = await usage.readUsageDays({ organizationId: 'org', firstDay: '2000-01-01', lastDay: '2099-12-31' });
  assert.deepEqual(
    days.map((d) => [d.day, d.requests]),
    [
      ['2026-05-11', 1],
      ['2026-05-20', 1023],
    ],
  );
});

test('usage memory does not grow with requests: 150,000 records of one day are one bucket', async () => {
  const { usage } = createMemoryStores({ usageRetentionDays: 10 });
  const now = new Date('2026-05-20T00:00:00Z');
  for (let i = 0; i < 150_000; i++) await usage.recordUsage(record(now));
  assert.equal(await usage.purgeUsageBefore('2026-05-19'), 0);
  const days = await usage.readUsageDays({ organizationId: 'org', firstDay: '2026-05-20', lastDay: '2026-05-20' });
  assert.equal(days[0]!.requests, 150_000);
  assert.equal(await usage.purgeUsageBefore('2026-05-21'), 1);
});
