import type { OverallState, Severity } from '../contract/enums.js';
import type { ReasonResponse } from '../contract/models.js';
import { reason, REASONS, type ReasonCode } from '../contract/reasons.js';
import type { Evidence } from './evidence.js';

export const MIN_REASONS = 2;
export const MAX_REASONS = 5;

/**
 * What each code does to the overall state. The lowest rank present decides it:
 * a sanctions hit beats everything, contradictory facts beat every other finding,
 * then high findings, then missing/unsupported evidence, then conditions to review.
 * Codes with no effect (null) are evidence found in order: with only those, the check is CLEAR.
 * A full record, so a new code cannot be added without deciding what it does.
 */
const EFFECT: Record<ReasonCode, { rank: number; state: Exclude<OverallState, 'CLEAR'> } | null> = {
  SANCTIONS_HIT: { rank: 0, state: 'HIGH_RISK' },
  TX_FACTS_DISAGREE: { rank: 1, state: 'LIMITED_DATA' },
  AML_HIGH: { rank: 2, state: 'HIGH_RISK' },
  TOKEN_FAKE: { rank: 2, state: 'HIGH_RISK' },
  TX_NOT_FOUND: { rank: 3, state: 'LIMITED_DATA' },
  TX_FACTS_PARTIAL: { rank: 3, state: 'LIMITED_DATA' },
  SANCTIONS_UNAVAILABLE: { rank: 3, state: 'LIMITED_DATA' },
  AML_UNAVAILABLE: { rank: 3, state: 'LIMITED_DATA' },
  AML_UNSUPPORTED_ASSET: { rank: 3, state: 'LIMITED_DATA' },
  TOKEN_AUTH_UNAVAILABLE: { rank: 3, state: 'LIMITED_DATA' },
  TOKEN_UNKNOWN: { rank: 3, state: 'LIMITED_DATA' },
  EXPECTED_DATA_UNAVAILABLE: { rank: 3, state: 'LIMITED_DATA' },
  TX_REVERTED: { rank: 4, state: 'REVIEW' },
  TX_PENDING_CONFIRMATIONS: { rank: 4, state: 'REVIEW' },
  EXPECTED_RECIPIENT_MISMATCH: { rank: 4, state: 'REVIEW' },
  EXPECTED_TOKEN_MISMATCH: { rank: 4, state: 'REVIEW' },
  EXPECTED_AMOUNT_MISMATCH: { rank: 4, state: 'REVIEW' },
  AMBIGUOUS_TRANSFER: { rank: 4, state: 'REVIEW' },
  AML_ELEVATED: { rank: 4, state: 'REVIEW' },
  TRANSFERS_TRUNCATED: { rank: 4, state: 'REVIEW' },
  TX_FINALIZED: null,
  TX_FACTS_VERIFIED: null,
  SANCTIONS_CLEAR: null,
  AML_LOW: null,
  TOKEN_OFFICIAL: null,
};

/**
 * Order of codes of equal severity (severity itself comes from the reason table). Among warnings:
 * the transaction's state, then the codes the spec's rules say a response includes (unavailable
 * screening and AML, unavailable expected data), then expected-payment findings, then other gaps.
 */
export const TIE_ORDER: readonly ReasonCode[] = [
  'SANCTIONS_HIT',
  'TX_FACTS_DISAGREE',
  'AML_HIGH',
  'TOKEN_FAKE',
  'TX_NOT_FOUND',
  'TX_REVERTED',
  'SANCTIONS_UNAVAILABLE',
  'AML_UNAVAILABLE',
  'EXPECTED_DATA_UNAVAILABLE',
  'TX_PENDING_CONFIRMATIONS',
  'AMBIGUOUS_TRANSFER',
  'EXPECTED_RECIPIENT_MISMATCH',
  'EXPECTED_TOKEN_MISMATCH',
  'EXPECTED_AMOUNT_MISMATCH',
  'TRANSFERS_TRUNCATED',
  'AML_ELEVATED',
  'TX_FACTS_PARTIAL',
  'AML_UNSUPPORTED_ASSET',
  'TOKEN_AUTH_UNAVAILABLE',
  'TOKEN_UNKNOWN',
  'TX_FINALIZED',
  'TX_FACTS_VERIFIED',
  'SANCTIONS_CLEAR',
  'AML_LOW',
  'TOKEN_OFFICIAL',
];

