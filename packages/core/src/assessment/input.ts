import type { ChainFacts, Transfer } from '../chain/facts.js';
import type { ErrorCode } from '../contract/enums.js';
import type { TransactionCheckResponse } from '../contract/models.js';
import type { RiskSignals } from '../risk/signals.js';

/** What the caller expects to have received: any subset (null = not supplied). */
export interface Expectations {
  /** base58, checksum-validated. */
  recipient: string | null;
  /** base58, checksum-validated; compared as an exact contract. */
  tokenContract: string | null;
  /** Plain decimal string in token units, syntax-validated (precision is checked against decimals here). */
  amount: string | null;
}

export interface AssessmentInput {
  requestId: string;
  /** Normalized (lower case) hash. */
  txHash: string;
  expectations: Expectations;
  facts: ChainFacts;
  signals: RiskSignals;
  checkedAt: Date;
}

/** The one request error that can only be known once the asset's decimals are: excess precision. */
export interface AssessmentRejection {
  code: Extract<ErrorCode, 'invalid_expected_amount'>;
  message: string;
}

export type AssessmentOutput = TransactionCheckResponse;

/** The transfer a check is about: chosen by the matching rules, or the facts' primary transfer. */
export interface TransferSelection {
  transfer: Transfer | null;
  /** Several transfers satisfy every supplied expectation (AMBIGUOUS_TRANSFER). */
  ambiguous: boolean;
}
