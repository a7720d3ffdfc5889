import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CoreHttpResponse, MemberView, SessionRecord, SessionStore } from '@tron-safety/core';
import { newToken, tokenHash } from '@tron-safety/core/internal';
import type { Cookies } from './cookies.js';
import type { PortalRequest } from './http.js';

/** The session cookie's name, `__Host-`-prefixed over HTTPS (see `Cookies`). */
export const SESSION_COOKIE = 'portal_session';
/** Before sign-in there is no session: the sign-in and invitation forms carry this cookie's value. */
export const FORM_COOKIE = 'portal_form';

export interface SessionPolicy {
  /** A session unused this long ends (default 30 minutes). */
  idleMs: number;
  /** A session ends this long after sign-in, however busy (default 12 hours). */
  absoluteMs: number;
}

export const DEFAULT_SESSION_POLICY: SessionPolicy = { idleMs: 30 * 60_000, absoluteMs: 12 * 3_600_000 };
const FORM_COOKIE_SECONDS = 3600;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Equal strings, compared in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The CSRF token of a signed-in session: derived from the session token (which only the cookie
 * carries), so nothing more is stored and another site, which cannot read the cookie, cannot forge it.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('portal csrf').digest('base64url');
}

/** Sign-in sessions: a random token in an HttpOnly cookie, its SHA-256 in the session store. */
export class Sessions {
  constructor(
    private readonly store: SessionStore,
    private readonly policy: SessionPolicy,
    private readonly cookies: Cookies,
  ) {}

  /**
   * A new session for the member; returns its Set-Cookie value. The session the request's browser held
   * until now (a stale sign-in tab, another member at a shared desk) is ended on the server: the cookie
   * replaced in the browser would otherwise keep opening the portal until its idle or absolute end.
   */
  async start(request: PortalRequest, member: MemberView, now: Date): Promise<string> {
    const previous = await this.resume(request, now);
    if (previous) await this.store.deleteSession(tokenHash(previous.token));
    const token = newToken();
    await this.store.createSession({
      tokenHash: tokenHash(token),
      memberId: member.id,
      organizationId: member.organizationId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.policy.absoluteMs),
      idleExpiresAt: new Date(now.getTime() + this.policy.idleMs),
    });
    return this.cookies.set(SESSION_COOKIE, token, this.policy.absoluteMs / 1000);
  }

  /** The request's live session (its idle end moved on) with its token, or null. */
  async resume(request: PortalRequest, now: Date): Promise<{ token: string; session: SessionRecord } | null> {
    const token = this.cookies.read(request, SESSION_COOKIE);
    if (!token || !TOKEN.test(token)) return null;
    const session = await this.store.touchSession({
      tokenHash: tokenHash(token),
      now,
      idleExpiresAt: new Date(now.getTime() + this.policy.idleMs),
    });
    return session ? { token, session } : null;
  }

  /** Ends the session on the server and returns the Set-Cookie value that clears the cookie. */
  async end(token: string): Promise<string> {
    await this.store.deleteSession(tokenHash(token));
    return this.clearCookie();
  }

  clearCookie(): string {
    return this.cookies.set(SESSION_COOKIE, '', 0);
  }

  /**
   * The pre-sign-in form token (the request's own when it has a valid one, else a new one) and its cookie,
   * set again for another hour with every form shown: a form posted within the hour after it was shown
   * finds its cookie, however long ago the first one was.
   */
  formToken(request: PortalRequest): { token: string; setCookie: string } {
    const existing = this.cookies.read(request, FORM_COOKIE);
    const token = existing && TOKEN.test(existing) ? existing : newToken();
    return { token, setCookie: this.cookies.set(FORM_COOKIE, token, FORM_COOKIE_SECONDS) };
  }

  /**
   * A signed-in member's answer, clearing the pre-sign-in form cookie the browser still holds, so no form
   * token outlives the sign-in: the next sign-in form gets a new one. An answer setting a cookie of its
   * own (one `Set-Cookie` per answer) leaves that to the next one.
   */
  withoutFormCookie(request: PortalRequest, response: CoreHttpResponse): CoreHttpResponse {
    if (response.headers['set-cookie'] !== undefined || this.cookies.read(request, FORM_COOKIE) === undefined)
      return response;
    return { ...response, headers: { ...response.headers, 'set-cookie': this.cookies.set(FORM_COOKIE, '', 0) } };
  }

  /** Double submit: the form's token must equal the cookie's (a cross-site post carries no Lax cookie). */
  formTokenMatches(request: PortalRequest, submitted: string | null): boolean {
    const expected = this.cookies.read(request, FORM_COOKIE);
    return !!expected && !!submitted && TOKEN.test(expected) && sameSecret(expected, submitted);
  }
}
