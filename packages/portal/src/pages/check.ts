import type { CoreHttpResponse } from '@tron-safety/core';
import type { SignedIn } from '../context.js';
import { html } from '../html.js';
import { PORTAL_PATH } from '../http.js';
import { layout } from './layout.js';

/** `GET /portal/check`: checks from the portal are not offered yet; the API serves them. */
export function checkPage(ctx: SignedIn): CoreHttpResponse {
  const body = html`<p class="notice" role="status">Checking a transaction from the portal is not available yet.</p>
    <p>
      Run checks through the API with one of your organization's <a href="${PORTAL_PATH}/keys">API keys</a>:
      <code>POST /v1/transaction/check</code> with the key in the <code>X-API-Key</code> header.
    </p>`;
  return layout(ctx, { title: 'Check a transaction', section: 'check', body });
}
