import type { ServiceResult, TransactionCheckResponse } from '@tron-safety/core';
import { formatAge, formatNumber, formatTime, sentence } from '../format.js';
import { html, type Html } from '../html.js';
import type { CheckValues } from './check.js';

export type CheckResult = ServiceResult<TransactionCheckResponse>;
type Answer = Extract<CheckResult, { ok: true }>;
type Refusal = Extract<CheckResult, { ok: false }>;

/** What each overall state means (spec, overall_state values). */
const STATES: Record<string, string> = {
  CLEAR:
    'Applicable checks completed without an identified issue and finality requirements are met. No guarantee against future risk.',
  REVIEW:
    'A condition needs review, such as pending finality, failed execution, elevated risk or an expected-payment mismatch.',
  HIGH_RISK: 'A high or critical finding exists, such as a sanctions match, high AML risk or a fake token.',
  LIMITED_DATA: 'Evidence is incomplete, unsupported or contradictory. Never treat this as clear.',
};

/** What each reason code means (spec, reason codes); a future code shows without a description. */
const REASONS: Record<string, string> = {
  TX_FACTS_VERIFIED: 'Transaction facts meet verification requirements.',
  TX_FACTS_PARTIAL: 'Required transaction facts are incomplete.',
  TX_FACTS_DISAGREE: 'Transaction evidence is contradictory.',
  TX_FINALIZED: 'Finality requirements are met.',
  TX_PENDING_CONFIRMATIONS: 'Finality or confirmations are insufficient.',
  TX_REVERTED: 'Execution failed.',
  TX_NOT_FOUND: 'Transaction not found.',
  TRANSFERS_TRUNCATED: 'Transfer evidence was truncated.',
  AMBIGUOUS_TRANSFER: 'More than one transfer satisfies every supplied expectation.',
  AML_UNSUPPORTED_ASSET: 'The asset lacks supported AML coverage.',
  AML_UNAVAILABLE: 'Applicable AML evidence is missing.',
  AML_LOW: 'The available AML assessment reports low risk.',
  AML_ELEVATED: 'The available AML assessment reports moderate risk.',
  AML_HIGH: 'The available AML assessment reports high or severe risk.',
  SANCTIONS_HIT: 'A sanctions match is present.',
  SANCTIONS_CLEAR: 'Screening found no match.',
  SANCTIONS_UNAVAILABLE: 'Screening unavailable; not a clear result.',
  TOKEN_AUTH_UNAVAILABLE: 'Token authentication evidence unavailable.',
  TOKEN_OFFICIAL: 'Token contract recognized as official.',
  TOKEN_FAKE: 'Token identified as fake.',
  TOKEN_UNKNOWN: 'Token authenticity unknown.',
  EXPECTED_RECIPIENT_MISMATCH: 'The selected transfer does not match the expected recipient.',
  EXPECTED_TOKEN_MISMATCH: 'The selected transfer does not match the expected contract.',
  EXPECTED_AMOUNT_MISMATCH: 'The selected transfer does not match the expected raw amount.',
  EXPECTED_DATA_UNAVAILABLE: 'A requested comparison could not be completed for lack of transfer data.',
};

const instant = (iso: string | null) => (iso === null ? 'unknown' : formatTime(new Date(iso), { seconds: true }));
const orUnknown = (value: string | number | null) =>
  value === null ? html`<span class="muted">unknown</span>` : value;
const address = (value: string | null) => (value === null ? orUnknown(null) : html`<code>${value}</code>`);

function verdict(answer: Answer): Html {
  const r = answer.body;
  const confirmations =
    r.confirmations === null
      ? 'confirmations unknown'
      : `${formatNumber(r.confirmations)} of ${r.required_confirmations} required confirmations`;
  return html`<section class="verdict state-${r.overall_state.toLowerCase()}" aria-labelledby="verdict">
    <h2 id="verdict">Overall state: <span class="state">${r.overall_state}</span></h2>
    <p>${STATES[r.overall_state] ?? ''}</p>
    <dl class="facts">
      <dt>Transaction state</dt>
      <dd>${r.transaction_state} (${confirmations})</dd>
      <dt>Coverage</dt>
      <dd>
        ${r.coverage}
        <span class="muted"
          >${
            r.coverage === 'complete'
              ? '(every applicable check ran: one unit of quota)'
              : '(evidence is missing: not a clean result, not billed)'
          }</span
        >
      </dd>
      <dt>Transaction</dt>
      <dd><code>${r.tx_hash}</code> on ${r.network}</dd>
      <dt>Request id</dt>
      <dd><code>${r.request_id}</code></dd>
    </dl>
    ${
      answer.replayed &&
      html`<p class="notice" role="status">
        This is the stored answer of this form’s earlier submission: it was not checked or billed again.
      </p>`
    }
    <p class="hint">
      An answer is not a promise that the payment is safe: read the overall state, coverage, match flags and reasons
      together.
    </p>
  </section>`;
}

