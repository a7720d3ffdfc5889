import type { ReasonCategory, Severity } from './enums.js';
import { enumOf } from './schema.js';

/**
 * Every reason code with its fixed category and severity: the one table in code.
 * Severity: `critical` = sanctions; `high` = a finding that makes a check HIGH_RISK, or
 * contradictory facts; `warning` = needs attention (REVIEW or LIMITED_DATA causes);
 * `info` = evidence that was found in order.
 */
export const REASONS = {
  TX_FACTS_VERIFIED: { category: 'transaction', severity: 'info' },
  TX_FACTS_PARTIAL: { category: 'transaction', severity: 'warning' },
  TX_FACTS_DISAGREE: { category: 'transaction', severity: 'high' },
  TX_FINALIZED: { category: 'transaction', severity: 'info' },
  TX_PENDING_CONFIRMATIONS: { category: 'transaction', severity: 'warning' },
  TX_REVERTED: { category: 'transaction', severity: 'warning' },
  TX_NOT_FOUND: { category: 'transaction', severity: 'warning' },
  TRANSFERS_TRUNCATED: { category: 'transaction', severity: 'warning' },
  AMBIGUOUS_TRANSFER: { category: 'expected', severity: 'warning' },
  AML_UNSUPPORTED_ASSET: { category: 'risk', severity: 'warning' },
  AML_UNAVAILABLE: { category: 'risk', severity: 'warning' },
  AML_LOW: { category: 'risk', severity: 'info' },
  AML_ELEVATED: { category: 'risk', severity: 'warning' },
  AML_HIGH: { category: 'risk', severity: 'high' },
  SANCTIONS_HIT: { category: 'sanctions', severity: 'critical' },
  SANCTIONS_CLEAR: { category: 'sanctions', severity: 'info' },
  SANCTIONS_UNAVAILABLE: { category: 'sanctions', severity: 'warning' },
  TOKEN_AUTH_UNAVAILABLE: { category: 'token', severity: 'warning' },
  TOKEN_OFFICIAL: { category: 'token', severity: 'info' },
  TOKEN_FAKE: { category: 'token', severity: 'high' },
  TOKEN_UNKNOWN: { category: 'token', severity: 'warning' },
  EXPECTED_RECIPIENT_MISMATCH: { category: 'expected', severity: 'warning' },
  EXPECTED_TOKEN_MISMATCH: { category: 'expected', severity: 'warning' },
  EXPECTED_AMOUNT_MISMATCH: { category: 'expected', severity: 'warning' },
  EXPECTED_DATA_UNAVAILABLE: { category: 'expected', severity: 'warning' },
} as const satisfies Record<string, { category: ReasonCategory; severity: Severity }>;

export type ReasonCode = keyof typeof REASONS;

export const ReasonCode = enumOf('ReasonCode', Object.keys(REASONS) as [ReasonCode, ...ReasonCode[]]);

/** The response item of a reason code: category and severity always come from REASONS. */
export function reason(code: ReasonCode): { code: ReasonCode; category: ReasonCategory; severity: Severity } {
  const { category, severity } = REASONS[code];
  return { code, category, severity };
}
