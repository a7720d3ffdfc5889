/**
 * Dates of sanctions evidence that come from outside this process: a list file's `# as-of` or modification
 * time, an operator's `--as-of`, a stored list's confirmation, OFAC's Publish_Date, a server's Last-Modified.
 * A date ahead of this host's clock is a typo or a wrong clock, never a list known current beyond now:
 * treated as now, it would confirm the list afresh at every load or refresh and keep stale evidence current.
 */

/** How far ahead of this host's clock another machine's clock may be: within it, a date counts as now. */
export const SANCTIONS_DATE_SKEW_MS = 60_000;

/** `date` if it is not in the future (within the skew it counts as `now`); null beyond the skew. */
export function notInFuture(date: Date, now: Date): Date | null {
  if (date.getTime() > now.getTime() + SANCTIONS_DATE_SKEW_MS) return null;
  return date > now ? now : date;
}

/** The message of a refused future date: what it was and what the clock reads. */
export function futureDate(what: string, date: Date, now: Date): string {
  return `${what} ${date.toISOString()} is in the future (this host's clock reads ${now.toISOString()}): no list is known current beyond now`;
}

/** A Last-Modified header, unless it names a time in the future (sent back as If-Modified-Since, it would have every later version answer 304). */
export function credibleLastModified(lastModified: string | null, now: Date): string | null {
  const at = Date.parse(lastModified ?? '');
  return Number.isNaN(at) || notInFuture(new Date(at), now) !== null ? lastModified : null;
}
