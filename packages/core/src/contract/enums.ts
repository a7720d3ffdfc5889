import * as t from 'io-ts';
import { enumOf } from './schema.js';

export const Network = enumOf('Network', ['tron']);
export type Network = t.TypeOf<typeof Network>;

export const TransactionState = enumOf('TransactionState', ['confirmed', 'pending', 'failed', 'not_found', 'unknown']);
export type TransactionState = t.TypeOf<typeof TransactionState>;

export const TransactionCategory = enumOf('TransactionCategory', [
  'trx_transfer',
  'trc10_transfer',
  'trc20_transfer',
  'smart_contract_call',
  'smart_contract_deploy',
  'staking',
  'voting',
  'governance',
  'resource_operation',
  'account_operation',
  'exchange',
  'market',
  'permission_update',
  'other',
  'unknown',
]);
export type TransactionCategory = t.TypeOf<typeof TransactionCategory>;

export const OverallState = enumOf('OverallState', ['CLEAR', 'REVIEW', 'HIGH_RISK', 'LIMITED_DATA']);
export type OverallState = t.TypeOf<typeof OverallState>;

export const AmlRiskLevel = enumOf('AmlRiskLevel', ['low', 'moderate', 'high', 'severe', 'unknown']);
export type AmlRiskLevel = t.TypeOf<typeof AmlRiskLevel>;

export const TokenAuthenticity = enumOf('TokenAuthenticity', ['official', 'fake', 'unknown']);
export type TokenAuthenticity = t.TypeOf<typeof TokenAuthenticity>;

export const Coverage = enumOf('Coverage', ['complete', 'partial']);
export type Coverage = t.TypeOf<typeof Coverage>;

/** TransferResponse.asset_type: the spec leaves the values open; these are ours. */
export const AssetType = enumOf('AssetType', ['trx', 'trc10', 'trc20']);
export type AssetType = t.TypeOf<typeof AssetType>;

/** ExposureResponse.exposure_type: the spec leaves the values open; these are ours. */
export const ExposureType = enumOf('ExposureType', ['direct', 'indirect']);
export type ExposureType = t.TypeOf<typeof ExposureType>;

export const ReasonCategory = enumOf('ReasonCategory', ['transaction', 'risk', 'sanctions', 'token', 'expected']);
export type ReasonCategory = t.TypeOf<typeof ReasonCategory>;

export const Severity = enumOf('Severity', ['info', 'warning', 'high', 'critical']);
export type Severity = t.TypeOf<typeof Severity>;

export const ErrorCode = enumOf('ErrorCode', [
  'invalid_api_key',
  'tenant_suspended',
  'network_not_enabled',
  'idempotency_conflict',
  'idempotency_in_progress',
  'malformed_tx_hash',
  'invalid_network',
  'invalid_tron_address',
  'invalid_expected_amount',
  'invalid_idempotency_key',
  'payload_too_large',
  'validation_error',
  'rate_limit_exceeded',
  'quota_exceeded',
  'concurrency_limit_exceeded',
  'provider_unavailable',
  'api_not_configured',
  'rate_limiter_unavailable',
  'api_disabled',
  'request_timeout',
  'internal_error',
]);
export type ErrorCode = t.TypeOf<typeof ErrorCode>;
