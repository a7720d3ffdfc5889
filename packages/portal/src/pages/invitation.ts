import type { CoreHttpResponse } from '@tron-safety/core';
import { MIN_PASSWORD_LENGTH } from '@tron-safety/core/internal';
import type { PortalDeps } from '../context.js';
import { formatTime, sentence } from '../format.js';
import { html } from '../html.js';
import { Form, PORTAL_PATH, queryValue, redirect, type PortalRequest } from '../http.js';
import { retryAfter } from '../throttle.js';
import { busyPage, errorPage } from './errors.js';
import { csrfField, problem, publicPage } from './layout.js';
import { formExpired } from './sign-in.js';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function unusable(): CoreHttpResponse {
  return publicPage({
    title: 'Invitation link not valid',
    status: 404,
    body: html`<p>
        This invitation link is used, expired or unknown. Ask an owner or admin of your organization for a new
        invitation.
      </p>
      <p><a href="${PORTAL_PATH}/sign-in">Sign in</a> if you have set your password already.</p>`,
  });
}

async function passwordForm(
  deps: PortalDeps,
  request: PortalRequest,
  view: { token: string; status?: number; error?: string },
): Promise<CoreHttpResponse> {
  const invited = TOKEN.test(view.token) ? await deps.admin.members.invitation(view.token) : null;
  if (!invited || invited.isErr()) return unusable();
  const form = deps.sessions.formToken(request);
  const member = invited.value;
  return publicPage(
    {
      title: 'Set your password',
      status: view.status ?? 200,
      body: html`${problem(view.error)}
        <p>
          You are invited as <strong>${member.role}</strong> with the email <strong>${member.email}</strong>. This link
          works once, until ${formatTime(member.invitationExpiresAt!)}.
        </p>
        <form method="post" action="${PORTAL_PATH}/invitation" class="stacked">
          ${csrfField(form.token)}
          <input type="hidden" name="token" value="${view.token}" />
          <input type="hidden" name="email" value="${member.email}" autocomplete="username" />
          <label for="password">New password</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="new-password"
            minlength="${MIN_PASSWORD_LENGTH}"
            required
            aria-describedby="password-rule"
          />
          <p id="password-rule" class="hint">At least ${MIN_PASSWORD_LENGTH} characters.</p>
          <label for="repeat">Repeat the password</label>
          <input id="repeat" name="repeat" type="password" autocomplete="new-password" required />
          <button type="submit">Set password</button>
        </form>`,
    },
    { 'set-cookie': form.setCookie },
  );
}

/** `GET /portal/invitation?token=…`: the form that sets the invited member's password. */
export function invitationPage(deps: PortalDeps, request: PortalRequest): Promise<CoreHttpResponse> {
  return passwordForm(deps, request, { token: queryValue(request, 'token') ?? '' });
}

/** `POST /portal/invitation`: sets the password (the link then stops working) and goes to sign-in. */
export async function acceptInvitation(deps: PortalDeps, request: PortalRequest): Promise<CoreHttpResponse> {
  const form = new Form(request.body);
  if (!deps.sessions.formTokenMatches(request, form.field('csrf'))) return formExpired(deps, request);
  const token = form.field('token') ?? '';
  const password = form.field('password') ?? '';
  if (password !== form.field('repeat'))
    return passwordForm(deps, request, { token, status: 422, error: 'The two passwords differ.' });
  if (!TOKEN.test(token)) return unusable();
  // Counted against the client like a failed sign-in until the link proves valid.
  const client = request.clientAddress ?? 'unknown';
  const now = deps.now();
  const { blockedUntil, windowStart } = await deps.throttle.attempt(null, client, now);
  if (blockedUntil) {
    const message = `Too many attempts with invitation links or sign-ins. Try again after ${formatTime(blockedUntil)}.`;
    return errorPage(null, { status: 429, message, headers: { 'retry-after': retryAfter(blockedUntil, now) } });
  }
  const accepted = await deps.admin.members.acceptInvitation(token, password);
  if (accepted.isErr() && accepted.error.code === 'not_found') return unusable();
  // Not forgiven: the link is valid, but no password was set.
  if (accepted.isErr() && accepted.error.code === 'busy') return busyPage(accepted.error.message);
  await deps.throttle.forgive(null, client, windowStart);
  if (accepted.isOk()) return redirect(`${PORTAL_PATH}/sign-in?done=password`);
  return passwordForm(deps, request, { token, status: 422, error: sentence(accepted.error.message) });
}
