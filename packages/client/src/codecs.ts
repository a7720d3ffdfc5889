import * as t from 'io-ts';

// The API's answers as a client reads them (docs/SPEC.md, Versioning): every field this package
// consumes is decoded, unknown fields pass through untouched, and open values (reason codes,
// categories, asset types…) are plain strings, so a server that adds a value never breaks a client.
// Only the values the booking rules branch on (overall and transaction state, coverage) are closed
// sets: an answer that changes what they can be is one this client cannot judge, and says so.
// `test/contract-types.test.ts` pins these types to the core's contract models.

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);
const text = t.string;
const count = t.number;

export const OverallState = t.keyof({ CLEAR: null, REVIEW: null, HIGH_RISK: null, LIMITED_DATA: null });
export type OverallState = t.TypeOf<typeof OverallState>;

export const TransactionState = t.keyof({
  confirmed: null,
  pending: null,
  failed: null,
  not_found: null,
  unknown: null,
});
export type TransactionState = t.TypeOf<typeof TransactionState>;

export const Coverage = t.keyof({ complete: null, partial: null });
export type Coverage = t.TypeOf<typeof Coverage>;

export const Reason = t.type({ code: text, category: text, severity: text }, 'Reason');
export type Reason = t.TypeOf<typeof Reason>;

/**
 * The spec's 2 to 5 reasons (Response rules): a 200 with fewer or more is not the service speaking
 * as specified (a cut-off or padded list), so the client cannot read it as an answer.
 */
const Reasons = t.refinement(
  t.array(Reason),
  (reasons) => reasons.length >= 2 && reasons.length <= 5,
  '2 to 5 reasons',
);

export const Transfer = t.type(
  {
    index: count,
    asset_type: text,
    sender: nullable(text),
    recipient: nullable(text),
    token_contract: nullable(text),
    token_id: nullable(text),
    token_symbol: nullable(text),
    decimals: nullable(count),
    amount: nullable(text),
  },
  'Transfer',
);
export type Transfer = t.TypeOf<typeof Transfer>;

export const Exposure = t.type(
  { category: text, exposure_type: text, hops: count, percent: nullable(text) },
  'Exposure',
);
export type Exposure = t.TypeOf<typeof Exposure>;

export const Freshness = t.type(
  {
    checked_at: text,
    transaction_at: nullable(text),
    risk_data_at: nullable(text),
    token_data_at: nullable(text),
    max_source_age_seconds: count,
  },
  'Freshness',
);
export type Freshness = t.TypeOf<typeof Freshness>;

/** `200` of `POST /v1/transaction/check`. */
export const CheckResponse = t.type(
  {
    request_id: text,
    tx_hash: text,
    network: text,
    transaction_type: text,
    transaction_category: text,
    transaction_state: TransactionState,
    confirmations: nullable(count),
    required_confirmations: count,
    sender: nullable(text),
    recipient: nullable(text),
    token_contract: nullable(text),
    token_symbol: nullable(text),
    decimals: nullable(count),
    amount: nullable(text),
    transfers: t.array(Transfer),
    transfers_truncated: t.boolean,
    aml_risk_level: text,
    sanctions_hit: nullable(t.boolean),
    key_exposure: t.array(Exposure),
    token_authenticity: text,
    recipient_match: nullable(t.boolean),
    token_match: nullable(t.boolean),
    amount_match: nullable(t.boolean),
    coverage: Coverage,
    freshness: Freshness,
    overall_state: OverallState,
    reasons: Reasons,
  },
  'CheckResponse',
);
export type CheckResponse = t.TypeOf<typeof CheckResponse>;

/** `200` of `GET /v1/usage`. */
export const UsageResponse = t.type(
  {
    tenant_id: text,
    plan: nullable(t.type({ code: text, version: count, name: text })),
    limits: t.type({ rate_limit_per_minute: count, max_concurrent_requests: count, enabled_networks: t.array(text) }),
    period: t.type({ start: text, end: text, used: count, reserved: count, limit: count, remaining: count }),
    recent: t.type({
      days: count,
      requests: count,
      billable: count,
      limited_data: count,
      errors: count,
      average_latency_ms: nullable(count),
      by_network: t.record(text, count),
      by_overall_state: t.record(text, count),
    }),
  },
  'UsageResponse',
);
export type UsageResponse = t.TypeOf<typeof UsageResponse>;

/** Every error answer of the API; `code` is open (branch on the codes you know, and on `retryable`). */
export const ErrorResponse = t.type(
  { request_id: text, error: t.type({ code: text, message: text, retryable: t.boolean }) },
  'ErrorResponse',
);
export type ErrorResponse = t.TypeOf<typeof ErrorResponse>;

/** The request body of a check. */
export interface CheckRequest {
  tx_hash: string;
  network: 'tron';
  expected_recipient?: string | null;
  expected_token_contract?: string | null;
  expected_amount?: string | null;
}

/** The reason codes of API v1; anything else is a future code, to be looked at, never read as clean. */
export const KNOWN_REASON_CODES = [
  'TX_FACTS_VERIFIED',
  'TX_FACTS_PARTIAL',
  'TX_FACTS_DISAGREE',
  'TX_FINALIZED',
  'TX_PENDING_CONFIRMATIONS',
  'TX_REVERTED',
  'TX_NOT_FOUND',
  'TRANSFERS_TRUNCATED',
  'AMBIGUOUS_TRANSFER',
  'AML_UNSUPPORTED_ASSET',
  'AML_UNAVAILABLE',
  'AML_LOW',
  'AML_ELEVATED',
  'AML_HIGH',
  'SANCTIONS_HIT',
  'SANCTIONS_CLEAR',
  'SANCTIONS_UNAVAILABLE',
  'TOKEN_AUTH_UNAVAILABLE',
  'TOKEN_OFFICIAL',
  'TOKEN_FAKE',
  'TOKEN_UNKNOWN',
  'EXPECTED_RECIPIENT_MISMATCH',
  'EXPECTED_TOKEN_MISMATCH',
  'EXPECTED_AMOUNT_MISMATCH',
  'EXPECTED_DATA_UNAVAILABLE',
] as const;
export type KnownReasonCode = (typeof KNOWN_REASON_CODES)[number];
