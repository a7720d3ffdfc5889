import { err, ok, type Result } from 'neverthrow';
import { hexToBase58Address } from '../tron/address.js';
import { describeNodeError } from './client.js';
import type { NodeAnswers } from './collect.js';
import { disagreementsOf } from './disagreements.js';
import { factsWithoutTransaction, type ChainFacts, type ChainProviderError } from './facts.js';
import { headGaps, nodeCallGaps, transactionGaps } from './gaps.js';
import { readAnswers, type Reading } from './reading.js';
import { stateEvidence, stateOf } from './state.js';
import { normalizeTransfers, type Normalized, type RawTransfer } from './transfers/index.js';

/** The facts before token metadata: everything but the tokens' symbols, names and decimals. */
export interface DerivedFacts extends Omit<ChainFacts, 'transfers' | 'tokenDataAt'> {
  transfers: RawTransfer[];
}

/** No lookup answered at all: the transaction's data is unavailable, not unknown. */
function unavailable({ full, solidity }: NodeAnswers): ChainProviderError | null {
  const lookups = [full.tx, full.info, solidity.tx, solidity.info];
  if (!lookups.every((r) => r.isErr())) return null;
  return { kind: 'unavailable', detail: lookups.map((r) => (r.isErr() ? describeNodeError(r.error) : '')).join('; ') };
}

/**
 * The chain facts the nodes' answers establish about `hash` (lower-case), before token metadata.
 * Pure: disagreements, gaps, the state and the transfers are each their own step.
 */
export function deriveFacts(
  hash: string,
  answers: NodeAnswers,
  maxTransfers: number,
): Result<DerivedFacts, ChainProviderError> {
  const refused = unavailable(answers);
  if (refused) return err(refused);
  const reading = readAnswers(hash, answers);
  const disagreements = disagreementsOf(reading);
  if (reading.tx === null && reading.info === null) {
    const missing = [...nodeCallGaps(reading), ...headGaps(reading)];
    const state = stateOf(stateEvidence(reading, missing));
    const { observedAt } = answers;
    const { headTime } = reading.placement;
    const known = { txHash: hash, state, verified: false, disagreements, missing, observedAt, headTime };
    return ok({ ...factsWithoutTransaction(known), transfers: [] });
  }
  const normalized = normalizeTransfers(reading.view, reading.info, reading.failed);
  const missing = [...nodeCallGaps(reading), ...headGaps(reading), ...transactionGaps(reading), ...normalized.gaps];
  return ok(foundFacts({ reading, normalized, maxTransfers }, { disagreements, missing }));
}

function foundFacts(
  { reading, normalized, maxTransfers }: { reading: Reading; normalized: Normalized; maxTransfers: number },
  { disagreements, missing }: Pick<DerivedFacts, 'disagreements' | 'missing'>,
): DerivedFacts {
  const { info, view, verification, solidityCheck, placement } = reading;
  const kept = normalized.transfers.slice(0, maxTransfers);
  const owner = view?.owner ? hexToBase58Address(view.owner) : null;
  const { primary } = normalized;
  return {
    txHash: reading.hash,
    state: stateOf(stateEvidence(reading, missing)),
    transactionType: view?.type ?? 'unknown',
    category: normalized.category,
    owner,
    blockNumber: placement.blockNumber,
    blockTime: info?.blockTimeStamp !== undefined ? new Date(info.blockTimeStamp) : null,
    confirmations: placement.confirmations,
    finalized: placement.finalized,
    verified: (verification?.verified ?? false) && (solidityCheck?.verified ?? true),
    disagreements,
    missing,
    transfers: kept,
    transfersTruncated: normalized.transfers.length > maxTransfers,
    primaryTransfer: primary !== null && primary < kept.length ? primary : null,
    counterparties: counterpartiesOf(owner, kept, [...namedBy(reading), ...normalized.involved]),
    observedAt: reading.answers.observedAt,
    headTime: placement.headTime,
  };
}

/** The accounts the signed parameter names besides the owner (see `ContractView.named`), base58. */
const namedBy = ({ view }: Reading): string[] =>
  (view?.named ?? []).map(hexToBase58Address).filter((a): a is string => a !== null);

/**
 * The accounts named or involved (base58, once each), without the owner and the transfers' parties
 * (those are screened as parties already).
 */
function counterpartiesOf(owner: string | null, transfers: readonly RawTransfer[], named: readonly string[]): string[] {
  const parties = new Set([owner, ...transfers.flatMap((t) => [t.sender, t.recipient])]);
  return [...new Set(named)].filter((a) => !parties.has(a));
}