const SEVERITY_RANK: Record<Severity, number> = { critical: 0, high: 1, warning: 2, info: 3 };

/** Each code's sort key, computed once: severity (from the reason table) first, then its place in TIE_ORDER. */
const PRIORITY = new Map(
  (Object.keys(REASONS) as ReasonCode[]).map((code) => [
    code,
    SEVERITY_RANK[REASONS[code].severity] * (TIE_ORDER.length + 1) + TIE_ORDER.indexOf(code),
  ]),
);

/** Sort key: severity (from the reason table), then TIE_ORDER. */
export function reasonPriority(a: ReasonCode, b: ReasonCode): number {
  return PRIORITY.get(a)! - PRIORITY.get(b)!;
}

/** Every code in priority order: the applicable ones are picked from it, never sorted per check. */
const BY_PRIORITY: readonly ReasonCode[] = (Object.keys(REASONS) as ReasonCode[]).sort(reasonPriority);

const rankOf = (code: ReasonCode) => EFFECT[code]?.rank ?? Number.MAX_SAFE_INTEGER;

/** The one code about the transaction's state; every response carries it. */
function stateReason(evidence: Evidence): ReasonCode {
  switch (evidence.state) {
    case 'not_found':
      return 'TX_NOT_FOUND';
    case 'failed':
      return 'TX_REVERTED';
    case 'unknown':
      return 'TX_FACTS_PARTIAL';
    case 'pending':
      return 'TX_PENDING_CONFIRMATIONS';
    case 'confirmed':
      return evidence.final ? 'TX_FINALIZED' : 'TX_PENDING_CONFIRMATIONS';
  }
}

const SANCTIONS_CODE = {
  hit: 'SANCTIONS_HIT',
  clear: 'SANCTIONS_CLEAR',
  unavailable: 'SANCTIONS_UNAVAILABLE',
} as const;

const AML_CODE = {
  low: 'AML_LOW',
  moderate: 'AML_ELEVATED',
  high: 'AML_HIGH',
  severe: 'AML_HIGH',
  unavailable: 'AML_UNAVAILABLE',
  unsupported: 'AML_UNSUPPORTED_ASSET',
  not_applicable: null,
} as const;

const TOKEN_CODE = {
  official: 'TOKEN_OFFICIAL',
  fake: 'TOKEN_FAKE',
  unknown: 'TOKEN_UNKNOWN',
  unavailable: 'TOKEN_AUTH_UNAVAILABLE',
  not_applicable: null,
} as const;

/**
 * Each code's bit in a set of codes: its place in BY_PRIORITY, so reading the bits from the lowest
 * gives the codes in priority order (a set of 25 codes is one small integer, not a Set and arrays).
 */
const BIT = Object.fromEntries(BY_PRIORITY.map((code, place) => [code, 2 ** place])) as Record<ReasonCode, number>;
if (BY_PRIORITY.length > 31) throw new Error('reason codes no longer fit the bits of one small integer');

/** `codes` with the bit of `code` (if one applies). */
const withCode = (codes: number, code: ReasonCode | null | false) => (code ? codes | BIT[code] : codes);

/**
 * The codes a spec rule says the reasons include when they apply (response rules: sanctions hit or
 * unavailable, AML unavailable; matching rules 3, 5 and 9). With the explanation and the transaction-state
 * code they claim places before any other code.
 */
const REQUIRED = (
  [
    'SANCTIONS_HIT',
    'SANCTIONS_UNAVAILABLE',
    'AML_UNAVAILABLE',
    'AMBIGUOUS_TRANSFER',
    'EXPECTED_DATA_UNAVAILABLE',
    'EXPECTED_RECIPIENT_MISMATCH',
    'EXPECTED_TOKEN_MISMATCH',
    'EXPECTED_AMOUNT_MISMATCH',
  ] as const
).reduce(withCode, 0);

