import type { CoreHttpResponse } from '@tron-safety/core';
import type { PortalDeps } from '../context.js';
import { formatTime } from '../format.js';
import { html } from '../html.js';
import { Form, PORTAL_PATH, queryValue, redirect, type PortalRequest } from '../http.js';
import { retryAfter } from '../throttle.js';
import { busyPage } from './errors.js';
import { csrfField, notice, problem, publicPage } from './layout.js';

const MAX_FIELD_LENGTH = 512;

function signInForm(
  deps: PortalDeps,
  request: PortalRequest,
  view: { status?: number; error?: string; email?: string },
): CoreHttpResponse {
  const form = deps.sessions.formToken(request);
  return publicPage(
    {
      title: 'Sign in',
      status: view.status ?? 200,
      body: html`${notice(queryValue(request, 'done'))}${problem(view.error)}
        <form method="post" action="${PORTAL_PATH}/sign-in" class="stacked">
          ${csrfField(form.token)}
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required value="${view.email ?? ''}" />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit">Sign in</button>
        </form>
        <p class="hint">
          Access is by invitation: an owner or admin of your organization sends you a link to set your password.
        </p>`,
    },
    { 'set-cookie': form.setCookie },
  );
}

/** `GET /portal/sign-in`; a member with a live session goes straight to the overview. */
export async function signInPage(deps: PortalDeps, request: PortalRequest): Promise<CoreHttpResponse> {
  if (await deps.sessions.resume(request, deps.now())) return redirect(`${PORTAL_PATH}/overview`);
  return signInForm(deps, request, {});
}

/**
 * `POST /portal/sign-in`: email and password only (an API key never signs in). Throttled per email
 * and per client before the password is checked; an attempt counts against both until it proves right.
 */
export async function signIn(deps: PortalDeps, request: PortalRequest): Promise<CoreHttpResponse> {
  const form = new Form(request.body);
  if (!deps.sessions.formTokenMatches(request, form.field('csrf'))) return formExpired(deps, request);
  const email = (form.field('email') ?? '').trim().toLowerCase().slice(0, MAX_FIELD_LENGTH);
  const password = (form.field('password') ?? '').slice(0, MAX_FIELD_LENGTH);
  const client = request.clientAddress ?? 'unknown';
  const now = deps.now();
  const { blockedUntil: blocked, windowStart } = await deps.throttle.attempt(email, client, now);
  if (blocked) {
    return withHeader(
      signInForm(deps, request, {
        status: 429,
        email,
        error: `Too many failed sign-ins. Try again after ${formatTime(blocked)}.`,
      }),
      'retry-after',
      retryAfter(blocked, now),
    );
  }
  const member = await deps.admin.members.checkPassword(email, password);
  // Busy (every password derivation place taken): still counted, as nothing proved the password right.
  if (member.isErr()) return busyPage(member.error.message);
  if (!member.value) return signInForm(deps, request, { status: 401, email, error: 'Wrong email or password.' });
  await deps.throttle.forgive(email, client, windowStart);
  return redirect(`${PORTAL_PATH}/overview`, { 'set-cookie': await deps.sessions.start(request, member.value, now) });
}

/** A pre-sign-in form whose token does not match its cookie: refused, with a fresh form. */
export function formExpired(deps: PortalDeps, request: PortalRequest): CoreHttpResponse {
  return signInForm(deps, request, {
    status: 403,
    error: 'This form is out of date or did not come from the portal. Please try again.',
  });
}

function withHeader(response: CoreHttpResponse, name: string, value: string): CoreHttpResponse {
  return { ...response, headers: { ...response.headers, [name]: value } };
}
