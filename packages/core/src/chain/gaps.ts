import { describeNodeError, type NodeCallError } from './client.js';
import type { Gap } from './facts.js';
import { valueOf, type Reading } from './reading.js';

const gap = (code: Gap['code'], detail: string): Gap => ({ code, detail });

/** How far a block's time may run ahead of this host's clock (clock skew) before it is not believed. */
export const BLOCK_TIME_SKEW_MS = 60_000;

/**
 * How far the block time of the head the answer rests on may lag the observation before the node is
 * stalled. A working node's head is at most a block (3 s) old; a minute (20 blocks) also leaves room for
 * this host's clock skew, as `BLOCK_TIME_SKEW_MS` does the other way.
 */
export const HEAD_STALE_MS = 60_000;

/**
 * The view the answer rests on is stale: its head (the full node's, else the solidity node's: see
 * `restingHeadTime`) is older than `HEAD_STALE_MS`, a stalled or lagging node. A stale view can only
 * understate confirmations, but it cannot rule a transaction out (a `not_found` rests on the full node's
 * `{}`: the solidity node's only says "not solidified yet"), and stale evidence is never a clean result.
 */
export function headGaps({ answers, placement: { headTime } }: Reading): Gap[] {
  if (headTime === null) return [];
  const whose = answers.full.block.isOk() ? "the full node's head" : "the solidity node's head";
  return staleHead(whose, headTime.getTime(), answers.observedAt.getTime());
}

const staleHead = (whose: string, time: number, at: number): Gap[] =>
  at - time > HEAD_STALE_MS
    ? [
        gap(
          'head_stale',
          `${whose} is from ${new Date(time).toISOString()}, ${Math.floor((at - time) / 1000)} s before the observation`,
        ),
      ]
    : [];

const nodeGapCode = (error: NodeCallError): Gap['code'] =>
  error.kind !== 'untrusted_node'
    ? 'node_call_failed'
    : error.reason === 'wrong_network'
      ? 'node_wrong_network'
      : 'node_network_unverified';

/**
 * Every node call that got no usable answer (the four lookups and both head blocks), once each: a
 * node whose network is not established is one gap, not one per answer.
 */
export function nodeCallGaps({ answers }: Reading): Gap[] {
  const { full, solidity } = answers;
  const gaps = [full.tx, full.info, full.block, solidity.tx, solidity.info, solidity.block].flatMap((r) =>
    r.isErr() ? [gap(nodeGapCode(r.error), describeNodeError(r.error))] : [],
  );
  return gaps.filter((g, i) => gaps.findIndex((o) => o.code === g.code && o.detail === g.detail) === i);
}

/**
 * What the answers about a found transaction lack: its body, a contract call's receipt result, the
 * block or its time, countable confirmations, a consistent solidity node, a readable owner.
 */
export function transactionGaps(reading: Reading): Gap[] {
  const { tx, info, view, placement } = reading;
  const isContractCall = view?.type === 'TriggerSmartContract' || view?.type === 'CreateSmartContract';
  const { blockNumber, head, headBelowBlock } = placement;
  const gaps = [
    !tx &&
      gap('transaction_body_missing', 'transaction body (gettransactionbyid answered {} while its tx info exists)'),
    // A contract call's success is only established by its receipt result (absent = DEFAULT).
    !reading.failed &&
      info !== null &&
      isContractCall &&
      info.receipt?.result === undefined &&
      gap('receipt_result_missing', 'receipt.result of the contract call'),
    info !== null && blockNumber === null && gap('block_number_missing', 'blockNumber of the tx info'),
    // freshness.transaction_at needs it; java-tron writes it with every block number.
    blockNumber !== null &&
      info?.blockTimeStamp === undefined &&
      gap('block_time_missing', 'blockTimeStamp of the tx info'),
    // No block is from the future: a node that says so is not to be believed (a minute of clock skew allowed).
    info?.blockTimeStamp !== undefined &&
      info.blockTimeStamp > reading.answers.observedAt.getTime() + BLOCK_TIME_SKEW_MS &&
      gap('block_time_ahead', `blockTimeStamp ${info.blockTimeStamp} is after the observation`),
    headBelowBlock &&
      gap('head_below_block', `confirmations (the nodes' head ${head} is below the tx block ${blockNumber})`),
    ...solidityRaceGaps(reading),
    view && view.owner === null && gap('owner_unreadable', 'owner of the transaction unreadable'),
  ];
  return gaps.filter((g): g is Gap => typeof g === 'object' && g !== null);
}

/**
 * The solidity node writes a tx info only with its solidified block's body and below its head: one
 * that seems to contradict itself is, on a load-balanced endpoint (TronGrid), backends racing near
 * solidification. Partial facts, never confirmed, not a lie.
 */
function solidityRaceGaps({ answers, placement }: Reading): (Gap | false)[] {
  const { solidity } = answers;
  const solidInfo = valueOf(solidity.info);
  const { solidifiedHead } = placement;
  const solidBlock = solidInfo?.blockNumber;
  return [
    solidInfo !== null &&
      solidity.tx.isOk() &&
      !solidity.tx.value &&
      gap('solidity_node_racing', 'the solidity node has the tx info but answers {} for the transaction'),
    solidBlock !== undefined &&
      solidifiedHead !== null &&
      solidBlock > solidifiedHead &&
      gap(
        'solidity_node_racing',
        `the solidity node's tx info is in block ${solidBlock}, above its own solidified head ${solidifiedHead}`,
      ),
  ];
}
