/** Host names a request to which stays on this machine: localhost, 127.0.0.0/8 and [::1]. */
const LOOPBACK = /^(?:localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/**
 * Whether a request to `baseUrl` would carry the API key across the network in clear: plain http to a host
 * other than this machine. False for a URL that does not parse (the client refuses that one itself).
 */
export function sendsInClear(baseUrl: string): boolean {
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : null;
  return url?.protocol === 'http:' && !LOOPBACK.test(url.hostname);
}
