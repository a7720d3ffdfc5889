import type { CoreHttpResponse } from '@tron-safety/core';
import type { SignedIn } from '../context.js';
import { redirect } from '../http.js';
import type { Reveal } from '../reveal.js';

/** After a form that made a secret: 303 to `location`, the page that shows it once (see `Reveals`). */
export function redirectToReveal(ctx: SignedIn, location: string, reveal: Reveal): CoreHttpResponse {
  return redirect(location, { 'set-cookie': ctx.deps.reveals.seal(ctx.sessionToken, reveal, ctx.deps.now()) });
}

/**
 * The page that shows the request's reveal of this kind, answered with the cookie dropped, so a reload
 * shows nothing; `gone` when there is none (shown already, expired, or another session's).
 */
export async function showReveal<K extends Reveal['kind']>(
  ctx: SignedIn,
  kind: K,
  show: (reveal: Extract<Reveal, { kind: K }>) => Promise<CoreHttpResponse | null> | CoreHttpResponse | null,
  gone: string,
): Promise<CoreHttpResponse> {
  const reveal = ctx.deps.reveals.open(ctx.request, ctx.sessionToken, kind, ctx.deps.now());
  const shown = reveal && (await show(reveal));
  const response = shown ?? redirect(gone);
  return { ...response, headers: { ...response.headers, 'set-cookie': ctx.deps.reveals.clear() } };
}
