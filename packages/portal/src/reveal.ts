import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { decode } from '@tron-safety/core';
import * as t from 'io-ts';
import type { Cookies } from './cookies.js';
import type { PortalRequest } from './http.js';

const REVEAL_COOKIE = 'portal_reveal';
/** How long a secret waits for the page that shows it (the redirect right after the form). */
const REVEAL_SECONDS = 300;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What the page after a form shows once: a new key, or an invitation's link token. */
const Reveal = t.union([
  t.type({ kind: t.literal('key'), secret: t.string, label: t.string, notice: t.string }),
  t.type({ kind: t.literal('invitation'), secret: t.string }),
]);
export type Reveal = t.TypeOf<typeof Reveal>;
const Sealed = t.intersection([Reveal, t.type({ until: t.number })]);

const isKind = <K extends Reveal['kind']>(reveal: Reveal, kind: K): reveal is Extract<Reveal, { kind: K }> =>
  reveal.kind === kind;

/** The AES-256-GCM key of a session's reveals: derived from its token, which only the browser holds. */
const keyOf = (sessionToken: string) => createHmac('sha256', sessionToken).update('portal reveal').digest();

/**
 * Post/Redirect/Get for a secret shown once (a key created or rotated, an invitation link): the form's
 * POST acts, puts the secret in a short-lived cookie encrypted under its session, and redirects; the page
 * it redirects to shows the secret and clears the cookie, so a reload neither repeats the action nor shows
 * the secret again. Nothing is kept on the server, so any host behind a load balancer can show it, and
 * the secret is never in a URL (nor in a log line, which holds paths). The server stores only the
 * session token's hash, so no stored data decrypts a reveal; it opens only for the session that made it,
 * within `REVEAL_SECONDS` (checked inside the sealed value, not just the cookie's lifetime).
 */
export class Reveals {
  constructor(private readonly cookies: Cookies) {}

  /** The Set-Cookie value that carries `reveal` to the next page of this session. */
  seal(sessionToken: string, reveal: Reveal, now: Date): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', keyOf(sessionToken), iv);
    const plain = JSON.stringify({ ...reveal, until: now.getTime() + REVEAL_SECONDS * 1000 });
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const value = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
    return this.cookies.set(REVEAL_COOKIE, value, REVEAL_SECONDS);
  }

  /** The request's reveal of this kind, sealed by this session and not expired; else null. */
  open<K extends Reveal['kind']>(
    request: PortalRequest,
    sessionToken: string,
    kind: K,
    now: Date,
  ): Extract<Reveal, { kind: K }> | null {
    const value = Buffer.from(this.cookies.read(request, REVEAL_COOKIE) ?? '', 'base64url');
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
    if (sealed.isErr() || sealed.value.until <= now.getTime()) return null;
    return isKind(sealed.value, kind) ? sealed.value : null;
  }

  /** The Set-Cookie value that drops the reveal (it was shown). */
  clear(): string {
    return this.cookies.set(REVEAL_COOKIE, '', 0);
  }
}
