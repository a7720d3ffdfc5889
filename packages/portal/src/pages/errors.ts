import type { AdminError, CoreHttpResponse } from '@tron-safety/core';
import { statusOf, type SignedIn } from '../context.js';
import { sentence } from '../format.js';
import { html } from '../html.js';
import { PORTAL_PATH } from '../http.js';
import { layout, publicPage } from './layout.js';

const TITLES: Record<number, string> = {
  403: 'Not allowed',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Not possible',
  413: 'Request too large',
  422: 'Not accepted',
  429: 'Too many attempts',
  500: 'Something went wrong',
  503: 'Busy',
};

/** An error page, inside the portal's layout when the member is signed in. */
export function errorPage(
  ctx: SignedIn | null,
  view: { status: number; message: string; headers?: Record<string, string> },
): CoreHttpResponse {
  const title = TITLES[view.status] ?? 'Error';
  const body = html`<p class="problem" role="alert">${view.message}</p>
    <p><a href="${PORTAL_PATH}/${ctx ? 'overview' : 'sign-in'}">Back to the portal</a></p>`;
  const response = ctx
    ? layout(ctx, { title, section: null, body, status: view.status })
    : publicPage({ title, body, status: view.status });
  return { ...response, headers: { ...response.headers, ...view.headers } };
}

/**
 * Every password derivation place and its queue taken (a flood of sign-ins or invitation posts): 503 with
 * `Retry-After`, busy rather than broken.
 */
export function busyPage(message: string): CoreHttpResponse {
  return errorPage(null, { status: 503, message: sentence(message), headers: { 'retry-after': '5' } });
}

/** The page for an admin API refusal: 403 for a role that may not, 404, 409, 422, 503 when busy. */
export function refusal(ctx: SignedIn, error: AdminError): CoreHttpResponse {
  const message =
    error.code === 'forbidden'
      ? `Your role (${ctx.member.role}) does not allow this: ${error.message}.`
      : sentence(error.message);
  return errorPage(ctx, { status: statusOf(error), message });
}

/** A state-changing form without the session's CSRF token: nothing was done. */
export function csrfRefused(ctx: SignedIn): CoreHttpResponse {
  return errorPage(ctx, {
    status: 403,
    message:
      'This form is out of date or did not come from the portal, so nothing was changed. Go back, reload the page and try again.',
  });
}
