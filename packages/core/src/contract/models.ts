import * as t from 'io-ts';
import { isTronAddress } from '../tron/address.js';
import { isPlainDecimal, MAX_AMOUNT_LENGTH } from '../tron/amount.js';
import {
  AmlRiskLevel,
  AssetType,
  Coverage,
  ErrorCode,
  ExposureType,
  Network,
  OverallState,
  ReasonCategory,
  Severity,
  TokenAuthenticity,
  TransactionCategory,
  TransactionState,
} from './enums.js';
import { MAX_KEY_EXPOSURES } from './bounds.js';
import { ReasonCode } from './reasons.js';
import {
  annotate,
  boundedArray,
  constrainedString,
  integer,
  isoDateTime,
  nullable,
  strictObject,
  toleratingFutureValues,
} from './schema.js';

// ---- primitives --------------------------------------------------------------------------

const TX_HASH = /^[0-9a-fA-F]{64}$/;
export const TxHash = constrainedString('TxHash', (s) => TX_HASH.test(s), {
  pattern: TX_HASH.source,
  description: '64 hexadecimal characters (either case; normalized to lower case)',
});

export const TronAddress = constrainedString('TronAddress', isTronAddress, {
  pattern: '^T[1-9A-HJ-NP-Za-km-z]{33}$',
  description: 'base58check TRON address (version byte 0x41, double-SHA-256 checksum)',
});

export const DecimalAmount = constrainedString('DecimalAmount', isPlainDecimal, {
  pattern: '^[0-9]+(\\.[0-9]+)?$',
  maxLength: MAX_AMOUNT_LENGTH,
  description: 'nonnegative plain decimal string in token units; no sign, exponent or whitespace',
});

export const Percentage = constrainedString('Percentage', isPlainDecimal, {
  pattern: '^[0-9]+(\\.[0-9]+)?$',
  maxLength: MAX_AMOUNT_LENGTH,
  description: 'share of the exposure in percent (0–100) as a plain decimal string',
});

const NonNegativeInteger = integer('NonNegativeInteger', { minimum: 0 });
export const Days = integer('Days', { minimum: 1, maximum: 90 });
export const DEFAULT_USAGE_DAYS = 30;
const Text = t.string;

// ---- request -----------------------------------------------------------------------------

export const TransactionCheckRequest = strictObject(
  'TransactionCheckRequest',
  { tx_hash: TxHash, network: Network },
  {
    expected_recipient: nullable(TronAddress),
    expected_token_contract: nullable(TronAddress),
    expected_amount: nullable(DecimalAmount),
  },
);
export type TransactionCheckRequest = t.TypeOf<typeof TransactionCheckRequest>;

/**
 * Header `Idempotency-Key`: 1 to 128 printable ASCII characters (space included), but no
 * leading or trailing space: HTTP hops strip those, so such a key could change between retries.
 */
const IDEMPOTENCY_KEY = /^[!-~]([ -~]{0,126}[!-~])?$/;
export const IdempotencyKey = constrainedString('IdempotencyKey', (s) => IDEMPOTENCY_KEY.test(s), {
  pattern: IDEMPOTENCY_KEY.source,
  minLength: 1,
  maxLength: 128,
});

// ---- check response ----------------------------------------------------------------------

export const TransferResponse = t.type(
  {
    index: NonNegativeInteger,
    asset_type: AssetType,
    sender: nullable(TronAddress),
    recipient: nullable(TronAddress),
    token_contract: nullable(TronAddress),
    token_id: nullable(Text),
    token_symbol: nullable(Text),
    decimals: nullable(NonNegativeInteger),
    amount: nullable(DecimalAmount),
  },
  'TransferResponse',
);
export type TransferResponse = t.TypeOf<typeof TransferResponse>;

export const ExposureResponse = t.type(
  {
    category: Text,
    exposure_type: ExposureType,
    hops: NonNegativeInteger,
    percent: nullable(Percentage),
  },
  'ExposureResponse',
);
export type ExposureResponse = t.TypeOf<typeof ExposureResponse>;

/** A description rather than `maxItems`: the spec sets no bound, so a client must not rely on this one. */
const KeyExposure = annotate(t.array(ExposureResponse), {
  description: `The heaviest exposures, at most ${MAX_KEY_EXPOSURES}: sanctions categories first, then the larger percent, then direct before indirect; in the AML answer's order.`,
});

