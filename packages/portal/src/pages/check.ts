import { randomUUID } from 'node:crypto';
import { Network, type CoreHttpResponse } from '@tron-safety/core';
import { mayRunChecks } from '@tron-safety/core/internal';
import type { SignedIn } from '../context.js';
import { html, type Html } from '../html.js';
import { PORTAL_PATH } from '../http.js';
import { checkAnswer, checkProblem, type CheckResult } from './check-answer.js';
import { errorPage } from './errors.js';
import { csrfField, layout } from './layout.js';

const CHECK = `${PORTAL_PATH}/check`;
const NETWORKS = Object.keys(Network.keys);

/** The form's fields, named as the request body's; the expected ones are optional. */
const EXPECTED = [
  {
    name: 'expected_recipient',
    label: 'Expected recipient',
    hint: 'The TRON address (T…) that should have received it.',
  },
  {
    name: 'expected_token_contract',
    label: 'Expected token contract',
    hint: 'The exact token contract (T…), e.g. USDT’s; compared by contract, never by symbol.',
  },
  {
    name: 'expected_amount',
    label: 'Expected amount',
    hint: 'A plain decimal, e.g. 125.5: in units of the token above, or of TRX when no token is given.',
  },
] as const;
type FieldName = 'tx_hash' | 'network' | (typeof EXPECTED)[number]['name'];
export type CheckValues = Partial<Record<FieldName, string>>;

function field(name: FieldName, view: { label: string; hint: string; value: string | undefined }): Html {
  return html`<label for="${name}">${view.label}</label>
    <input
      id="${name}"
      name="${name}"
      value="${view.value ?? ''}"
      spellcheck="false"
      autocomplete="off"
      maxlength="400"
      aria-describedby="${name}-hint"
    />
    <p id="${name}-hint" class="hint">${view.hint}</p>`;
}

/**
 * The form. Each rendering carries a new Idempotency-Key: a reload that posts it again replays the
 * answer instead of checking (and billing) twice, while every new submission is a new check.
 */
function checkForm(ctx: SignedIn, values: CheckValues): Html {
  const networks = NETWORKS.map(
    (n) => html`<option value="${n}" ${values.network === n ? html`selected` : ''}>${n}</option>`,
  );
  return html`<form method="post" action="${CHECK}" class="stacked check-form">
      ${csrfField(ctx.csrf)}
      <input type="hidden" name="idempotency_key" value="portal-${randomUUID()}" />
      ${field('tx_hash', { label: 'Transaction hash', hint: '64 hexadecimal characters.', value: values.tx_hash })}
      <label for="network">Network</label>
      <select id="network" name="network">
        ${networks}
      </select>
      <fieldset>
        <legend>Expected payment (optional)</legend>
        <p class="hint">Any of these makes the check compare the selected transfer with it exactly.</p>
        ${EXPECTED.map((f) => field(f.name, { label: f.label, hint: f.hint, value: values[f.name] }))}
      </fieldset>
      <button type="submit">Check transaction</button>
    </form>
    <p class="hint">
      A check here is one of your organization’s checks like any other: it counts against the same rate, concurrency and
      monthly quota as your API keys (one unit when coverage is complete) and shows in the usage.
    </p>`;
}

function refused(ctx: SignedIn): CoreHttpResponse {
  return errorPage(ctx, {
    status: 403,
    message: `Your role (${ctx.member.role}) cannot run checks: owners, admins and developers can. You can see the usage and the API keys’ metadata.`,
  });
}

/** `GET /portal/check`: the form, for the roles that may run checks. */
export function checkPage(ctx: SignedIn): CoreHttpResponse {
  if (!mayRunChecks(ctx.member.role)) return refused(ctx);
  const body = checkForm(ctx, { network: 'tron' });
  return layout(ctx, { title: 'Check a transaction', section: 'check', body });
}

const FIELDS: FieldName[] = ['tx_hash', 'network', ...EXPECTED.map((f) => f.name)];

/**
 * The JSON body the form describes, as bytes (validated by the service exactly as over HTTP): the
 * values without surrounding spaces, empty expected fields left out.
 */
function requestOf(values: CheckValues): Uint8Array {
  const body = Object.fromEntries(
    FIELDS.filter((name) => name === 'tx_hash' || name === 'network' || values[name]).map((name) => [
      name,
      values[name] ?? '',
    ]),
  );
  return new TextEncoder().encode(JSON.stringify(body));
}

/**
 * `POST /portal/check`: the check runs the API's own path for the member's organization
 * (`checkAsOrganization`): the same validation and error codes, limits, quota and usage.
 * The page answers with the check's HTTP status.
 */
export async function runCheck(ctx: SignedIn): Promise<CoreHttpResponse> {
  if (!mayRunChecks(ctx.member.role)) return refused(ctx);
  const values: CheckValues = Object.fromEntries(FIELDS.map((n) => [n, (ctx.form.field(n) ?? '').trim()]));
  const idempotencyKey = ctx.form.field('idempotency_key');
  const result: CheckResult = await ctx.deps.service.checkAsOrganization({
    organizationId: ctx.organization.organization.id,
    request: requestOf(values),
    ...(idempotencyKey ? { idempotencyKey } : {}),
  });
  const answer = result.ok ? checkAnswer(result, values) : checkProblem(result);
  const body = html`${answer}
    <section aria-labelledby="again">
      <h2 id="again">Check again or another transaction</h2>
      ${checkForm(ctx, values)}
    </section>`;
  return layout(ctx, { title: 'Check a transaction', section: 'check', body, status: result.status });
}
