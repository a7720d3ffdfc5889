/**
 * `Date.prototype.toISOString`, exactly, for the times a response carries (four a check). The
 * text up to the seconds is kept per second: the times of one check and of the checks around it
 * fall in few distinct seconds (now, the block, the risk answers' as-of times), so most calls only
 * append the milliseconds.
 */
export function isoString(time: Date): string {
  const ms = time.getTime();
  const second = Math.floor(ms / 1000);
  let prefix = bySecond.get(second);
  if (prefix === undefined) {
    // Throws for an invalid date, as toISOString does.
    prefix = new Date(second * 1000).toISOString().slice(0, -4);
    if (bySecond.size >= MAX_SECONDS) bySecond.clear();
    bySecond.set(second, prefix);
  }
  const milli = ms - second * 1000;
  return `${prefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

/** `YYYY-MM-DDTHH:mm:ss.` by Unix second; cleared whole when full (a bound, not an LRU). */
const bySecond = new Map<number, string>();
const MAX_SECONDS = 64;
