/**
 * Whether `value` reaches the server unchanged as an HTTP header value: tab, space, visible ASCII and
 * Latin-1 only (undici refuses anything else, a line break included, before a byte is sent), and no
 * space or tab at either end (HTTP strips those). An empty value is sendable.
 */
export function isHeaderValue(value: string): boolean {
  return typeof value === 'string' && /^(?:[!-~\x80-\xff](?:[\t -~\x80-\xff]*[!-~\x80-\xff])?)?$/.test(value);
}
