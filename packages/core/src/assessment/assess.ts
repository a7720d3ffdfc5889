import type { Result } from 'neverthrow';
import { factsWithoutTransaction, REQUIRED_CONFIRMATIONS, type ChainFacts, type Transfer } from '../chain/facts.js';
import type { ExposureResponse, TransactionCheckResponse, TransferResponse } from '../contract/models.js';
import { keyExposures } from '../risk/key-exposure.js';
import type { Exposure, RiskSignals } from '../risk/signals.js';
import { formatAmount } from '../tron/amount.js';
import { coverageOf } from './coverage.js';
import { readEvidence } from './evidence.js';
import { freshnessOf } from './freshness.js';
import type { AssessmentInput, AssessmentRejection } from './input.js';
import { matchExpectations, selectTransfer } from './matching.js';
import { verdictOf } from './verdict.js';

const NO_SIGNALS: RiskSignals = { sanctions: null, aml: null, token: null };

function transferResponse(transfer: Transfer): TransferResponse {
  return {
    index: transfer.index,
    asset_type: transfer.assetType,
    sender: transfer.sender,
    recipient: transfer.recipient,
    token_contract: transfer.tokenContract,
    token_id: transfer.tokenId,
    token_symbol: transfer.tokenSymbol,
    decimals: transfer.decimals,
    amount: transfer.decimals === null ? null : formatAmount(transfer.rawAmount, transfer.decimals),
  };
}

function exposureResponse(exposure: Exposure): ExposureResponse {
  return {
    category: exposure.category,
    exposure_type: exposure.exposureType,
    hops: exposure.hops,
    percent: exposure.percent,
  };
}

/**
 * An official token's decimals are pinned (the registry's). A chain reading that differs, from one
 * lying or broken node, would rescale every amount of that token and match a wrong one: it is a
 * contradiction between sources (TX_FACTS_DISAGREE), and no amount of that token is known.
 */
function heldToPinnedDecimals(
  facts: ChainFacts,
  signals: RiskSignals,
  expectations: AssessmentInput['expectations'],
): ChainFacts {
  const answer = signals.token;
  if (answer?.status !== 'answered' || answer.officialDecimals === undefined) return facts;
  const subject = selectTransfer(facts, expectations).transfer;
  if (subject === null || subject.decimals === null || subject.decimals === answer.officialDecimals) return facts;
  const detail = `the chain says ${subject.decimals} decimals for the token of transfer ${subject.index}; the official token has ${answer.officialDecimals}`;
  const sameAsset = (t: Transfer) =>
    t.assetType === subject.assetType && t.tokenContract === subject.tokenContract && t.tokenId === subject.tokenId;
  return {
    ...facts,
    transfers: facts.transfers.map((t) => (sameAsset(t) ? { ...t, decimals: null } : t)),
    disagreements: [...facts.disagreements, { code: 'other', detail }],
  };
}

/**
 * A deployment's own token that the chain names otherwise than its registry entry (an entry at the wrong
 * contract) is not `official`: the registry and the chain contradict each other (TX_FACTS_DISAGREE).
 */
function heldToRegistryNames(facts: ChainFacts, signals: RiskSignals): ChainFacts {
  const answer = signals.token;
  if (answer?.status !== 'answered' || answer.contradiction === undefined) return facts;
  return { ...facts, disagreements: [...facts.disagreements, { code: 'other', detail: answer.contradiction }] };
}

/**
 * The whole response body of one check, from chain facts, risk signals and the caller's
 * expectations. Pure: the time comes in `checkedAt`. The one error is the 422 for an expected
 * amount finer than its asset's decimals, which can only be known once the decimals are.
 */
export function assess(input: AssessmentInput): Result<TransactionCheckResponse, AssessmentRejection> {
  const notFound = input.facts.state === 'not_found';
  const signals = notFound ? NO_SIGNALS : input.signals;
  const facts = notFound
    ? factsWithoutTransaction(input.facts)
    : heldToPinnedDecimals(heldToRegistryNames(input.facts, signals), signals, input.expectations);

  return matchExpectations(facts, input.expectations).map((match) => {
    const evidence = readEvidence(facts, signals, match);
    const coverage = coverageOf(evidence);
    const verdict = verdictOf(evidence);
    if (verdict.overallState === 'CLEAR' && coverage !== 'complete') {
      throw new Error(`CLEAR with partial coverage: ${JSON.stringify(evidence)}`);
    }
    const selected = match.selection.transfer;
    const transfers = facts.transfers.map(transferResponse);
    // The selected transfer is one of the facts' own (each formatted once).
    const listed = selected === null ? -1 : facts.transfers.indexOf(selected);
    const selectedResponse = selected === null ? null : listed >= 0 ? transfers[listed]! : transferResponse(selected);
    const aml = signals.aml?.status === 'answered' ? signals.aml : null;
    const token = signals.token?.status === 'answered' ? signals.token.authenticity : 'unknown';
    return {
      request_id: input.requestId,
      tx_hash: input.txHash,
      network: 'tron',
      transaction_type: facts.transactionType,
      transaction_category: facts.category,
      transaction_state: facts.state,
      confirmations: facts.confirmations,
      required_confirmations: REQUIRED_CONFIRMATIONS,
      // The payer of the selected transfer; with none selected (a failed call, several transfers, a vote)
      // the signer, a fact of every found transaction. Null for not_found (the facts have no owner).
      sender: selectedResponse === null ? facts.owner : selectedResponse.sender,
      recipient: selectedResponse?.recipient ?? null,
      token_contract: selectedResponse?.token_contract ?? null,
      token_symbol: selectedResponse?.token_symbol ?? null,
      decimals: selectedResponse?.decimals ?? null,
      amount: selectedResponse?.amount ?? null,
      transfers,
      transfers_truncated: facts.transfersTruncated,
      aml_risk_level: aml?.level ?? 'unknown',
      sanctions_hit: evidence.sanctions === 'unavailable' ? null : evidence.sanctions === 'hit',
      // Bounded whatever the provider (a host's own, several counterparties' answers merged).
      key_exposure: keyExposures(aml?.exposures ?? []).map(exposureResponse),
      token_authenticity: token,
      recipient_match: match.recipient,
      token_match: match.token,
      amount_match: match.amount,
      coverage,
      freshness: freshnessOf(facts, signals, input.checkedAt),
      overall_state: verdict.overallState,
      reasons: verdict.reasons,
    };
  });
}
