import type { Disagreement } from './facts.js';
import type { NodeAnswers, NodeRound } from './collect.js';
import type { NodeTransaction, NodeTransactionInfo } from './node-codecs.js';
import { valueOf, type Reading } from './reading.js';
import type { ContractView } from './verify.js';

/**
 * Every contradiction between the answers, in a stable order: a tx info for another hash, the full
 * and solidity nodes disagreeing, a body that does not verify (either node's), a body and an info
 * that contradict each other, and a solidified block the solidity node does not have the tx in.
 */
export function disagreementsOf(reading: Reading): Disagreement[] {
  const { answers } = reading;
  return [
    ...infoIdDisagreements(reading.hash, answers),
    ...compareNodes(answers.full, answers.solidity),
    ...(reading.verification?.disagreements ?? []),
    ...solidityBodyDisagreements(reading),
    ...(reading.tx && reading.info
      ? compareTxAndInfo(reading.tx, reading.info, reading.verification?.view ?? null)
      : []),
    ...unsolidifiedDisagreements(reading),
  ];
}

function infoIdDisagreements(hash: string, answers: NodeAnswers): Disagreement[] {
  return (['full', 'solidity'] as const).flatMap((node): Disagreement[] => {
    const id = valueOf(answers[node].info)?.id.toLowerCase();
    return id !== undefined && id !== hash
      ? [{ code: 'info_id_mismatch', detail: `${node} node's tx info is for ${id}` }]
      : [];
  });
}

/** The solidity node's body, when the full node's is the one used, must verify as well (reported once). */
function solidityBodyDisagreements({ verification, solidityCheck }: Reading): Disagreement[] {
  const seen = (d: Disagreement) => verification?.disagreements.some((p) => p.code === d.code && p.detail === d.detail);
  return (solidityCheck?.disagreements ?? [])
    .filter((d) => !seen(d))
    .map((d) => ({ ...d, detail: `solidity node's transaction: ${d.detail}` }));
}

/** A block at or below the solidified head whose transaction the solidity node does not know. */
function unsolidifiedDisagreements({ answers, placement }: Reading): Disagreement[] {
  const { solidity } = answers;
  const knowsNothing = solidity.tx.isOk() && solidity.info.isOk() && !solidity.tx.value && !solidity.info.value;
  const { blockNumber, solidifiedHead } = placement;
  if (!knowsNothing || blockNumber === null || solidifiedHead === null || solidifiedHead < blockNumber) return [];
  const detail = `block ${blockNumber} is solidified (solidity head ${solidifiedHead}) but the solidity node does not have the transaction`;
  return [{ code: 'nodes_disagree', detail }];
}

/** Contradictions between a transaction body and its info (java-tron writes both from one execution). */
function compareTxAndInfo(tx: NodeTransaction, info: NodeTransactionInfo, view: ContractView | null): Disagreement[] {
  const out: Disagreement[] = [];
  const contractRet = tx.ret?.[0]?.contractRet;
  const receiptResult = info.receipt?.result;
  if (contractRet !== undefined && receiptResult !== undefined && contractRet !== receiptResult) {
    out.push({ code: 'other', detail: `ret[0].contractRet ${contractRet} but receipt.result ${receiptResult}` });
  }
  const called = view?.type === 'TriggerSmartContract' ? view.contractAddress : null;
  if (called && info.contract_address !== undefined && info.contract_address.toLowerCase() !== called) {
    out.push({ code: 'other', detail: 'the tx info names another contract than the call' });
  }
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Contradictions between the full and the solidity node about the same transaction. */
function compareNodes(full: NodeRound, solidity: NodeRound): Disagreement[] {
  const [fullTx, solidTx] = [valueOf(full.tx), valueOf(solidity.tx)];
  const [fullInfo, solidInfo] = [valueOf(full.info), valueOf(solidity.info)];
  // The solidity node serves solidified state only: whatever it has, the full node has too.
  const onlySolidity = [
    full.tx.isOk() && !fullTx && solidTx && 'transaction',
    full.info.isOk() && !fullInfo && solidInfo && 'tx info',
  ].filter(Boolean);
  return [
    ...(onlySolidity.length > 0
      ? [nodesDisagree(`the solidity node has the ${onlySolidity.join(' and ')}, the full node does not`)]
      : []),
    ...(fullTx && solidTx ? compareBodies(fullTx, solidTx) : []),
    ...(fullInfo && solidInfo ? compareInfos(fullInfo, solidInfo) : []),
  ];
}

const nodesDisagree = (detail: string): Disagreement => ({ code: 'nodes_disagree', detail });

function compareBodies(full: NodeTransaction, solid: NodeTransaction): Disagreement[] {
  const differs = [
    full.txID.toLowerCase() !== solid.txID.toLowerCase() && 'txID',
    full.raw_data_hex.toLowerCase() !== solid.raw_data_hex.toLowerCase() && 'raw_data_hex',
    full.ret?.[0]?.contractRet !== solid.ret?.[0]?.contractRet && 'contractRet',
  ].filter(Boolean);
  return differs.length > 0 ? [nodesDisagree(`transaction bodies differ in ${differs.join(', ')}`)] : [];
}

function compareInfos(full: NodeTransactionInfo, solid: NodeTransactionInfo): Disagreement[] {
  const differs = [
    full.blockNumber !== solid.blockNumber && 'blockNumber',
    full.blockTimeStamp !== solid.blockTimeStamp && 'blockTimeStamp',
    full.result !== solid.result && 'result',
    full.receipt?.result !== solid.receipt?.result && 'receipt.result',
    !same(full.contract_address, solid.contract_address) && 'contract_address',
    !same(full.internal_transactions ?? [], solid.internal_transactions ?? []) && 'internal_transactions',
  ].filter(Boolean);
  return [
    ...(differs.length > 0 ? [nodesDisagree(`tx infos differ in ${differs.join(', ')}`)] : []),
    ...(same(full.log ?? [], solid.log ?? [])
      ? []
      : [{ code: 'log_mismatch' as const, detail: 'the full and solidity nodes report different event logs' }]),
  ];
}
