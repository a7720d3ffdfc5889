/** UTC calendar month of `now`: the quota period. `end` is the next month's first instant. */
export function monthOf(now: Date): { key: string; start: Date; end: Date } {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  return {
    key: `${year}-${String(month + 1).padStart(2, '0')}`,
    start: new Date(Date.UTC(year, month, 1)),
    end: new Date(Date.UTC(year, month + 1, 1)),
  };
}

/** The fixed one-minute rate window containing `now`. */
export function minuteOf(now: Date): { start: Date; end: Date } {
  const start = Math.floor(now.getTime() / 60_000) * 60_000;
  return { start: new Date(start), end: new Date(start + 60_000) };
}

export const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** Whole seconds from `now` until `later`, at least 1 (for Retry-After and delay-seconds). */
export const secondsUntil = (later: Date, now: Date) =>
  Math.max(1, Math.ceil((later.getTime() - now.getTime()) / 1000));
