import type { Coverage, ErrorCode, OverallState } from '../contract/enums.js';

/**
 * One logical check, as the runtime reports it. Deliberately no transaction hash and no
 * provider detail. Idempotent replays are not recorded. Stores keep no per-request rows: each
 * record is counted into its organization's bucket of its UTC day (`UsageDay`).
 */
export interface UsageRecord {
  organizationId: string;
  at: Date;
  /** Null when the request failed before its network was known. */
  network: string | null;
  /** Null for errors. */
  overallState: OverallState | null;
  coverage: Coverage | null;
  billable: boolean;
  latencyMs: number;
  /** Null for a 200. */
  errorCode: ErrorCode | null;
}

/**
 * Lower bounds in ms of the latency histogram's buckets: bucket `i` counts latencies in
 * `[bounds[i], bounds[i + 1])`, the last one everything from 20 s. Steps of at most 25 % past
 * 10 ms, so an estimated p50/p95 is within about 12 % of the true value.
 */
export const LATENCY_BUCKET_BOUNDS_MS: readonly number[] = [
  0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120, 150, 200, 250, 300, 400, 500, 600, 800,
  1000, 1200, 1500, 2000, 2500, 3000, 4000, 5000, 6000, 8000, 10000, 12000, 15000, 20000,
];

/** The histogram bucket of a latency (a negative or NaN latency counts as 0). */
export function latencyBucket(latencyMs: number): number {
  let low = 0;
  let high = LATENCY_BUCKET_BOUNDS_MS.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (LATENCY_BUCKET_BOUNDS_MS[mid]! <= latencyMs) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * The latency at quantile `q` (0..1) estimated from a histogram (linear within the bucket; the
 * open last bucket answers its lower bound). Null when the histogram is empty.
 */
export function latencyQuantile(histogram: readonly number[], q: number): number | null {
  const total = histogram.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.min(total, Math.max(1, Math.ceil(q * total)));
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    const n = histogram[i] ?? 0;
    if (seen + n >= rank) {
      const low = LATENCY_BUCKET_BOUNDS_MS[i]!;
      const high = LATENCY_BUCKET_BOUNDS_MS[i + 1];
      return high === undefined ? low : low + ((high - low) * (rank - seen)) / n;
    }
    seen += n;
  }
  return null;
}

/** One organization's usage on one UTC day: what the usage report and the portal statistics read. */
export interface UsageDay {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  requests: number;
  billable: number;
  limitedData: number;
  errors: number;
  latencySumMs: number;
  latencyCount: number;
  byNetwork: Record<string, number>;
  byOverallState: Record<string, number>;
  /** Counts per bucket of `LATENCY_BUCKET_BOUNDS_MS` (same length). */
  latencyHistogram: number[];
}

/** Days `firstDay..lastDay` (inclusive, `YYYY-MM-DD` UTC) of one organization. */
export interface UsageDaysParams {
  organizationId: string;
  firstDay: string;
  lastDay: string;
}

export interface UsageStore {
  /** Counts one check into its organization's bucket of the UTC day of `record.at`. */
  recordUsage(record: UsageRecord): Promise<void>;
  /** The organization's days in the range that have any usage, oldest first (at most one row a day). */
  readUsageDays(params: UsageDaysParams): Promise<UsageDay[]>;
  /**
   * Deletes buckets of days before `firstKeptDay` (retention), at most `limit` of them per call,
   * oldest first; returns how many. A caller repeats until fewer than `limit` come back.
   */
  purgeUsageBefore(firstKeptDay: string, limit?: number): Promise<number>;
}

/** The UTC day (`YYYY-MM-DD`) of an instant. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The UTC day `days` days after `day` (negative: before). */
export function addDays(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00.000Z`) + days * 86_400_000));
}

/** An empty bucket of `day`. */
export function emptyUsageDay(day: string): UsageDay {
  return {
    day,
    requests: 0,
    billable: 0,
    limitedData: 0,
    errors: 0,
    latencySumMs: 0,
    latencyCount: 0,
    byNetwork: {},
    byOverallState: {},
    latencyHistogram: LATENCY_BUCKET_BOUNDS_MS.map(() => 0),
  };
}

/** Counts `record` into `bucket` (the one definition of what a record adds; stores without SQL use it). */
export function countUsage(bucket: UsageDay, record: Omit<UsageRecord, 'organizationId' | 'at'>): void {
  bucket.requests++;
  if (record.billable) bucket.billable++;
  if (record.overallState === 'LIMITED_DATA') bucket.limitedData++;
  if (record.errorCode !== null) bucket.errors++;
  bucket.latencySumMs += record.latencyMs;
  bucket.latencyCount++;
  if (record.network !== null) bucket.byNetwork[record.network] = (bucket.byNetwork[record.network] ?? 0) + 1;
  if (record.overallState !== null)
    bucket.byOverallState[record.overallState] = (bucket.byOverallState[record.overallState] ?? 0) + 1;
  bucket.latencyHistogram[latencyBucket(record.latencyMs)]!++;
}

export interface UsageSummary {
  requests: number;
  billable: number;
  limitedData: number;
  errors: number;
  /** Rounded mean over the records; null when there are none. */
  averageLatencyMs: number | null;
  byNetwork: Record<string, number>;
  byOverallState: Record<string, number>;
}

/** The sum of daily buckets, as the usage report shows it. */
export function summarizeUsageDays(days: readonly UsageDay[]): UsageSummary {
  const summary: UsageSummary = {
    requests: 0,
    billable: 0,
    limitedData: 0,
    errors: 0,
    averageLatencyMs: null,
    byNetwork: {},
    byOverallState: {},
  };
  let latencySum = 0;
  let latencyCount = 0;
  const add = (into: Record<string, number>, from: Record<string, number>) => {
    for (const [name, n] of Object.entries(from)) into[name] = (into[name] ?? 0) + n;
  };
  for (const day of days) {
    summary.requests += day.requests;
    summary.billable += day.billable;
    summary.limitedData += day.limitedData;
    summary.errors += day.errors;
    latencySum += day.latencySumMs;
    latencyCount += day.latencyCount;
    add(summary.byNetwork, day.byNetwork);
    add(summary.byOverallState, day.byOverallState);
  }
  if (latencyCount > 0) summary.averageLatencyMs = Math.round(latencySum / latencyCount);
  return summary;
}
