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
    const name = this.name(base);
    const headers = request.headers.cookie;
    const lines = Array.isArray(headers) ? headers : headers === undefined ? [] : [headers];
    const found = lines
      .flatMap((line) => line.split(';'))
      .map((pair) => pair.trim())
      .filter((pair) => pair.startsWith(`${name}=`))
      .map((pair) => pair.slice(name.length + 1));
    return found.length === 1 ? found[0] : undefined;
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
