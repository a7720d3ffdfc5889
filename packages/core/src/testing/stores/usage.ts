// Store conformance, usage records: UTC days, latency histograms, concurrent records, retention.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe } from 'node:test';
import { latencyBucket, latencyQuantile, LATENCY_BUCKET_BOUNDS_MS, summarizeUsageDays } from '../../stores/usage.js';
import { at, usageRecord, type WithStores } from './support.js';

export function storeUsageTests(withStores: WithStores): void {
  describe('usage records', () => {
    const day = (offsetDays: number) => new Date(Date.parse('2026-03-31T12:00:00.000Z') + offsetDays * 86_400_000);

    withStores(
      'Limits: each record counts into its UTC day; a range of days reads one bucket a day',
      async ({ usage }) => {
        const orgId = randomUUID();
        await usage.recordUsage(usageRecord(orgId, { at: new Date('2026-03-30T23:59:59.999Z'), latencyMs: 1000 }));
        await usage.recordUsage(usageRecord(orgId, { latencyMs: 100 }));
        await usage.recordUsage(
          usageRecord(orgId, {
            at: at(10),
            overallState: 'LIMITED_DATA',
            coverage: 'partial',
            billable: false,
            latencyMs: 200,
          }),
        );
        await usage.recordUsage(
          usageRecord(orgId, {
            at: at(20),
            overallState: null,
            coverage: null,
            billable: false,
            latencyMs: 301,
            errorCode: 'provider_unavailable',
          }),
        );
        await usage.recordUsage(
          usageRecord(orgId, {
            at: at(30),
            network: null,
            overallState: null,
            coverage: null,
            billable: false,
            latencyMs: 2,
            errorCode: 'validation_error',
          }),
        );
        // T0 is 23:59:30 UTC: 30 s later is the next day.
        await usage.recordUsage(usageRecord(orgId, { at: at(30_000) }));
        await usage.recordUsage(usageRecord(randomUUID(), { at: at(5) }));
        const march31 = await usage.readUsageDays({
          organizationId: orgId,
          firstDay: '2026-03-31',
          lastDay: '2026-03-31',
        });
        const histogram = LATENCY_BUCKET_BOUNDS_MS.map(() => 0);
        for (const ms of [100, 200, 301, 2]) histogram[latencyBucket(ms)]!++;
        assert.deepEqual(march31, [
          {
            day: '2026-03-31',
            requests: 4,
            billable: 1,
            limitedData: 1,
            errors: 2,
            latencySumMs: 603,
            latencyCount: 4,
            byNetwork: { tron: 3 },
            byOverallState: { CLEAR: 1, LIMITED_DATA: 1 },
            latencyHistogram: histogram,
          },
        ]);
        const all = await usage.readUsageDays({ organizationId: orgId, firstDay: '2026-03-01', lastDay: '2026-04-30' });
        assert.deepEqual(
          all.map((d) => [d.day, d.requests]),
          [
            ['2026-03-30', 1],
            ['2026-03-31', 4],
            ['2026-04-01', 1],
          ],
          'oldest first, only days with usage',
        );
        assert.deepEqual(summarizeUsageDays(all), {
          requests: 6,
          billable: 3,
          limitedData: 1,
          errors: 2,
          averageLatencyMs: 284,
          byNetwork: { tron: 5 },
          byOverallState: { CLEAR: 3, LIMITED_DATA: 1 },
        });
        assert.deepEqual(
          await usage.readUsageDays({ organizationId: randomUUID(), firstDay: '2026-03-01', lastDay: '2026-04-30' }),
          [],
        );
      },
    );

    withStores('Limits: a day holds a latency histogram good for p50 and p95', async ({ usage }) => {
      const orgId = randomUUID();
      const latencies = Array.from({ length: 200 }, (_, i) => 10 + i * 5); // 10 .. 1005 ms
      for (const latencyMs of latencies) await usage.recordUsage(usageRecord(orgId, { at: day(0), latencyMs }));
      const [bucket] = await usage.readUsageDays({
        organizationId: orgId,
        firstDay: '2026-03-31',
        lastDay: '2026-03-31',
      });
      assert.equal(
        bucket!.latencyHistogram.reduce((a, b) => a + b, 0),
        200,
      );
      const p50 = latencyQuantile(bucket!.latencyHistogram, 0.5)!;
      const p95 = latencyQuantile(bucket!.latencyHistogram, 0.95)!;
      assert.ok(Math.abs(p50 - 505) / 505 < 0.15, `p50 ${p50} near 505`);
      assert.ok(Math.abs(p95 - 955) / 955 < 0.15, `p95 ${p95} near 955`);
    });

    withStores('Limits: concurrent records of one day all count', async ({ usage }) => {
      const orgId = randomUUID();
      await Promise.all(Array.from({ length: 50 }, () => usage.recordUsage(usageRecord(orgId, { at: day(0) }))));
      const [bucket] = await usage.readUsageDays({
        organizationId: orgId,
        firstDay: '2026-03-31',
        lastDay: '2026-03-31',
      });
      assert.equal(bucket!.requests, 50);
    });

    withStores('Limits: retention purge: days before the first kept day, in batches', async ({ usage }) => {
      const orgId = randomUUID();
      for (const offset of [-3, -2, -1, 0]) await usage.recordUsage(usageRecord(orgId, { at: day(offset) }));
      const firstKept = '2026-03-30';
      let purged = 0;
      for (
        let batch = await usage.purgeUsageBefore(firstKept, 1);
        batch > 0;
        batch = await usage.purgeUsageBefore(firstKept, 1)
      ) {
        assert.equal(batch, 1, 'a batch is bounded');
        purged += batch;
      }
      assert.ok(purged >= 2);
      const kept = await usage.readUsageDays({
        organizationId: orgId,
        firstDay: '2026-01-01',
        lastDay: '2026-12-31',
      });
      assert.deepEqual(
        kept.map((d) => d.day),
        ['2026-03-30', '2026-03-31'],
      );
    });
  });
}
