import { KNOWN_REASON_CODES, type CheckRequest, type CheckResponse, type KnownReasonCode } from './codecs.js';

// README "Reading a result safely", as code: a 200 means "the service looked", not "the money is
// yours". Every rule below must hold before a payment is recorded as received.

export interface BookingOptions {
  /**
   * Oldest evidence you accept, in seconds; default 2 days (the age past which the host's sanctions
   * lists stop proving an address clean by default). It limits `freshness.max_source_age_seconds`
   * (the oldest of the chain data, the token data and the risk data the check used) and each dated
   * source on its own, measured to `checked_at`: `risk_data_at` (sanctions and AML, which must be
   * known) and `token_data_at` when given (README "Reading a result safely"). Keep it at a couple of hours
   * or more: a healthy service's answers carry token data up to an hour old (docs/assessment.md).
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
/** The only codes a CLEAR can carry (docs/assessment.md, "Overall state precedence"); all are info. */
const CLEAR_REASON_CODES = new Set<string>([
  'TX_FINALIZED',
  'TX_FACTS_VERIFIED',
  'SANCTIONS_CLEAR',
  'AML_LOW',
  'TOKEN_OFFICIAL',
] satisfies KnownReasonCode[]);
/** Severities below a high or critical finding; anything else (a future severity included) is not clean. */
const MILD_SEVERITIES = new Set(['info', 'warning']);
const DAY_SECONDS = 86_400;
/** How far a time in the answer may be ahead of the clock it is compared with. */
const CLOCK_SKEW_SECONDS = 60;
const SPEC_REQUIRED_CONFIRMATIONS = 19;

/** Confirmations to require: the spec's 19, even when an answer states fewer. */
const required = (body: CheckResponse) =>
  Math.max(SPEC_REQUIRED_CONFIRMATIONS, Number.isFinite(body.required_confirmations) ? body.required_confirmations : 0);

/**
 * Why the payment must not be booked yet; empty when every rule holds. Options that would switch a
 * freshness rule off (NaN, a negative or infinite limit, an invalid `now`) are a programmer error: it throws
 * a RangeError.
 */
export function bookingProblems({ request, body }: CheckedPayment, options: BookingOptions = {}): string[] {
  const limits = limitsOf(options);
  return [
    ...stateProblems(body),
    ...consistencyProblems(request, body),
    ...clearContradictions(body),
    ...matchProblems(request, body),
    ...riskProblems(body),
    ...freshnessProblems(body.freshness, limits),
    ...body.reasons.filter((r) => !KNOWN.has(r.code)).map((r) => `unknown reason code ${r.code}: look at it`),
  ];
}

/** True only when every rule of "Reading a result safely" holds. */
export function isSafeToBook(payment: CheckedPayment, options: BookingOptions = {}): boolean {
  return bookingProblems(payment, options).length === 0;
}

interface Limits {
  maxSourceAgeSeconds: number;
  maxResultAgeSeconds: number;
  nowMs: number;
}

function limitsOf(options: BookingOptions): Limits {
  const ages = {
    maxSourceAgeSeconds: options.maxSourceAgeSeconds ?? 2 * DAY_SECONDS,
    maxResultAgeSeconds: options.maxResultAgeSeconds ?? 3_600,
  };
  // Every comparison with NaN is false: such a limit would accept any age.
  for (const [name, value] of Object.entries(ages)) {
    if (!(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`${name} must be a finite number of seconds of at least 0, got ${String(value)}`);
    }
  }
  const now = options.now ?? new Date();
  const nowMs = now instanceof Date ? now.getTime() : Number.NaN;
  if (Number.isNaN(nowMs)) throw new RangeError(`now must be a valid Date, got ${String(now)}`);
  return { ...ages, nowMs };
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

/** An answer that contradicts the request or itself: about another transaction or network, or a severe reason. */
function consistencyProblems(request: CheckRequest, body: CheckResponse): string[] {
  const problems: string[] = [];
  if (body.tx_hash.toLowerCase() !== request.tx_hash.toLowerCase()) {
    problems.push(`the answer is about transaction ${body.tx_hash}, not ${request.tx_hash}`);
  }
  if (body.network !== 'tron') problems.push(`the answer is about network ${body.network}, not tron`);
  for (const reason of body.reasons) {
    if (!MILD_SEVERITIES.has(reason.severity)) problems.push(`reason ${reason.code} is ${reason.severity}`);
  }
  return problems;
}

/** A CLEAR whose own fields or known reasons say otherwise (docs/assessment.md): the state cannot be trusted. */
function clearContradictions(body: CheckResponse): string[] {
  if (body.overall_state !== 'CLEAR') return [];
  const problems: string[] = [];
  if (body.aml_risk_level !== 'low') problems.push(`a CLEAR with aml_risk_level ${body.aml_risk_level}, not low`);
  if (body.token_authenticity === 'fake') problems.push('a CLEAR with token_authenticity fake');
  for (const { code } of body.reasons) {
    if (KNOWN.has(code) && !CLEAR_REASON_CODES.has(code)) problems.push(`a CLEAR with reason ${code}`);
  }
  return problems;
}

type MatchFlag = 'recipient_match' | 'token_match' | 'amount_match';
type Expected = 'expected_recipient' | 'expected_token_contract' | 'expected_amount';
/**
 * Each match flag, the request field it answers, and what a booking must have verified even when
 * the caller did not ask: who was paid and how much ("every flag asked for is true" holds when
 * nothing was asked). A token is optional: without one, `expected_amount` is an amount of TRX.
 */
const EXPECTATIONS: [MatchFlag, Expected, string | null][] = [
  ['recipient_match', 'expected_recipient', 'recipient'],
  ['token_match', 'expected_token_contract', null],
  ['amount_match', 'expected_amount', 'amount'],
];

function matchProblems(request: CheckRequest, body: CheckResponse): string[] {
  const problems: string[] = [];
  for (const [flag, field, required] of EXPECTATIONS) {
    // Not asked, the flag is the spec's null (or matched nothing the caller gave).
    if (request[field] == null) {
      if (required !== null) problems.push(`${required} not verified: pass ${field}`);
    } else if (body[flag] !== true) {
      problems.push(`${flag} is ${body[flag] === false ? 'false (mismatch)' : 'null (not compared)'}`);
    }
  }
  if (body.transfers_truncated) problems.push('transfers_truncated: the transfer list is incomplete');
  if (body.reasons.some((r) => r.code === 'AMBIGUOUS_TRANSFER')) problems.push('AMBIGUOUS_TRANSFER');
  return problems;
}

function riskProblems(body: CheckResponse): string[] {
  if (body.sanctions_hit === false) return [];
  return [body.sanctions_hit ? 'sanctions_hit is true' : 'sanctions_hit is null (screening unavailable)'];
}

function freshnessProblems(freshness: CheckResponse['freshness'], limits: Limits): string[] {
  const checkedAt = Date.parse(freshness.checked_at);
  if (Number.isNaN(checkedAt)) return ['freshness.checked_at is not a date-time'];
  const limit = limits.maxSourceAgeSeconds;
  const oldest = freshness.max_source_age_seconds;
  const problems: string[] = [];
  if (!(Number.isInteger(oldest) && oldest >= 0)) problems.push(`max_source_age_seconds is ${oldest}`);
  else if (oldest > limit)
    problems.push(`the oldest evidence is ${oldest} s old (max_source_age_seconds, limit ${limit} s)`);
  if (freshness.risk_data_at === null) problems.push('risk data time unknown (freshness.risk_data_at)');
  else problems.push(...sourceAgeProblems({ field: 'risk_data_at', at: freshness.risk_data_at, checkedAt, limit }));
  if (freshness.token_data_at !== null) {
    problems.push(...sourceAgeProblems({ field: 'token_data_at', at: freshness.token_data_at, checkedAt, limit }));
  }
  return [...problems, ...resultAgeProblems(checkedAt, limits)];
}

/** One dated source, checked on its own: the service's oldest-source figure is not the only word on it. */
function sourceAgeProblems(source: { field: string; at: string; checkedAt: number; limit: number }): string[] {
  const { field, checkedAt, limit } = source;
  const at = Date.parse(source.at);
  if (Number.isNaN(at)) return [`freshness.${field} is not a date-time`];
  // Whole seconds as the service counts max_source_age_seconds (rounded down).
  const age = Math.floor((checkedAt - at) / 1000);
  // Evidence dated after the check that used it: the answer contradicts itself.
  if (age < -CLOCK_SKEW_SECONDS) return [`freshness.${field} is ${-age} s after checked_at`];
  return age > limit ? [`${field} is ${age} s old (limit ${limit} s)`] : [];
}

function resultAgeProblems(checkedAt: number, limits: Limits): string[] {
  const age = (limits.nowMs - checkedAt) / 1000;
  const limit = limits.maxResultAgeSeconds;
  if (age > limit) return [`the result was checked ${Math.round(age)} s ago (limit ${limit} s)`];
  if (age < -CLOCK_SKEW_SECONDS) return [`the result says it was checked ${Math.round(-age)} s from now`];
  return [];
}
