import type { Answer, NodeAnswers } from './collect.js';
import type { NodeBlock, NodeTransaction, NodeTransactionInfo } from './node-codecs.js';
import { verifyTransaction, type ContractView, type Verification } from './verify.js';

/** Where the transaction sits on the chain, as far as the answers place it. */
export interface Placement {
  /** The tx info's block; null when there is no info, or it lacks one (proto3 omits 0, and block 0 is genesis). */
  blockNumber: number | null;
  /** The higher of the two nodes' heads. */
  head: number | null;
  /** The solidity node's head: the highest solidified block. */
  solidifiedHead: number | null;
  /** Block time of the head the answer rests on (see `restingHeadTime`): how current the view it used is. */
  headTime: Date | null;
  /** A head below the tx block: a lagging or load-balanced node, so confirmations cannot be counted. */
  headBelowBlock: boolean;
  /** head − block + 1; 0 for a broadcast transaction not yet in a block (see `unplacedConfirmations`); null when unknown. */
  confirmations: number | null;
  /** The solidity node has the tx info: it answers one only for a solidified block. */
  finalized: boolean;
}

/** The answers, read: which body and info are used, what they verify to, and where the transaction sits. */
export interface Reading {
  hash: string;
  answers: NodeAnswers;
  /** The full node's body, else the solidity node's. */
  tx: NodeTransaction | null;
  /** The solidity node's info (final), else the full node's. */
  info: NodeTransactionInfo | null;
  verification: Verification | null;
  /** The solidity node's body checked too, when the full node's is the one used. */
  solidityCheck: Verification | null;
  view: ContractView | null;
  /** Any answer says the execution failed. */
  failed: boolean;
  placement: Placement;
}

export const valueOf = <A>(answer: Answer<A | null>): A | null => (answer.isOk() ? answer.value : null);

const headOf = (block: Answer<NodeBlock>): number | null =>
  block.isOk() ? block.value.block_header.raw_data.number : null;

/**
 * Block time of the head the answer rests on: the full node's whenever it answered one, since every state
 * rests on the full node (a not_found on its `{}`, any other state on its lookups with its head answered:
 * `state.ts`), while the solidity node's answers can only understate (not solidified yet, a lower head; a
 * solidity head above the full node's means the full node lags, and its older head dates the answer).
 * Without it, the solidity node's: the only view left, and the state is then unknown.
 */
function restingHeadTime({ full, solidity }: NodeAnswers): Date | null {
  const block = full.block.isOk() ? full.block : solidity.block;
  return block.isOk() ? new Date(block.value.block_header.raw_data.timestamp) : null;
}

const isFailure = (code: string | undefined) => code !== undefined && code !== 'SUCCESS';

/** `ret[0].contractRet` or `receipt.result` other than SUCCESS, or `ret[0].ret`/`result` FAILED, on either node. */
function failedIn(answers: NodeAnswers): boolean {
  const bodies = [valueOf(answers.full.tx), valueOf(answers.solidity.tx)];
  const infos = [valueOf(answers.full.info), valueOf(answers.solidity.info)];
  return (
    bodies.some((t) => isFailure(t?.ret?.[0]?.contractRet) || t?.ret?.[0]?.ret === 'FAILED') ||
    infos.some((i) => isFailure(i?.receipt?.result) || i?.result === 'FAILED')
  );
}

/**
 * A transaction no tx info places: 0 when the full node answered it has no info (broadcast, in no block
 * yet); else unknown. Failed lookups say nothing, nor does the solidity node's `{}` (it has an info only
 * once the block is solidified).
 */
const unplacedConfirmations = ({ full }: NodeAnswers, tx: NodeTransaction | null, info: NodeTransactionInfo | null) =>
  tx !== null && info === null && full.info.isOk() && full.info.value === null ? 0 : null;

function placementOf(answers: NodeAnswers, tx: NodeTransaction | null, info: NodeTransactionInfo | null): Placement {
  const blockNumber = info?.blockNumber ?? null;
  const heads = [headOf(answers.full.block), headOf(answers.solidity.block)].filter((h): h is number => h !== null);
  const head = heads.length > 0 ? Math.max(...heads) : null;
  const headBelowBlock = head !== null && blockNumber !== null && head < blockNumber;
  const confirmations =
    blockNumber === null
      ? unplacedConfirmations(answers, tx, info)
      : head === null || headBelowBlock
        ? null
        : head - blockNumber + 1;
  return {
    blockNumber,
    head,
    solidifiedHead: headOf(answers.solidity.block),
    headTime: restingHeadTime(answers),
    headBelowBlock,
    confirmations,
    finalized: valueOf(answers.solidity.info) !== null,
  };
}

/** Reads the answers about `hash` (lower-case). Pure. */
export function readAnswers(hash: string, answers: NodeAnswers): Reading {
  const fullTx = valueOf(answers.full.tx);
  const solidTx = valueOf(answers.solidity.tx);
  const tx = fullTx ?? solidTx;
  const info = valueOf(answers.solidity.info) ?? valueOf(answers.full.info);
  const verification = tx ? verifyTransaction(hash, tx) : null;
  return {
    hash,
    answers,
    tx,
    info,
    verification,
    solidityCheck: fullTx && solidTx ? verifyTransaction(hash, solidTx) : null,
    view: verification?.view ?? null,
    failed: failedIn(answers),
    placement: placementOf(answers, tx, info),
  };
}
