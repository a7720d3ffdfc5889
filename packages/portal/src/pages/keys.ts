import type { ApiKeyMetadata, CoreHttpResponse } from '@tron-safety/core';
import { mayManageApiKeys } from '@tron-safety/core/internal';
import type { SignedIn } from '../context.js';
import { formatTime } from '../format.js';
import { html, type Html } from '../html.js';
import { PORTAL_PATH, queryValue, redirect } from '../http.js';
import type { Reveal } from '../reveal.js';
import { errorPage, refusal } from './errors.js';
import { csrfField, layout, notice, problem, shownOnce, table } from './layout.js';
import { redirectToReveal, showReveal } from './revealed.js';

const KEYS = `${PORTAL_PATH}/keys`;

function status(key: ApiKeyMetadata, keys: ApiKeyMetadata[]): Html {
  if (key.revokedAt === null) return html`<span class="badge ok">active</span>`;
  const replacement = keys.find((k) => k.id === key.replacedBy);
  return html`<span class="badge off">${replacement ? `rotated to ${replacement.prefix}…` : 'revoked'}</span>
    <span class="muted">${formatTime(key.revokedAt)}</span>`;
}

function row(ctx: SignedIn, key: ApiKeyMetadata, keys: ApiKeyMetadata[]): Html {
  const actions =
    key.revokedAt === null && mayManageApiKeys(ctx.member.role)
      ? html`<a href="${KEYS}/${key.id}/rotate" aria-label="Rotate key ${key.label}">Rotate</a>
          <a href="${KEYS}/${key.id}/revoke" class="danger" aria-label="Revoke key ${key.label}">Revoke</a>`
      : '';
  return html`<tr>
    <td>${key.label}</td>
    <td><code>${key.prefix}…</code></td>
    <td class="time">${formatTime(key.createdAt)}</td>
    <td class="time">${key.lastUsedAt ? formatTime(key.lastUsedAt) : html`<span class="muted">never</span>`}</td>
    <td>${status(key, keys)}</td>
    <td>${actions}</td>
  </tr>`;
}

function createForm(ctx: SignedIn): Html {
  if (!mayManageApiKeys(ctx.member.role))
    return html`<p class="hint">
      Your role (${ctx.member.role}) can see the keys but not create, rotate or revoke them.
    </p>`;
  return html`<section aria-labelledby="new-key-heading">
    <h2 id="new-key-heading">Create a key</h2>
    <form method="post" action="${KEYS}" class="inline">
      ${csrfField(ctx.csrf)}
      <label for="label">Label</label>
      <input id="label" name="label" required maxlength="200" placeholder="e.g. checkout server" />
      <button type="submit">Create key</button>
    </form>
  </section>`;
}

/** `GET /portal/keys`: every key of the organization by prefix, never the key itself. */
export async function keysPage(
  ctx: SignedIn,
  view: { error?: string; status?: number } = {},
): Promise<CoreHttpResponse> {
  const listed = await ctx.deps.admin.listApiKeys(ctx.actor, ctx.organization.organization.id);
  if (listed.isErr()) return refusal(ctx, listed.error);
  const keys = listed.value;
  const body = html`${notice(queryValue(ctx.request, 'done'))}${problem(view.error)}
    <p>
      A key is shown in full once, when it is created or rotated; afterwards only its first characters. “Last used” is
      when a request last authenticated with the key, to the minute.
    </p>
    ${table(
      ['Label', 'Prefix', 'Created', 'Last used', 'Status'],
      keys.length
        ? keys.map((k) => row(ctx, k, keys))
        : html`<tr>
            <td colspan="6">No keys yet.</td>
          </tr>`,
    )}
    ${createForm(ctx)}`;
  return layout(ctx, { title: 'API keys', section: 'keys', body, status: view.status ?? 200 });
}

/** The one time a key is shown: with a copy button (a small script) and selectable without it. */
function issuedPage(ctx: SignedIn, issued: Extract<Reveal, { kind: 'key' }>): CoreHttpResponse {
  const body = html`<p class="notice" role="status">${issued.notice}</p>
    <p>
      <strong>Copy the key now: it is not shown again.</strong> Keep it on your server only, never in a URL or in code
      that runs in a browser.
    </p>
    ${shownOnce({ id: 'issued-key', label: `API key “${issued.label}”`, value: issued.secret })}
    <p><a href="${KEYS}">Back to the keys</a></p>`;
  return layout(ctx, { title: 'Your new API key', section: 'keys', body });
}

