import type { CoreHttpResponse } from '@tron-safety/core';
import type { SignedIn } from '../context.js';
import { queryValue, redirect } from '../http.js';
import type { Reveal } from '../reveal.js';

/**
 * After a form that made a secret: 303 to `location?r=<id>`, the page that shows that reveal once (see
 * `Reveals`).
 */
export function redirectToReveal(ctx: SignedIn, location: string, reveal: Reveal): CoreHttpResponse {
  const { id, setCookie } = ctx.deps.reveals.seal(ctx.request, ctx.sessionToken, reveal, ctx.deps.now());
  return redirect(`${location}?r=${id}`, { 'set-cookie': setCookie });
}

/**
 * The page that shows the reveal its URL names, if it is of this kind, answered with its cookie dropped,
 * so a reload shows nothing; `gone` when there is none (shown already, expired, another session's, or
 * another kind's, which stays for its own page).
 */
export async function showReveal<K extends Reveal['kind']>(
  ctx: SignedIn,
  kind: K,
  show: (reveal: Extract<Reveal, { kind: K }>) => Promise<CoreHttpResponse | null> | CoreHttpResponse | null,
  gone: string,
): Promise<CoreHttpResponse> {
  const id = queryValue(ctx.request, 'r');
  const opened =
    id === undefined ? null : ctx.deps.reveals.open(ctx.request, ctx.sessionToken, { id, kind }, ctx.deps.now());
  if (!opened) return redirect(gone);
  const response = (await show(opened.reveal)) ?? redirect(gone);
  return { ...response, headers: { ...response.headers, 'set-cookie': opened.clear } };
}
