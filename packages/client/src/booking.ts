import { KNOWN_REASON_CODES, type CheckRequest, type CheckResponse } from './codecs.js';

// README "Reading a result safely", as code: a 200 means "the service looked", not "the money is
// yours". Every rule below must hold before a payment is recorded as received.

export interface BookingOptions {
  /**
   * Oldest risk evidence you accept: `freshness.risk_data_at` (sanctions and AML) at most this long
   * before `checked_at`; default 2 days (the age past which the host's sanctions lists stop proving an
   * address clean by default). This is the risk evidence's own limit; `max_source_age_seconds` covers
   * the chain observation and the token data as well (README "Reading a result safely").
   */
  maxSourceAgeSeconds?: number;
  /** Oldest result you accept: `freshness.checked_at` at most this long ago; default 1 hour. */
  maxResultAgeSeconds?: number;
  now?: Date;
}

/** A check's answer with the request it answered (the match flags to require follow from it). */
export interface CheckedPayment {
  request: CheckRequest;
  body: CheckResponse;
}

const KNOWN = new Set<string>(KNOWN_REASON_CODES);
const DAY_SECONDS = 86_400;
/** How far `checked_at` may be ahead of this machine's clock. */
const CLOCK_SKEW_SECONDS = 60;
const SPEC_REQUIRED_CONFIRMATIONS = 19;

/** Confirmations to require: the spec's 19, even when an answer states fewer. */
const required = (body: CheckResponse) => Math.max(SPEC_REQUIRED_CONFIRMATIONS, body.required_confirmations);

/** Why the payment must not be booked yet; empty when every rule holds. */
export function bookingProblems({ request, body }: CheckedPayment, options: BookingOptions = {}): string[] {
  return [
    ...stateProblems(body),
    ...consistencyProblems(request, body),
    ...matchProblems(request, body),
    ...riskProblems(body),
    ...freshnessProblems(body, options),
    ...body.reasons.filter((r) => !KNOWN.has(r.code)).map((r) => `unknown reason code ${r.code}: look at it`),
  ];
}

/** True only when every rule of "Reading a result safely" holds. */
export function isSafeToBook(payment: CheckedPayment, options: BookingOptions = {}): boolean {
  return bookingProblems(payment, options).length === 0;
}

function stateProblems(body: CheckResponse): string[] {
  const problems: string[] = [];
  if (body.overall_state !== 'CLEAR') problems.push(`overall_state is ${body.overall_state}, not CLEAR`);
  if (body.transaction_state !== 'confirmed') problems.push(`transaction_state is ${body.transaction_state}`);
  else if (body.confirmations === null || body.confirmations < required(body)) {
    problems.push(`${body.confirmations ?? 'unknown'} of ${required(body)} confirmations`);
  }
  if (body.coverage !== 'complete') problems.push(`coverage is ${body.coverage}`);
  return problems;
}

/** An answer that contradicts the request or itself: about another transaction, or a CLEAR with a severe reason. */
function consistencyProblems(request: CheckRequest, body: CheckResponse): string[] {
  const problems: string[] = [];
  if (body.tx_hash.toLowerCase() !== request.tx_hash.toLowerCase()) {
    problems.push(`the answer is about transaction ${body.tx_hash}, not ${request.tx_hash}`);
  }
  for (const reason of body.reasons) {
    if (reason.severity === 'high' || reason.severity === 'critical') {
      problems.push(`reason ${reason.code} is ${reason.severity}`);
    }
  }
  return problems;
}

function matchProblems(request: CheckRequest, body: CheckResponse): string[] {
  const asked: [string | null | undefined, 'recipient_match' | 'token_match' | 'amount_match'][] = [
    [request.expected_recipient, 'recipient_match'],
    [request.expected_token_contract, 'token_match'],
    [request.expected_amount, 'amount_match'],
  ];
  const problems = asked
    .filter(([expected, flag]) => expected != null && body[flag] !== true)
    .map(([, flag]) => `${flag} is ${body[flag] === false ? 'false (mismatch)' : 'null (not compared)'}`);
  if (body.transfers_truncated) problems.push('transfers_truncated: the transfer list is incomplete');
  if (body.reasons.some((r) => r.code === 'AMBIGUOUS_TRANSFER')) problems.push('AMBIGUOUS_TRANSFER');
  return problems;
}

function riskProblems(body: CheckResponse): string[] {
  if (body.sanctions_hit === false) return [];
  return [body.sanctions_hit ? 'sanctions_hit is true' : 'sanctions_hit is null (screening unavailable)'];
}

function freshnessProblems(body: CheckResponse, options: BookingOptions): string[] {
  const problems: string[] = [];
  const maxSource = options.maxSourceAgeSeconds ?? 2 * DAY_SECONDS;
  const maxResult = options.maxResultAgeSeconds ?? 3_600;
  const checkedAt = Date.parse(body.freshness.checked_at);
  const riskAt = body.freshness.risk_data_at === null ? Number.NaN : Date.parse(body.freshness.risk_data_at);
  const riskAge = Math.round((checkedAt - riskAt) / 1000);
  if (Number.isNaN(riskAge)) problems.push('risk data time unknown (freshness.risk_data_at)');
  else if (riskAge > maxSource) problems.push(`risk data is ${riskAge} s old (limit ${maxSource} s)`);
  const age = ((options.now ?? new Date()).getTime() - checkedAt) / 1000;
  if (Number.isNaN(checkedAt) || age > maxResult)
    problems.push(`the result was checked ${Math.round(age)} s ago (limit ${maxResult} s)`);
  else if (age < -CLOCK_SKEW_SECONDS) problems.push(`the result says it was checked ${Math.round(-age)} s from now`);
  return problems;
}
