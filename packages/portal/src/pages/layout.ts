import type { CoreHttpResponse } from '@tron-safety/core';
import type { SignedIn } from '../context.js';
import { html, type Html } from '../html.js';
import { page, PORTAL_PATH } from '../http.js';

export type Section = 'overview' | 'keys' | 'usage' | 'check' | 'members';

const NAVIGATION: [Section, string][] = [
  ['overview', 'Overview'],
  ['keys', 'API keys'],
  ['usage', 'Usage'],
  ['check', 'Check a transaction'],
  ['members', 'Members'],
];

/** Messages after a redirect (`?done=…`): fixed texts, so nothing from the URL reaches the page. */
const NOTICES: Record<string, string> = {
  revoked: 'The key is revoked: requests with it now answer 401.',
  'key-shown':
    'A new key is shown once, and that one has been shown. If it was not copied, rotate it (or revoke it and create another).',
  'invitation-shown':
    'An invitation link is shown once, and that one has been shown. If it was not sent, remove the invited member and invite them again.',
  role: 'The role is changed.',
  removed: 'The member is removed and signed out.',
  password: 'Your password is set. Sign in with it.',
  'signed-out': 'You are signed out.',
  expired: 'Your session ended. Sign in again.',
};

export function notice(done: string | undefined): Html | null {
  const text = done === undefined ? undefined : NOTICES[done];
  return text ? html`<p class="notice" role="status">${text}</p>` : null;
}

export function problem(message: string | null | undefined): Html | null {
  return message ? html`<p class="problem" role="alert">${message}</p>` : null;
}

/** A table whose last column holds the row's actions (named for screen readers only). */
export function table(columns: string[], rows: Html[] | Html): Html {
  const headers = columns.map((c) => html`<th scope="col">${c}</th>`);
  return html`<table>
    <thead>
      <tr>
        ${headers}
        <th scope="col"><span class="visually-hidden">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

/** A secret shown once (a new key, an invitation link): selectable, and a copy button where script runs. */
export function shownOnce(view: { id: string; label: string; value: string }): Html {
  return html`<div class="secret">
    <label for="${view.id}">${view.label}</label>
    <input id="${view.id}" readonly value="${view.value}" spellcheck="false" />
    <button type="button" data-copy="${view.id}" hidden>Copy</button>
  </div>`;
}

export const csrfField = (token: string) => html`<input type="hidden" name="csrf" value="${token}" />`;

function document(title: string, content: Html): Html {
  return html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${title} · TRON Safety portal</title>
      <link rel="stylesheet" href="${PORTAL_PATH}/assets/portal.css" />
      <script src="${PORTAL_PATH}/assets/portal.js" defer></script>
    </head>
    <body>
      ${content}
    </body>
  </html>`;
}

/** A page of a signed-in member: header, the navigation (Sign out is a form: it changes state), content. */
export function layout(
  ctx: SignedIn,
  view: { title: string; section: Section | null; body: Html; status?: number },
): CoreHttpResponse {
  const { organization } = ctx.organization;
  const nav = NAVIGATION.map(
    ([section, label]) =>
      html`<li>
        <a href="${PORTAL_PATH}/${section}" ${section === view.section ? html` aria-current="page"` : ''}>${label}</a>
      </li>`,
  );
  return page(
    view.status ?? 200,
    document(
      view.title,
      html`<header class="top">
          <a class="brand" href="${PORTAL_PATH}/overview">TRON Safety</a>
          <span class="who">${organization.name} · ${ctx.member.email} (${ctx.member.role})</span>
        </header>
        <nav aria-label="Portal">
          <ul>
            ${nav}
            <li>
              <form method="post" action="${PORTAL_PATH}/sign-out">
                ${csrfField(ctx.csrf)}<button type="submit" class="link">Sign out</button>
              </form>
            </li>
          </ul>
        </nav>
        <main>
          <h1>${view.title}</h1>
          ${view.body}
        </main>`,
    ),
  );
}

/** A page before sign-in (sign-in, invitation, errors of those). */
export function publicPage(
  view: { title: string; body: Html; status?: number },
  headers: Record<string, string> = {},
): CoreHttpResponse {
  return page(
    view.status ?? 200,
    document(
      view.title,
      html`<header class="top"><span class="brand">TRON Safety</span></header>
        <main class="narrow">
          <h1>${view.title}</h1>
          ${view.body}
        </main>`,
    ),
    headers,
  );
}