/** Every code that applies to the evidence, as bits. */
function applicableCodes(evidence: Evidence): number {
  const { match } = evidence;
  let codes = BIT[stateReason(evidence)];
  // A failure that is not yet final could still be reorganized away.
  codes = withCode(codes, evidence.state === 'failed' && !evidence.final && 'TX_PENDING_CONFIRMATIONS');
  codes = withCode(codes, evidence.contradictory && 'TX_FACTS_DISAGREE');
  codes = withCode(codes, evidence.factsIncomplete && 'TX_FACTS_PARTIAL');
  codes = withCode(codes, evidence.factsVerified && 'TX_FACTS_VERIFIED');
  codes = withCode(codes, evidence.truncated && 'TRANSFERS_TRUNCATED');
  codes = withCode(codes, match.selection.ambiguous && 'AMBIGUOUS_TRANSFER');
  codes = withCode(codes, SANCTIONS_CODE[evidence.sanctions]);
  codes = withCode(codes, AML_CODE[evidence.aml]);
  codes = withCode(codes, TOKEN_CODE[evidence.token]);
  codes = withCode(codes, match.recipient === false && 'EXPECTED_RECIPIENT_MISMATCH');
  codes = withCode(codes, match.token === false && 'EXPECTED_TOKEN_MISMATCH');
  codes = withCode(codes, match.amount === false && 'EXPECTED_AMOUNT_MISMATCH');
  return withCode(codes, match.dataUnavailable && 'EXPECTED_DATA_UNAVAILABLE');
}

/** The codes of a set of bits, in priority order. */
function codesOf(codes: number): ReasonCode[] {
  const list: ReasonCode[] = [];
  for (let place = 0; codes !== 0; place++, codes >>>= 1) if (codes & 1) list.push(BY_PRIORITY[place]!);
  return list;
}

/** `kept` with the codes of `candidates` added in priority order while fewer than MAX_REASONS are kept. */
function fill(kept: number, candidates: number): number {
  let count = codesOf(kept).length;
  for (const code of codesOf(candidates & ~kept)) {
    if (count === MAX_REASONS) break;
    kept |= BIT[code];
    count++;
  }
  return kept;
}

export interface Verdict {
  overallState: OverallState;
  /** The code that decided the overall state. */
  explanation: ReasonCode;
  reasons: ReasonResponse[];
}

/**
 * Overall state from the applicable codes, and the 2–5 reasons: the code that explains the state,
 * the transaction-state code unless it is info, then the REQUIRED codes that apply, then the other
 * codes, each group in priority order while places are left; shown in priority order. So a required
 * code takes the place of a code of lower priority, and an info code such as TX_FINALIZED never
 * displaces a warning. At most five codes besides the mismatches can be required at once (the
 * explanation, one state code, one sanctions code, AML_UNAVAILABLE, and EXPECTED_DATA_UNAVAILABLE or
 * AMBIGUOUS_TRANSFER, which needs every comparison true): those always fit; mismatches, last of
 * them in priority, take the places left.
 */
export function verdictOf(evidence: Evidence): Verdict {
  const applicable = applicableCodes(evidence);
  // Among equal ranks the higher-priority code explains: the first of the lowest rank in priority order.
  const ordered = codesOf(applicable);
  let explanation = ordered[0]!;
  for (const code of ordered) if (rankOf(code) < rankOf(explanation)) explanation = code;
  const overallState = EFFECT[explanation]?.state ?? 'CLEAR';

  const state = stateReason(evidence);
  const first = withCode(BIT[explanation], REASONS[state].severity !== 'info' && state);
  const kept = fill(fill(first, applicable & REQUIRED), applicable);
  const reasons = codesOf(kept).map(reason);
  // A state reason and a sanctions reason always apply, so this holds by construction.
  if (reasons.length < MIN_REASONS) throw new Error(`only ${reasons.length} reason(s) apply`);
  return { overallState, explanation, reasons };
}
