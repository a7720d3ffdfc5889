/** `2026-06-01 12:00 UTC` (or `12:00:05` with seconds): portal times are UTC, like the quota period and the daily buckets. */
export function formatTime(date: Date, options: { seconds?: boolean } = {}): string {
  return `${date
    .toISOString()
    .slice(0, options.seconds ? 19 : 16)
    .replace('T', ' ')} UTC`;
}

export const formatNumber = (n: number) => n.toLocaleString('en-US');

/** `263,517 seconds (about 3 days)`: an age in seconds, with a rounder reading past two minutes. */
export function formatAge(seconds: number): string {
  const exact = `${formatNumber(seconds)} ${seconds === 1 ? 'second' : 'seconds'}`;
  const units: [number, string][] = [
    [86_400 * 2, 'days'],
    [3600 * 2, 'hours'],
    [120, 'minutes'],
  ];
  const unit = units.find(([limit]) => seconds >= limit);
  if (!unit) return exact;
  const size = { days: 86_400, hours: 3600, minutes: 60 }[unit[1]]!;
  return `${exact} (about ${Math.round(seconds / size)} ${unit[1]})`;
}

/** A core message (`the last owner cannot be demoted: …`) as a sentence on a page. */
export function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
