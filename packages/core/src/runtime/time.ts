/** A UTC calendar month: `key` is `YYYY-MM`, `end` the next month's first instant. */
export interface Month {
  readonly key: string;
  readonly start: Date;
  readonly end: Date;
}

/** A fixed one-minute rate window. */
export interface Minute {
  readonly start: Date;
  readonly end: Date;
}

// The last month and minute asked for: nearly every request falls in the same ones as the one
// before, so they are computed once per month and minute, not per request. Shared: never mutate.
let lastMonth: Month | null = null;
let lastMinute: Minute | null = null;

const contains = (span: { start: Date; end: Date } | null, at: number) =>
  span !== null && at >= span.start.getTime() && at < span.end.getTime();

/** UTC calendar month of `now`: the quota period. `end` is the next month's first instant. */
export function monthOf(now: Date): Month {
  if (contains(lastMonth, now.getTime())) return lastMonth!;
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  lastMonth = Object.freeze({
    key: `${year}-${String(month + 1).padStart(2, '0')}`,
    start: new Date(Date.UTC(year, month, 1)),
    end: new Date(Date.UTC(year, month + 1, 1)),
  });
  return lastMonth;
}

/** The fixed one-minute rate window containing `now`. */
export function minuteOf(now: Date): Minute {
  if (contains(lastMinute, now.getTime())) return lastMinute!;
  const start = Math.floor(now.getTime() / 60_000) * 60_000;
  lastMinute = Object.freeze({ start: new Date(start), end: new Date(start + 60_000) });
  return lastMinute;
}

export const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** Whole seconds from `now` until `later`, at least 1 (for Retry-After and delay-seconds). */
export const secondsUntil = (later: Date, now: Date) =>
  Math.max(1, Math.ceil((later.getTime() - now.getTime()) / 1000));