function reasons(r: TransactionCheckResponse): Html {
  const items = r.reasons.map(
    (reason) =>
      html`<li>
        <span class="badge severity-${reason.severity}">${reason.severity}</span>
        <code>${reason.code}</code> ${REASONS[reason.code] ?? ''} <span class="muted">(${reason.category})</span>
      </li>`,
  );
  return html`<section aria-labelledby="reasons">
    <h2 id="reasons">Reasons</h2>
    <ol class="reasons">
      ${items}
    </ol>
  </section>`;
}

function matchText(flag: boolean | null, expected: string | undefined): Html {
  if (flag === true) return html`<span class="badge ok">matches</span>`;
  if (flag === false) return html`<span class="badge off">does not match</span>`;
  return html`<span class="badge">${expected ? 'could not be checked' : 'not requested'}</span>`;
}

function matches(r: TransactionCheckResponse, values: CheckValues): Html {
  const rows: [string, boolean | null, string | undefined][] = [
    ['Recipient', r.recipient_match, values.expected_recipient],
    ['Token contract', r.token_match, values.expected_token_contract],
    ['Amount', r.amount_match, values.expected_amount],
  ];
  return html`<section aria-labelledby="matches">
    <h2 id="matches">Expected payment</h2>
    <table>
      <thead>
        <tr>
          <th scope="col">Check</th>
          <th scope="col">Expected</th>
          <th scope="col">Result</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          ([name, flag, expected]) =>
            html`<tr>
              <th scope="row">${name}</th>
              <td>${expected ? html`<code>${expected}</code>` : html`<span class="muted">–</span>`}</td>
              <td>${matchText(flag, expected)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function payment(r: TransactionCheckResponse): Html {
  const sanctions = r.sanctions_hit === null ? 'screening unavailable' : r.sanctions_hit ? 'match' : 'no match';
  const exposure = r.key_exposure.map(
    (e) =>
      html`<li>${e.category}, ${e.exposure_type}, ${e.hops} hops${e.percent === null ? '' : `, ${e.percent} %`}</li>`,
  );
  return html`<section aria-labelledby="payment">
    <h2 id="payment">Payment and risk</h2>
    <dl class="facts">
      <dt>Category</dt>
      <dd>${r.transaction_category} <span class="muted">(${r.transaction_type})</span></dd>
      <dt>Sender</dt>
      <dd>${address(r.sender)}</dd>
      <dt>Recipient</dt>
      <dd>${address(r.recipient)}</dd>
      <dt>Token</dt>
      <dd>${orUnknown(r.token_symbol)} ${r.token_contract && html`<code>${r.token_contract}</code>`}</dd>
      <dt>Token authenticity</dt>
      <dd>${r.token_authenticity}</dd>
      <dt>Amount</dt>
      <dd>
        ${orUnknown(r.amount)} ${r.decimals !== null && html`<span class="muted">(${r.decimals} decimals)</span>`}
      </dd>
      <dt>AML risk level</dt>
      <dd>${r.aml_risk_level}</dd>
      <dt>Sanctions</dt>
      <dd>${sanctions}</dd>
      <dt>Key exposure</dt>
      <dd>
        ${
          exposure.length
            ? html`<ul class="plain">
                ${exposure}
              </ul>`
            : 'none reported'
        }
      </dd>
    </dl>
  </section>`;
}

function transfers(r: TransactionCheckResponse): Html {
  const rows = r.transfers.map(
    (t) =>
      html`<tr>
        <td>${t.index}</td>
        <td>${t.asset_type}</td>
        <td>${address(t.sender)}<br />→ ${address(t.recipient)}</td>
        <td>
          ${orUnknown(t.token_symbol ?? t.token_id)}${t.token_contract && html`<br /><code>${t.token_contract}</code>`}
        </td>
        <td>${orUnknown(t.amount)}</td>
      </tr>`,
  );
  const empty = html`<tr>
    <td colspan="5">No transfers.</td>
  </tr>`;
  return html`<section aria-labelledby="transfers">
    <h2 id="transfers">Transfers</h2>
    ${
      r.transfers_truncated &&
      html`<p class="problem" role="alert">The list is truncated: do not read it as complete.</p>`
    }
    <div class="scroll">
      <table>
        <thead>
          <tr>
            ${['#', 'Asset', 'From → to', 'Token', 'Amount'].map((c) => html`<th scope="col">${c}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${rows.length ? rows : empty}
        </tbody>
      </table>
    </div>
  </section>`;
}

function freshness(r: TransactionCheckResponse): Html {
  const f = r.freshness;
  return html`<section aria-labelledby="freshness">
    <h2 id="freshness">Freshness</h2>
    <dl class="facts">
      <dt>Checked at</dt>
      <dd>${instant(f.checked_at)}</dd>
      <dt>Transaction time</dt>
      <dd>${instant(f.transaction_at)}</dd>
      <dt>Risk data as of</dt>
      <dd>${instant(f.risk_data_at)}</dd>
      <dt>Token data as of</dt>
      <dd>${instant(f.token_data_at)}</dd>
      <dt>Oldest source’s age</dt>
      <dd>${formatAge(f.max_source_age_seconds)}</dd>
    </dl>
  </section>`;
}

/** The check's answer, readably: verdict, reasons, the expected-payment comparison, facts, transfers, freshness. */
export function checkAnswer(answer: Answer, values: CheckValues): Html {
  const r = answer.body;
  return html`${verdict(answer)}${reasons(r)}${matches(r, values)}${payment(r)}${transfers(r)}${freshness(r)}`;
}

const TITLES: Record<number, string> = {
  401: 'not authorized',
  403: 'not allowed',
  409: 'this form was already used',
  422: 'the request is not valid',
  429: 'a limit was reached',
  500: 'something went wrong',
  503: 'the service cannot check right now',
  504: 'the check ran out of time',
};

const header = (refusal: Refusal, name: string) => refusal.headers[name];

/** What to do about a refusal, where the API's own message does not say it. */
function advice(refusal: Refusal): string | null {
  const retryAfter = header(refusal, 'Retry-After');
  const reset = header(refusal, 'X-Quota-Reset');
  switch (refusal.body.error.code) {
    case 'rate_limit_exceeded':
      return `Your organization’s ${header(refusal, 'X-RateLimit-Limit') ?? ''} requests a minute (API keys and portal together) are used up. Try again in ${retryAfter ?? 'a few'} seconds.`;
    case 'quota_exceeded':
      return `This month’s quota of complete checks is used up${reset ? `; it resets ${formatTime(new Date(Number(reset) * 1000))}` : ''}.`;
    case 'concurrency_limit_exceeded':
      return 'Your organization already runs as many checks at once as its plan allows. Try again in a moment.';
    case 'provider_unavailable':
    case 'request_timeout':
      return 'Nothing was billed. Try again shortly.';
    case 'idempotency_conflict':
    case 'idempotency_in_progress':
      return 'Submit the form below: each rendering of the form is a new check.';
    default:
      return null;
  }
}

/** A check the service refused or could not finish: its code and message, and what to do. */
export function checkProblem(refusal: Refusal): Html {
  const { error, request_id } = refusal.body;
  const what = advice(refusal);
  return html`<section class="refusal" aria-labelledby="refusal">
    <h2 id="refusal">Not checked: ${TITLES[refusal.status] ?? `error ${refusal.status}`}</h2>
    <p class="problem" role="alert">${sentence(error.message)}${what && html` ${what}`}</p>
    <p class="muted">
      Code <code>${error.code}</code> (HTTP ${refusal.status}, ${error.retryable ? 'retryable' : 'not retryable'}),
      request id <code>${request_id}</code>.
    </p>
  </section>`;
}
