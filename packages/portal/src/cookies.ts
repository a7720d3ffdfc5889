import type { CoreHttpRequest } from '@tron-safety/core';
import { PORTAL_PATH } from './http.js';

/**
 * The portal's cookies (session, pre-sign-in form token, a secret's reveal). Over HTTPS they are
 * `__Host-` cookies: `Secure`, `Path=/` and no `Domain`, which browsers enforce, so a sibling subdomain
 * or a plain-HTTP page of the same host cannot set or overwrite one (a session fixed by an attacker).
 * Only the prefixed names are read then. Over plain HTTP on loopback (a developer's machine) the
 * prefix is impossible: the cookies are unprefixed, without `Secure`, for the portal's paths only.
 */
export class Cookies {
  constructor(readonly secure: boolean) {}

  name(base: string): string {
    return this.secure ? `__Host-${base}` : base;
  }

  /** The named cookie of the request, or undefined (a cookie sent twice counts as absent). */
  read(request: CoreHttpRequest, base: string): string | undefined {
    return this.named(request, (name) => name === base).get(base);
  }

  /**
   * The request's cookies whose base name (without the `__Host-` prefix) passes `wanted`, by that name;
   * a cookie sent twice counts as absent.
   */
  named(request: CoreHttpRequest, wanted: (base: string) => boolean): Map<string, string> {
    const prefix = this.name('');
    const headers = request.headers.cookie;
    const lines = Array.isArray(headers) ? headers : headers === undefined ? [] : [headers];
    const found = new Map<string, string | undefined>();
    for (const pair of lines.flatMap((line) => line.split(';')).map((p) => p.trim())) {
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const base = at > 0 && name.startsWith(prefix) ? name.slice(prefix.length) : null;
      if (base === null || !wanted(base)) continue;
      found.set(base, found.has(base) ? undefined : pair.slice(at + 1));
    }
    return new Map([...found].filter((entry): entry is [string, string] => entry[1] !== undefined));
  }

  /** A Set-Cookie value out of reach of scripts and of cross-site posts; `maxAgeSeconds` 0 clears it. */
  set(base: string, value: string, maxAgeSeconds: number): string {
    const parts = [
      `${this.name(base)}=${value}`,
      `Path=${this.secure ? '/' : PORTAL_PATH}`,
      'HttpOnly',
      'SameSite=Lax',
      `Max-Age=${maxAgeSeconds}`,
    ];
    if (this.secure) parts.push('Secure');
    return parts.join('; ');
  }
}
