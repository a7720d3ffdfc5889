import type { TransactionState } from '../contract/enums.js';
import { REQUIRED_CONFIRMATIONS, type Gap } from './facts.js';
import type { Reading } from './reading.js';

/** What the transaction state is decided from. */
export interface StateEvidence {
  /** Either node has the body or the info. */
  found: boolean;
  /** The four lookups (body and info on both nodes) were answered, found or not. */
  lookupsAnswered: boolean;
  /**
   * The full node's head was answered and the view is recent (no `head_stale` gap): a not_found rests on
   * the full node, and neither a stale view nor one whose head is unknown can rule a transaction out.
   */
  current: boolean;
  /** Any answer says the execution failed. */
  failed: boolean;
  /** The lookups and the full node's head were answered, and no gap leaves the state open. */
  established: boolean;
  /** Finalized evidence and at least `REQUIRED_CONFIRMATIONS` confirmations. */
  final: boolean;
}

/** First matching row wins. */
const STATE_TABLE: readonly { when: (e: StateEvidence) => boolean; state: TransactionState }[] = [
  { when: (e) => !e.found && e.lookupsAnswered && e.current, state: 'not_found' },
  { when: (e) => !e.found, state: 'unknown' },
  { when: (e) => e.failed, state: 'failed' },
  { when: (e) => !e.established, state: 'unknown' },
  { when: (e) => e.final, state: 'confirmed' },
  { when: () => true, state: 'pending' },
];

export function stateOf(evidence: StateEvidence): TransactionState {
  return STATE_TABLE.find((row) => row.when(evidence))!.state;
}

/** Gaps after which no state but `failed` or `unknown` can be claimed. */
const STATE_GAPS = new Set<Gap['code']>([
  'transaction_body_missing',
  'receipt_result_missing',
  'block_number_missing',
  'head_below_block',
  'solidity_node_racing',
]);

export function stateEvidence(reading: Reading, gaps: readonly Gap[]): StateEvidence {
  const { full, solidity } = reading.answers;
  const lookups = [full.tx, full.info, solidity.tx, solidity.info];
  const { finalized, confirmations } = reading.placement;
  return {
    found: reading.tx !== null || reading.info !== null,
    lookupsAnswered: lookups.every((r) => r.isOk()),
    current: full.block.isOk() && !gaps.some((g) => g.code === 'head_stale'),
    failed: reading.failed,
    // The solidity node's head only places the tx; a failure there does not leave the state open.
    established: [...lookups, full.block].every((r) => r.isOk()) && !gaps.some((g) => STATE_GAPS.has(g.code)),
    final: finalized && confirmations !== null && confirmations >= REQUIRED_CONFIRMATIONS,
  };
}
