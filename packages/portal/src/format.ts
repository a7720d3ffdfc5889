/** `2026-06-01 12:00 UTC` (or `12:00:05` with seconds): portal times are UTC, like the quota period and the daily buckets. */
export function formatTime(date: Date, options: { seconds?: boolean } = {}): string {
  return `${date
    .toISOString()
    .slice(0, options.seconds ? 19 : 16)
    .replace('T', ' ')} UTC`;
}

export const formatNumber = (n: number) => n.toLocaleString('en-US');

/** A core message (`the last owner cannot be demoted: …`) as a sentence on a page. */
export function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
