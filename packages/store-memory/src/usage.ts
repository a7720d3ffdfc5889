import type { UsageDay, UsageDaysParams, UsageRecord, UsageStore } from '@tron-safety/core';
import { countUsage, emptyUsageDay, utcDay, addDays } from '@tron-safety/core/internal';

const DAY_MS = 86_400_000;

/**
 * Usage as daily buckets per organization: memory grows with organizations × days kept, not with
 * requests. Days before the retention (relative to the newest day recorded) are dropped as a
 * new day starts, a whole day at a time.
 */
export class MemoryUsageStore implements UsageStore {
  /** Day → organization → bucket; days in the order they were first recorded. */
  readonly #days = new Map<string, Map<string, UsageDay>>();
  readonly #retentionDays: number;

  constructor(retentionDays = 90) {
    this.#retentionDays = retentionDays;
  }

  async recordUsage(record: UsageRecord): Promise<void> {
    this.record(record);
  }

  /** `recordUsage` without a promise, for the check store. */
  record(record: UsageRecord): void {
    const day = this.#dayOf(record.at.getTime());
    let buckets = this.#days.get(day);
    if (!buckets) {
      this.#days.set(day, (buckets = new Map()));
      this.#purgeBefore(addDays(day, 1 - this.#retentionDays), Infinity);
    }
    let bucket = buckets.get(record.organizationId);
    if (!bucket) buckets.set(record.organizationId, (bucket = emptyUsageDay(day)));
    countUsage(bucket, record);
  }

  /** The UTC day of an instant, remembering the last one (most records fall on the same day). */
  #lastDay = { start: 0, end: 0, day: '' };
  #dayOf(at: number): string {
    const last = this.#lastDay;
    if (at >= last.start && at < last.end) return last.day;
    const start = at - (((at % DAY_MS) + DAY_MS) % DAY_MS);
    this.#lastDay = { start, end: start + DAY_MS, day: utcDay(new Date(start)) };
    return this.#lastDay.day;
  }

  async readUsageDays(params: UsageDaysParams): Promise<UsageDay[]> {
    const days: UsageDay[] = [];
    for (const [day, buckets] of this.#days) {
      if (day < params.firstDay || day > params.lastDay) continue;
      const bucket = buckets.get(params.organizationId);
      if (bucket) days.push(structuredCopy(bucket));
    }
    return days.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  }

  async purgeUsageBefore(firstKeptDay: string, limit = Infinity): Promise<number> {
    return this.#purgeBefore(firstKeptDay, limit);
  }

  #purgeBefore(firstKeptDay: string, limit: number): number {
    let purged = 0;
    for (const [day, buckets] of this.#days) {
      if (purged >= limit) break;
      if (day >= firstKeptDay) continue;
      purged += buckets.size;
      this.#days.delete(day);
    }
    return purged;
  }
}

/** A bucket as a reader may keep it: the live one goes on counting. */
function structuredCopy(day: UsageDay): UsageDay {
  return {
    ...day,
    byNetwork: { ...day.byNetwork },
    byOverallState: { ...day.byOverallState },
    latencyHistogram: [...day.latencyHistogram],
  };
}
