import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { decode } from '@tron-safety/core';
import * as t from 'io-ts';
import type { Cookies } from './cookies.js';
import type { PortalRequest } from './http.js';

const REVEAL_COOKIE = 'portal_reveal';
/** How long a secret waits for the page that shows it (the redirect right after the form). */
const REVEAL_SECONDS = 300;
/** Reveals a browser keeps waiting at most: a newer one takes the oldest one's cookie. */
const MAX_WAITING = 4;
/** A reveal's id: 12 random bytes, base64url. */
const REVEAL_ID = /^[A-Za-z0-9_-]{16}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What the page after a form shows once: a new key, or an invitation's link token. */
const Reveal = t.union([
  t.type({ kind: t.literal('key'), secret: t.string, label: t.string, notice: t.string }),
  t.type({ kind: t.literal('invitation'), secret: t.string }),
]);
export type Reveal = t.TypeOf<typeof Reveal>;
const Sealed = t.intersection([Reveal, t.type({ id: t.string, until: t.number })]);
type Sealed = t.TypeOf<typeof Sealed>;

const isKind = <K extends Reveal['kind']>(reveal: Reveal, kind: K): reveal is Extract<Reveal, { kind: K }> =>
  reveal.kind === kind;

/** The AES-256-GCM key of a session's reveals: derived from its token, which only the browser holds. */
const keyOf = (sessionToken: string) => createHmac('sha256', sessionToken).update('portal reveal').digest();

/** A reveal cookie of the request: its name's id, and what it holds when this session sealed it and it is live. */
interface Waiting {
  cookie: string;
  sealed: Sealed | null;
}

/**
 * Post/Redirect/Get for a secret shown once (a key created or rotated, an invitation link): the form's
 * POST acts, puts the secret in a short-lived cookie encrypted under its session, and redirects to the
 * page that shows it, naming the reveal's id (not secret) in the URL; that page opens only the reveal of
 * its id and kind, and clears its cookie, so a reload neither repeats the action nor shows the secret
 * again. Each reveal has its own cookie (`portal_reveal_<id>`), so secrets made in two tabs before either
 * redirect is followed do not overwrite each other; a browser keeps at most `MAX_WAITING` of them. Nothing
 * is kept on the server, so any host behind a load balancer can show it, and the secret is never in a URL
 * (nor in a log line, which holds paths). The server stores only the session token's hash, so no stored
 * data decrypts a reveal; it opens only for the session that made it, within `REVEAL_SECONDS` (checked
 * inside the sealed value, not just the cookie's lifetime).
 */
export class Reveals {
  constructor(private readonly cookies: Cookies) {}

  /**
   * A new reveal: its id, for the URL of the page that shows it, and the Set-Cookie value that carries it.
   * With `MAX_WAITING` reveals waiting it replaces the oldest (expired, altered or another session's first).
   */
  seal(request: PortalRequest, sessionToken: string, reveal: Reveal, now: Date): { id: string; setCookie: string } {
    const id = randomBytes(12).toString('base64url');
    const waiting = this.waiting(request, sessionToken, now);
    const age = (w: Waiting) => w.sealed?.until ?? -Infinity;
    const cookie = waiting.length < MAX_WAITING ? id : waiting.sort((a, b) => age(a) - age(b))[0]!.cookie;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', keyOf(sessionToken), iv);
    const plain = JSON.stringify({ ...reveal, id, until: now.getTime() + REVEAL_SECONDS * 1000 });
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const value = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
    return { id, setCookie: this.cookies.set(`${REVEAL_COOKIE}_${cookie}`, value, REVEAL_SECONDS) };
  }

  /**
   * The request's reveal of this id and kind, sealed by this session and not expired, with the Set-Cookie
   * value that drops it (it was shown); else null, and the reveal waits for its own page.
   */
  open<K extends Reveal['kind']>(
    request: PortalRequest,
    sessionToken: string,
    wanted: { id: string; kind: K },
    now: Date,
  ): { reveal: Extract<Reveal, { kind: K }>; clear: string } | null {
    const found = this.waiting(request, sessionToken, now).find((w) => w.sealed?.id === wanted.id);
    if (!found?.sealed || !isKind(found.sealed, wanted.kind)) return null;
    return { reveal: found.sealed, clear: this.cookies.set(`${REVEAL_COOKIE}_${found.cookie}`, '', 0) };
  }

  /** The request's reveal cookies, each opened for this session (null: another session's, altered or expired). */
  private waiting(request: PortalRequest, sessionToken: string, now: Date): Waiting[] {
    const prefix = `${REVEAL_COOKIE}_`;
    const named = this.cookies.named(request, (n) => n.startsWith(prefix) && REVEAL_ID.test(n.slice(prefix.length)));
    return [...named].map(([name, value]) => {
      const sealed = unseal(sessionToken, value);
      return { cookie: name.slice(prefix.length), sealed: sealed && sealed.until > now.getTime() ? sealed : null };
    });
  }
}

/** A cookie's reveal, if this session sealed it unaltered. */
function unseal(sessionToken: string, cookie: string): Sealed | null {
  const value = Buffer.from(cookie, 'base64url');
  if (value.length <= IV_BYTES + TAG_BYTES) return null;
  const decipher = createDecipheriv('aes-256-gcm', keyOf(sessionToken), value.subarray(0, IV_BYTES));
  decipher.setAuthTag(value.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  let plain: string;
  try {
    plain = Buffer.concat([decipher.update(value.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString();
  } catch {
    return null; // another session's, or altered
  }
  const sealed = decode(Sealed, JSON.parse(plain) as unknown);
  return sealed.isOk() ? sealed.value : null;
}