export const FreshnessResponse = t.type(
  {
    checked_at: isoDateTime,
    transaction_at: nullable(isoDateTime),
    risk_data_at: nullable(isoDateTime),
    token_data_at: nullable(isoDateTime),
    max_source_age_seconds: NonNegativeInteger,
  },
  'FreshnessResponse',
);
export type FreshnessResponse = t.TypeOf<typeof FreshnessResponse>;

export const ReasonResponse = t.type(
  { code: toleratingFutureValues(ReasonCode), category: ReasonCategory, severity: Severity },
  'ReasonResponse',
);
export type ReasonResponse = t.TypeOf<typeof ReasonResponse>;

const Reasons = boundedArray('Reasons', ReasonResponse, { minItems: 2, maxItems: 5 });

/** The 27 always-present fields, in the spec's order (which is also the JSON order). */
export const TransactionCheckResponse = t.type(
  {
    request_id: Text,
    tx_hash: TxHash,
    network: Network,
    transaction_type: Text,
    transaction_category: TransactionCategory,
    transaction_state: TransactionState,
    confirmations: nullable(NonNegativeInteger),
    required_confirmations: NonNegativeInteger,
    sender: nullable(TronAddress),
    recipient: nullable(TronAddress),
    token_contract: nullable(TronAddress),
    token_symbol: nullable(Text),
    decimals: nullable(NonNegativeInteger),
    amount: nullable(DecimalAmount),
    transfers: t.array(TransferResponse),
    transfers_truncated: t.boolean,
    aml_risk_level: AmlRiskLevel,
    sanctions_hit: nullable(t.boolean),
    key_exposure: KeyExposure,
    token_authenticity: TokenAuthenticity,
    recipient_match: nullable(t.boolean),
    token_match: nullable(t.boolean),
    amount_match: nullable(t.boolean),
    coverage: Coverage,
    freshness: FreshnessResponse,
    overall_state: OverallState,
    reasons: Reasons,
  },
  'TransactionCheckResponse',
);
export type TransactionCheckResponse = t.TypeOf<typeof TransactionCheckResponse>;

// ---- usage -------------------------------------------------------------------------------

export const UsageQuery = strictObject('UsageQuery', {}, { days: Days });
export type UsageQuery = t.TypeOf<typeof UsageQuery>;

export const UsagePlanResponse = t.type(
  { code: Text, version: integer('PlanVersion', { minimum: 1 }), name: Text },
  'UsagePlanResponse',
);

export const UsageLimitsResponse = t.type(
  {
    rate_limit_per_minute: NonNegativeInteger,
    max_concurrent_requests: NonNegativeInteger,
    enabled_networks: t.array(Text),
  },
  'UsageLimitsResponse',
);

export const UsagePeriodResponse = t.type(
  {
    start: isoDateTime,
    end: isoDateTime,
    used: NonNegativeInteger,
    reserved: NonNegativeInteger,
    limit: NonNegativeInteger,
    remaining: NonNegativeInteger,
  },
  'UsagePeriodResponse',
);

export const UsageRecentResponse = t.type(
  {
    days: Days,
    requests: NonNegativeInteger,
    billable: NonNegativeInteger,
    limited_data: NonNegativeInteger,
    errors: NonNegativeInteger,
    average_latency_ms: nullable(NonNegativeInteger),
    by_network: t.record(t.string, NonNegativeInteger),
    by_overall_state: t.record(t.string, NonNegativeInteger),
  },
  'UsageRecentResponse',
);

export const Uuid = constrainedString(
  'Uuid',
  (s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s),
  { format: 'uuid' },
);

export const UsageResponse = t.type(
  {
    tenant_id: Uuid,
    plan: nullable(UsagePlanResponse),
    limits: UsageLimitsResponse,
    period: UsagePeriodResponse,
    recent: UsageRecentResponse,
  },
  'UsageResponse',
);
export type UsageResponse = t.TypeOf<typeof UsageResponse>;

// ---- errors ------------------------------------------------------------------------------

export const ErrorDetail = t.type({ code: ErrorCode, message: Text, retryable: t.boolean }, 'ErrorDetail');
export const ErrorResponse = t.type({ request_id: Text, error: ErrorDetail }, 'ErrorResponse');
export type ErrorResponse = t.TypeOf<typeof ErrorResponse>;
