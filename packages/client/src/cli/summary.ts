import type { CheckAnswer, UsageAnswer } from '../client.js';
import { bookingProblems } from '../booking.js';
import type { CheckResponse, Transfer } from '../codecs.js';
import { printable, printableJson } from './printable.js';

/** ANSI styling, or none when the terminal has no colours. */
export interface Style {
  state(state: string, text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

const paint = (code: number) => (text: string) => `\x1b[${code}m${text}\x1b[0m`;
const STATE_COLOURS: Record<string, (text: string) => string> = {
  CLEAR: paint(32),
  REVIEW: paint(33),
  HIGH_RISK: paint(31),
  LIMITED_DATA: paint(35),
};

export function createStyle(colour: boolean): Style {
  if (!colour) return { state: (_s, text) => text, bold: (text) => text, dim: (text) => text };
  return {
    state: (state, text) => (STATE_COLOURS[state] ?? paint(1))(text),
    bold: paint(1),
    dim: paint(2),
  };
}

const or = (value: unknown, fallback = '-') => (value === null || value === undefined ? fallback : String(value));
const flag = (value: boolean | null) => (value === null ? 'null (not compared)' : String(value));

function transferLine(t: Transfer): string {
  const asset = t.token_symbol ?? t.token_id ?? t.asset_type;
  const contract = t.token_contract ? ` (${t.token_contract})` : '';
  return `  #${t.index} ${t.asset_type}  ${or(t.amount, '? (decimals unknown)')} ${asset}${contract}  ${or(t.sender)} -> ${or(t.recipient)}`;
}

function transactionLines(b: CheckResponse): string[] {
  const confirmations = `${or(b.confirmations, 'unknown')} of ${b.required_confirmations} confirmations`;
  return [
    `transaction  ${b.tx_hash}`,
    `  ${b.transaction_type} / ${b.transaction_category}, ${b.transaction_state}, ${confirmations}`,
    `  ${or(b.amount)} ${or(b.token_symbol, '')} ${or(b.sender)} -> ${or(b.recipient)}`.replace(/ {2,}/g, ' '),
  ];
}

/** The readable summary of a check: state, reasons, transfers, match flags, risk, coverage, freshness. */
export function renderCheck(answer: CheckAnswer, style: Style): string {
  const b = printableJson(answer.body);
  const problems = bookingProblems(answer).map(printable);
  const f = b.freshness;
  return [
    `${style.state(b.overall_state, style.bold(b.overall_state))}  ${style.dim(`request ${b.request_id}`)}`,
    ...transactionLines(b),
    'reasons',
    ...b.reasons.map((r) => `  ${r.severity.padEnd(8)} ${r.code} (${r.category})`),
    `transfers (${b.transfers.length}${b.transfers_truncated ? ', TRUNCATED: not the full list' : ''})`,
    ...b.transfers.map(transferLine),
    `match        recipient ${flag(b.recipient_match)}, token ${flag(b.token_match)}, amount ${flag(b.amount_match)}`,
    `risk         aml ${b.aml_risk_level}, sanctions_hit ${or(b.sanctions_hit, 'null (unavailable)')}, token ${b.token_authenticity}, exposures ${b.key_exposure.length}`,
    `coverage     ${b.coverage}`,
    `freshness    checked ${f.checked_at}; transaction ${or(f.transaction_at)}; risk data ${or(f.risk_data_at)}; token data ${or(f.token_data_at)}; oldest source ${f.max_source_age_seconds} s`,
    problems.length === 0
      ? style.bold('safe to book: yes (README "Reading a result safely")')
      : `safe to book: no: ${problems.join('; ')}`,
    style.dim(`idempotency key ${answer.idempotencyKey}${answer.replayed ? ' (replayed)' : ''}`),
  ].join('\n');
}

export function renderUsage(answer: UsageAnswer): string {
  const body = printableJson(answer.body);
  const { period: p, recent: r, limits: l } = body;
  const states = Object.entries(r.by_overall_state)
    .map(([state, n]) => `${state} ${n}`)
    .join(', ');
  return [
    `organization ${body.tenant_id}  plan ${body.plan ? `${body.plan.name} (${body.plan.code}@${body.plan.version})` : 'custom'}`,
    `limits       ${l.rate_limit_per_minute}/min, ${l.max_concurrent_requests} concurrent, networks ${l.enabled_networks.join(', ')}`,
    `this month   used ${p.used}, reserved ${p.reserved}, limit ${p.limit}, remaining ${p.remaining} (${p.start} .. ${p.end})`,
    `last ${r.days} days  ${r.requests} checks, ${r.billable} billable, ${r.limited_data} limited data, ${r.errors} errors, average ${or(r.average_latency_ms)} ms`,
    `by state     ${states || '-'}`,
  ].join('\n');
}
