import { REQUIRED_CONFIRMATIONS, type ChainFacts, type Transfer } from '../chain/facts.js';
import type { TransactionState } from '../contract/enums.js';
import type { AmlLevel, RiskSignals } from '../risk/signals.js';
import type { ExpectedPaymentMatch } from './matching.js';

/**
 * What a check established, each piece read once and conservatively: an answer the assessment
 * cannot use is `unavailable`, never a clean value. Coverage, overall state and reasons are all
 * derived from this one reading, so they cannot disagree about the evidence.
 */
export interface Evidence {
  state: TransactionState;
  /** Verified against the hash, no contradiction, nothing missing (TX_FACTS_VERIFIED). */
  factsVerified: boolean;
  /** Sources contradict each other (TX_FACTS_DISAGREE). */
  contradictory: boolean;
  /**
   * A found transaction whose facts are unverified or incomplete (something missing; the signer, a
   * transfer's party or asset, or the subject's decimals unreadable), or whose state is unknown (TX_FACTS_PARTIAL).
   */
  factsIncomplete: boolean;
  /** Included in finalized evidence with at least 19 confirmations (confirmed or failed). */
  final: boolean;
  truncated: boolean;
  sanctions: 'hit' | 'clear' | 'unavailable';
  /** A hit stands, but not every address was screened by a source that vouches for it. */
  sanctionsIncomplete: boolean;
  aml: AmlLevel | 'unavailable' | 'unsupported' | 'not_applicable';
  /** A high or severe level stands, but some counterparties' lookups failed. */
  amlIncomplete: boolean;
  token: 'official' | 'fake' | 'unknown' | 'unavailable' | 'not_applicable';
  match: ExpectedPaymentMatch;
}

function isFinal(facts: ChainFacts): boolean {
  return (
    (facts.state === 'confirmed' || facts.state === 'failed') &&
    facts.finalized &&
    facts.confirmations !== null &&
    facts.confirmations >= REQUIRED_CONFIRMATIONS
  );
}

/**
 * Screening applies to every found transaction (it always has a signer), so no answer is no screening;
 * for a transaction that was not found nothing was screened (sanctions_hit null).
 */
function readSanctions(signals: RiskSignals): Evidence['sanctions'] {
  const answer = signals.sanctions;
  if (answer === null || answer.status !== 'answered') return 'unavailable';
  if (answer.hits.length > 0) return 'hit';
  // No hit from a screen with gaps (a host's own provider may answer so) proves nothing clean.
  return answer.incomplete === true ? 'unavailable' : 'clear';
}

/**
 * AML applies to every found transaction (its signer, at least, is a counterparty; `gatherSignals`
 * answers `unavailable` when it has none), so no answer is no assessment, as for sanctions.
 */
function readAml(facts: ChainFacts, signals: RiskSignals): Evidence['aml'] {
  const answer = signals.aml;
  if (answer === null) return facts.state === 'not_found' ? 'not_applicable' : 'unavailable';
  if (answer.status === 'answered') return answer.level;
  return answer.status === 'unsupported_asset' ? 'unsupported' : 'unavailable';
}

const movesToken = (transfer: Transfer) => transfer.assetType === 'trc10' || transfer.assetType === 'trc20';

/**
 * Token authenticity applies where the check's subject moves a TRC10/TRC20 token: the selected
 * transfer, or, with none selected, any listed transfer. A missing answer there is unavailable.
 * Otherwise a `null` answer is "not applicable" (TRX is answered `official` by the token provider).
 */
function readToken(facts: ChainFacts, signals: RiskSignals, match: ExpectedPaymentMatch): Evidence['token'] {
  const answer = signals.token;
  if (answer === null) {
    const selected = match.selection.transfer;
    const applies = selected === null ? facts.transfers.some(movesToken) : movesToken(selected);
    return applies ? 'unavailable' : 'not_applicable';
  }
  return answer.status === 'answered' ? answer.authenticity : 'unavailable';
}

/** A party or the asset of a transfer is unknown: it was not fully screened, nor its token judged. */
const unreadable = (t: Transfer) =>
  t.sender === null ||
  t.recipient === null ||
  (t.assetType === 'trc20' && t.tokenContract === null) ||
  (t.assetType === 'trc10' && t.tokenId === null);

/**
 * An unknown signer or an unreadable transfer (not fully screened), or a subject whose decimals are
 * unknown (it has no amount): incomplete facts even when the provider listed nothing missing.
 */
function partiesUnreadable(facts: ChainFacts, match: ExpectedPaymentMatch): boolean {
  return facts.owner === null || facts.transfers.some(unreadable) || match.selection.transfer?.decimals === null;
}

export function readEvidence(facts: ChainFacts, signals: RiskSignals, match: ExpectedPaymentMatch): Evidence {
  const found = facts.state !== 'not_found';
  const contradictory = facts.disagreements.length > 0;
  const factsIncomplete =
    found &&
    (!facts.verified || facts.missing.length > 0 || facts.state === 'unknown' || partiesUnreadable(facts, match));
  return {
    state: facts.state,
    factsVerified: found && !contradictory && !factsIncomplete,
    contradictory,
    factsIncomplete,
    final: isFinal(facts),
    truncated: found && facts.transfersTruncated,
    sanctions: readSanctions(signals),
    sanctionsIncomplete: signals.sanctions?.status === 'answered' && signals.sanctions.incomplete === true,
    aml: readAml(facts, signals),
    amlIncomplete: signals.aml?.status === 'answered' && signals.aml.incomplete === true,
    token: readToken(facts, signals, match),
    match,
  };
}
