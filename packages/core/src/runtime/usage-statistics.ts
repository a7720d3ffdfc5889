import { addDays, emptyUsageDay, latencyQuantile, LATENCY_BUCKET_BOUNDS_MS } from '../stores/usage.js';
import type { UsageDay, UsageStore } from '../stores/usage.js';
import { reportedDays } from './usage-report.js';

/** The portal's statistics cover the last 30 UTC days (`reportedDays(30, now)`). */
export const STATISTICS_DAYS = 30;
/** p50/p95 are shown only from this many latency samples in those days (spec Limits). */
export const MIN_LATENCY_SAMPLES = 20;

export interface LatencyStatistics {
  /** Completed logical checks with a latency in the days: every recorded check, errors included (replays are not recorded). */
  samples: number;
  /** Estimated from the daily histograms, in whole ms; null below `MIN_LATENCY_SAMPLES` samples. */
  p50Ms: number | null;
  p95Ms: number | null;
}

/** The portal-only statistics of an organization (spec Limits): daily buckets and latency percentiles. */
export interface UsageStatistics {
  /** Every UTC day of the last `STATISTICS_DAYS`, oldest first; a day without checks is an empty bucket. */
  days: UsageDay[];
  latency: LatencyStatistics;
}

/** The stored buckets spread over every day of the window (the store returns only days with usage). */
function everyDay(stored: readonly UsageDay[], window: { firstDay: string; lastDay: string }): UsageDay[] {
  const byDay = new Map(stored.map((d) => [d.day, d]));
  const days: UsageDay[] = [];
  for (let day = window.firstDay; day <= window.lastDay; day = addDays(day, 1))
    days.push(byDay.get(day) ?? emptyUsageDay(day));
  return days;
}

/** p50/p95 over the days' histograms, once there are enough samples to mean something. */
export function latencyStatistics(days: readonly UsageDay[]): LatencyStatistics {
  const histogram = LATENCY_BUCKET_BOUNDS_MS.map((_, i) => days.reduce((n, d) => n + (d.latencyHistogram[i] ?? 0), 0));
  const samples = histogram.reduce((n, count) => n + count, 0);
  if (samples < MIN_LATENCY_SAMPLES) return { samples, p50Ms: null, p95Ms: null };
  const quantile = (q: number) => Math.round(latencyQuantile(histogram, q)!);
  return { samples, p50Ms: quantile(0.5), p95Ms: quantile(0.95) };
}

/** The organization's statistics at `now`: one read of at most 30 daily buckets. */
export async function readUsageStatistics(
  usage: UsageStore,
  organizationId: string,
  now: Date,
): Promise<UsageStatistics> {
  const window = reportedDays(STATISTICS_DAYS, now);
  const days = everyDay(await usage.readUsageDays({ organizationId, ...window }), window);
  return { days, latency: latencyStatistics(days) };
}
