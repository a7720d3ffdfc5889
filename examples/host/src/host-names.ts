import { isLoopback } from './config.js';

/** Whether a request's `Host` header names this listener (absent: a client before HTTP/1.1, not a browser). */
export type HostRule = (host: string | undefined) => boolean;

/** `name` or `name:port`, the name a DNS name or IPv4 address, or an IPv6 address in brackets. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[^\s:@/[\]]+)(?::\d{1,5})?$/i;

/**
 * DNS rebinding: a page of another site that points its own name at 127.0.0.1 reaches a loopback listener
 * from a browser on this machine as that site's origin, so the browser lets it read the answers (metrics,
 * readiness) and post the portal's forms. Its requests still name that site in `Host`. So a listener bound
 * to loopback answers only requests naming this machine (`localhost`, `127.x.x.x`, `[::1]`, any port) or
 * PORTAL_PUBLIC_URL's host (a proxy in front that passes the browser's `Host` on). Null for a listener on
 * other addresses: the names it is reached by are the network's (a proxy or load balancer checks them).
 */
export function hostRule(listenHost: string, publicUrl: string | null): HostRule | null {
  if (!isLoopback(listenHost)) return null;
  const published = publicUrl === null ? null : new URL(publicUrl).hostname;
  return (host) => {
    if (host === undefined) return true;
    const name = HOST_HEADER.exec(host)?.[1]?.toLowerCase();
    return name !== undefined && (isLoopback(name) || name === published);
  };
}

/** The body of the 421 Misdirected Request a listener answers to a request naming another host. */
export const MISDIRECTED_TEXT =
  "421 Misdirected Request: this loopback listener answers only requests for localhost, 127.x.x.x, [::1] or PORTAL_PUBLIC_URL's host.\n";