/** `GET /portal/keys/issued`: where creating or rotating a key leads; shows the new key once. */
export function issuedKeyPage(ctx: SignedIn): Promise<CoreHttpResponse> {
  return showReveal(ctx, 'key', (issued) => issuedPage(ctx, issued), `${KEYS}?done=key-shown`);
}

/**
 * `POST /portal/keys`: creates a key through the core's admin API (which checks the role), then
 * redirects to the page that shows it once, so reloading that page creates no second key.
 */
export async function createKey(ctx: SignedIn): Promise<CoreHttpResponse> {
  const created = await ctx.deps.admin.createApiKey(
    ctx.actor,
    ctx.organization.organization.id,
    ctx.form.field('label') ?? '',
  );
  if (created.isErr()) {
    return created.error.code === 'invalid'
      ? keysPage(ctx, { error: 'A label of 1 to 200 characters, without control characters, is needed.', status: 422 })
      : refusal(ctx, created.error);
  }
  const { key, metadata } = created.value;
  return redirectToReveal(ctx, `${KEYS}/issued`, {
    kind: 'key',
    secret: key,
    label: metadata.label,
    notice: `Key “${metadata.label}” created.`,
  });
}

async function keyOf(ctx: SignedIn, id: string): Promise<ApiKeyMetadata | CoreHttpResponse> {
  if (!mayManageApiKeys(ctx.member.role))
    return errorPage(ctx, { status: 403, message: `Your role (${ctx.member.role}) cannot rotate or revoke keys.` });
  const listed = await ctx.deps.admin.listApiKeys(ctx.actor, ctx.organization.organization.id);
  if (listed.isErr()) return refusal(ctx, listed.error);
  const key = listed.value.find((k) => k.id === id && k.revokedAt === null);
  return key ?? errorPage(ctx, { status: 404, message: 'No active key with this id in your organization.' });
}

function confirmPage(ctx: SignedIn, key: ApiKeyMetadata, action: 'rotate' | 'revoke'): CoreHttpResponse {
  const explanation =
    action === 'rotate'
      ? 'A new key replaces it at once: the old key answers 401 from now on, and the new key is shown once.'
      : 'Requests with it answer 401 from now on. This cannot be undone.';
  const verb = action === 'rotate' ? 'Rotate' : 'Revoke';
  const body = html`<p>${verb} the key <strong>${key.label}</strong> (<code>${key.prefix}…</code>)? ${explanation}</p>
    <form method="post" action="${KEYS}/${key.id}/${action}" class="inline">
      ${csrfField(ctx.csrf)}
      <button type="submit" class="${action === 'revoke' ? 'danger' : ''}">${verb} key</button>
      <a href="${KEYS}">Cancel</a>
    </form>`;
  return layout(ctx, { title: `${verb} key`, section: 'keys', body });
}

/** `GET /portal/keys/:id/rotate|revoke`: asks before acting. */
export async function confirmKeyAction(ctx: SignedIn, id: string, action: 'rotate' | 'revoke') {
  const key = await keyOf(ctx, id);
  return 'status' in key ? key : confirmPage(ctx, key, action);
}

/** `POST /portal/keys/:id/rotate`: revokes and replaces the key atomically; redirects to the new one, shown once. */
export async function rotateKey(ctx: SignedIn, id: string): Promise<CoreHttpResponse> {
  const rotated = await ctx.deps.admin.rotateApiKey(ctx.actor, ctx.organization.organization.id, id);
  if (rotated.isErr()) return refusal(ctx, rotated.error);
  const { key, metadata, revoked } = rotated.value;
  return redirectToReveal(ctx, `${KEYS}/issued`, {
    kind: 'key',
    secret: key,
    label: metadata.label,
    notice: `Key “${revoked.label}” rotated: ${revoked.prefix}… is revoked.`,
  });
}

/** `POST /portal/keys/:id/revoke`. */
export async function revokeKey(ctx: SignedIn, id: string): Promise<CoreHttpResponse> {
  const revoked = await ctx.deps.admin.revokeApiKey(ctx.actor, ctx.organization.organization.id, id);
  return revoked.isErr() ? refusal(ctx, revoked.error) : redirect(`${KEYS}?done=revoked`);
}
