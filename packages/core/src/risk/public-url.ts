/**
 * A configured URL as it may be logged, stored or shown in an error: scheme, host, port and path, without
 * the user-info, query and fragment where deployments put credentials (`user:pass@`, `?token=…`, a signed
 * mirror URL). A value that does not parse is not shown at all.
 */
export function publicUrl(value: string): string {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(not a URL)';
  }
}
