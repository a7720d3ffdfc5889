import { err, errAsync, ok, ResultAsync, type Result } from 'neverthrow';
import type { TransactionState } from '../contract/enums.js';
import { hexToBase58Address } from '../tron/address.js';
import type { ProviderCallObserver } from './call-observer.js';
import { describeNodeError, TronNodeClient, type NodeCallError, type RetryPolicy, type TronNode } from './client.js';
import {
  REQUIRED_CONFIRMATIONS,
  type ChainFacts,
  type ChainFactsProvider,
  type ChainProviderError,
  factsWithoutTransaction,
  type Disagreement,
  type ProviderContext,
  type Transfer,
} from './facts.js';
import type { NodeBlock, NodeTransaction, NodeTransactionInfo } from './node-codecs.js';
import {
  TokenMetadataReader,
  tokenKey,
  type MetadataRequest,
  type TokenMetadata,
  type TokenRef,
} from './token-metadata.js';
import { normalizeTransfers, type RawTransfer } from './transfers.js';
import { verifyTransaction, type ContractView } from './verify.js';

/**
 * Transfers kept per transaction. A payment is one transfer and a DEX swap a handful; batch payouts
 * and airdrops emit hundreds of logs. 100 keeps every payment-shaped transaction whole while bounding
 * the response (~40 KB of transfers) and the token lookups; beyond it `transfersTruncated` is true.
 */
export const DEFAULT_MAX_TRANSFERS = 100;
/** Distinct tokens whose metadata one check reads; further tokens keep `decimals: null` (and a `missing` entry). */
export const DEFAULT_MAX_TOKEN_LOOKUPS = 20;
/**
 * Time one check spends on chain facts (both rounds) unless the caller's deadline is sooner: the
 * spec's 12 s request deadline leaves the rest to the risk lookups that follow.
 */
export const DEFAULT_BUDGET_MS = 8000;

export interface TronChainFactsProviderOptions {
  /** java-tron full node (or TronGrid) base URL; `/wallet/*` is appended. */
  fullNodeUrl: string;
  /** Solidity node base URL (`/walletsolidity/*` is appended); default the full node URL. */
  solidityNodeUrl?: string;
  /** Sent as `TRON-PRO-API-KEY`. */
  apiKey?: string;
  /** Per-call (per-attempt) timeout in ms; default 2500. The request's signal bounds everything. */
  timeoutMs?: number;
  /**
   * Retries on 5xx/429/network errors/timeouts; default 3 attempts, 50 ms base, 500 ms cap, full
   * jitter. A retry starts only when a whole attempt still fits in its round's share of the budget.
   */
  retry?: Partial<RetryPolicy>;
  /**
   * Time one check may spend (ms), default `DEFAULT_BUDGET_MS` (8000), never past `ctx.deadlineAt`:
   * the transaction lookups get the first half, token metadata what is left.
   */
  budgetMs?: number;
  /** Default `DEFAULT_MAX_TRANSFERS` (100). */
  maxTransfers?: number;
  /** Default `DEFAULT_MAX_TOKEN_LOOKUPS` (20). */
  maxTokenLookups?: number;
  /** Tokens kept in the metadata LRU; default 1000. */
  tokenCacheSize?: number;
  /** How long a token answer without decimals (a revert, no such contract) is cached, ms; default 60 000, 0 = never. */
  tokenNegativeCacheMs?: number;
  /** How long a token answer with decimals is cached, ms; default 3 600 000 (1 h), 0 = never (see `TokenMetadataOptions.cacheMs`). */
  tokenCacheMs?: number;
  /** Clock of the token cache's expiry (ms, monotonic); default `performance.now`. */
  tokenCacheClock?: () => number;
  /** Connections per node origin; default 16. */
  connections?: number;
  /** Sees every node call and how it ended (metrics, logs); see `ProviderCallObserver`. */
  onCall?: ProviderCallObserver;
}

export interface TronChainFactsProvider extends ChainFactsProvider {
  /** Closes the connection pools. */
  close(): Promise<void>;
}

const TX_HASH = /^[0-9a-fA-F]{64}$/;
const TRX_METADATA = { tokenSymbol: 'TRX', tokenName: 'TRX', decimals: 6 } as const;

type Answer<A> = Result<A, NodeCallError>;

interface NodeAnswers {
  tx: Answer<NodeTransaction | null>;
  info: Answer<NodeTransactionInfo | null>;
  block: Answer<NodeBlock>;
}

const settle = async <A>(r: ResultAsync<A, NodeCallError>): Promise<Answer<A>> => await r;
const value = <A>(r: Answer<A | null>): A | null => (r.isOk() ? r.value : null);
const isFailure = (code: string | undefined) => code !== undefined && code !== 'SUCCESS';
const headOf = (block: Answer<NodeBlock>): number | null =>
  block.isOk() ? (block.value.block_header.raw_data.number ?? null) : null;

/**
 * Chain facts from java-tron's HTTP API. One round of six parallel calls (transaction, tx info and
 * now-block on the full node and on the solidity node), then one round of token metadata (cached).
 *
 * Rules (see `ChainFacts` for the fields):
 * - Time: the first round gets half of the budget (`budgetMs`, or less when `ctx.deadlineAt` is
 *   sooner), metadata the rest; a node that hangs costs one per-call timeout, not the whole deadline,
 *   and metadata asks the solidity node first when the full node failed the first round.
 * - confirmations = highest node head − tx block + 1 (0 for a broadcast tx not yet in a block); a head
 *   below the tx block gives null confirmations, state `unknown` and a `missing` entry (a lagging or
 *   load-balanced node is not proof of a lie; the solidity node contradicting itself is, see below);
 *   finalized = the solidity node has the tx info (it answers only for solidified blocks).
 * - state: `failed` when any answer says the execution failed (`ret[0].contractRet`, `receipt.result`
 *   not SUCCESS, or `ret[0].ret`/`result` FAILED); `not_found` when both nodes answered `{}` for both lookups;
 *   `unknown` when one of the lookups or the full node's now-block failed, or the answers lack what a
 *   state needs (body, block number, a contract call's receipt result); `confirmed` when finalized and
 *   confirmations ≥ 19; `pending` otherwise. Every failed call is listed in `missing`; token
 *   metadata failures leave `decimals` null and add to `missing` without changing the state.
 * - Disagreements: txID/hash/sha256/raw bytes and a contract count other than 1 (see
 *   `verifyTransaction`; both nodes' bodies are checked), tx info id ≠ hash, full vs solidity answers
 *   that differ (body, block, result, logs, internal transactions), a solidified block height at or
 *   past the tx block while the solidity node does not know the tx. A solidity node with the tx info
 *   but not the body, or with the tx in a block above its own solidified head, is `missing` and state
 *   `unknown` instead: on a load-balanced endpoint (TronGrid) that is backends racing, not a lie.
 * - A tx info in a block without `blockTimeStamp` is `missing` (freshness needs the block time).
 * - counterparties: the accounts the signed parameter names (see `ContractView.named`; none when the
 *   raw bytes did not decode) and those the execution involved without a fungible transfer (see
 *   `Normalized.involved`), base58, deduplicated, without the owner and without the parties of the
 *   listed transfers (those are screened as transfer parties already).
 * - Facts come from the solidity node's info when it has one (final), else the full node's.
 * - Calls use visible=false (java-tron's default): addresses come back as `41…` hex, converted here.
 */
export function createTronChainFactsProvider(options: TronChainFactsProviderOptions): TronChainFactsProvider {
  const client = new TronNodeClient({
    fullNodeUrl: options.fullNodeUrl,
    ...(options.solidityNodeUrl !== undefined ? { solidityNodeUrl: options.solidityNodeUrl } : {}),
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.retry !== undefined ? { retry: options.retry } : {}),
    ...(options.connections !== undefined ? { connections: options.connections } : {}),
    ...(options.onCall !== undefined ? { onCall: options.onCall } : {}),
  });
  const metadata = new TokenMetadataReader(client, {
    ...(options.tokenCacheSize !== undefined ? { cacheSize: options.tokenCacheSize } : {}),
    ...(options.tokenNegativeCacheMs !== undefined ? { negativeCacheMs: options.tokenNegativeCacheMs } : {}),
    ...(options.tokenCacheMs !== undefined ? { cacheMs: options.tokenCacheMs } : {}),
    ...(options.tokenCacheClock !== undefined ? { now: options.tokenCacheClock } : {}),
    lookupBudgetMs: client.timeoutMs * 2,
  });
  const budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
  const maxTransfers = options.maxTransfers ?? DEFAULT_MAX_TRANSFERS;
  const maxTokenLookups = options.maxTokenLookups ?? DEFAULT_MAX_TOKEN_LOOKUPS;

  const ask = async (node: TronNode, hash: string, signal: AbortSignal, deadline: number): Promise<NodeAnswers> => {
    const [tx, info, block] = await Promise.all([
      settle(client.getTransactionById(node, hash, signal, deadline)),
      settle(client.getTransactionInfoById(node, hash, signal, deadline)),
      settle(client.getNowBlock(node, signal, deadline)),
    ]);
    return { tx, info, block };
  };

  const facts = async (hash: string, ctx: ProviderContext): Promise<Result<ChainFacts, ChainProviderError>> => {
    const { signal } = ctx;
    const started = performance.now();
    const callerLeft = ctx.deadlineAt !== undefined ? ctx.deadlineAt - Date.now() : Number.POSITIVE_INFINITY;
    const deadline = started + Math.max(0, Math.min(budgetMs, callerLeft));
    const lookupsDeadline = started + (deadline - started) / 2;
    const [full, solidity] = await Promise.all([
      ask('full', hash, signal, lookupsDeadline),
      ask('solidity', hash, signal, lookupsDeadline),
    ]);
    if (signal.aborted) return err({ kind: 'aborted' });
    const observedAt = new Date();
    const lookups = [full.tx, full.info, solidity.tx, solidity.info];
    if (lookups.every((r) => r.isErr())) {
      const detail = lookups.map((r) => (r.isErr() ? describeNodeError(r.error) : '')).join('; ');
      return err({ kind: 'unavailable', detail });
    }
    const missing = [full.tx, full.info, full.block, solidity.tx, solidity.info, solidity.block].flatMap((r) =>
      r.isErr() ? [describeNodeError(r.error)] : [],
    );
    const disagreements: Disagreement[] = [];

    const fullTx = value(full.tx);
    const tx = fullTx ?? value(solidity.tx);
    const info = value(solidity.info) ?? value(full.info);
    for (const [node, answer] of [
      ['full', full.info],
      ['solidity', solidity.info],
    ] as const) {
      const id = value(answer)?.id.toLowerCase();
      if (id !== undefined && id !== hash) {
        disagreements.push({ code: 'info_id_mismatch', detail: `${node} node's tx info is for ${id}` });
      }
    }
    disagreements.push(...compareNodes(full, solidity));

    if (tx === null && info === null) {
      const state: TransactionState = lookups.every((r) => r.isOk()) ? 'not_found' : 'unknown';
      return ok(factsWithoutTransaction({ txHash: hash, state, verified: false, disagreements, missing, observedAt }));
    }

    const verification = tx ? verifyTransaction(hash, tx) : null;
    if (verification) disagreements.push(...verification.disagreements);
    else missing.push('transaction body (gettransactionbyid answered {} while its tx info exists)');
    // The solidity node's body, when the full node's is the one used, must verify as well.
    const solidTx = value(solidity.tx);
    const solidityCheck = fullTx && solidTx ? verifyTransaction(hash, solidTx) : null;
    for (const d of solidityCheck?.disagreements ?? []) {
      if (!verification?.disagreements.some((p) => p.code === d.code && p.detail === d.detail)) {
        disagreements.push({ ...d, detail: `solidity node's transaction: ${d.detail}` });
      }
    }

    if (tx && info) disagreements.push(...compareTxAndInfo(tx, info, verification?.view ?? null));

    const failed =
      [value(full.tx), value(solidity.tx)].some(
        (t) => isFailure(t?.ret?.[0]?.contractRet) || t?.ret?.[0]?.ret === 'FAILED',
      ) ||
      [value(full.info), value(solidity.info)].some((i) => isFailure(i?.receipt?.result) || i?.result === 'FAILED');
    const view = verification?.view ?? null;
    const isContractCall = view?.type === 'TriggerSmartContract' || view?.type === 'CreateSmartContract';
    // A contract call's success is only established by its receipt result (absent = DEFAULT).
    const receiptMissing = !failed && info !== null && isContractCall && info.receipt?.result === undefined;
    if (receiptMissing) missing.push('receipt.result of the contract call');

    const blockNumber = info?.blockNumber ?? null;
    // proto3 omits 0, and block 0 is genesis: a tx info without a block number cannot place the tx.
    const blockMissing = info !== null && blockNumber === null;
    if (blockMissing) missing.push('blockNumber of the tx info');
    // freshness.transaction_at needs it; java-tron writes it with every block number.
    if (blockNumber !== null && info?.blockTimeStamp === undefined) missing.push('blockTimeStamp of the tx info');
    const heads = [headOf(full.block), headOf(solidity.block)].filter((h): h is number => h !== null);
    const solidifiedHead = headOf(solidity.block);
    const head = heads.length > 0 ? Math.max(...heads) : null;
    const headBelowBlock = head !== null && blockNumber !== null && head < blockNumber;
    if (headBelowBlock) missing.push(`confirmations (the nodes' head ${head} is below the tx block ${blockNumber})`);
    const confirmations =
      blockNumber === null ? (tx && !info ? 0 : null) : head === null || headBelowBlock ? null : head - blockNumber + 1;
    // The solidity node answers a tx info only for a solidified block (reference: finality check a).
    const finalized = value(solidity.info) !== null;
    const solidityKnowsNothing =
      solidity.tx.isOk() && solidity.info.isOk() && !value(solidity.tx) && !value(solidity.info);
    if (solidityKnowsNothing && blockNumber !== null && solidifiedHead !== null && solidifiedHead >= blockNumber) {
      disagreements.push({
        code: 'nodes_disagree',
        detail: `block ${blockNumber} is solidified (solidity head ${solidifiedHead}) but the solidity node does not have the transaction`,
      });
    }
    // The solidity node writes a tx info only with its solidified block's body and below its head: one
    // that seems to contradict itself is, on a load-balanced endpoint, backends racing near solidification.
    const solidInfo = value(solidity.info);
    const solidityRaced = [
      solidInfo &&
        solidity.tx.isOk() &&
        !value(solidity.tx) &&
        'the solidity node has the tx info but answers {} for the transaction',
      solidInfo?.blockNumber !== undefined &&
        solidifiedHead !== null &&
        solidInfo.blockNumber > solidifiedHead &&
        `the solidity node's tx info is in block ${solidInfo.blockNumber}, above its own solidified head ${solidifiedHead}`,
    ].filter((m): m is string => typeof m === 'string');
    missing.push(...solidityRaced);

    if (view && view.owner === null) missing.push('owner of the transaction unreadable');
    const normalized = normalizeTransfers(view, info, failed);
    missing.push(...normalized.unreadable);
    const truncated = normalized.transfers.length > maxTransfers;
    const kept = normalized.transfers.slice(0, maxTransfers);
    // A full node that failed the first round is asked last for metadata.
    const fullFailed = [full.tx, full.info, full.block].some((r) => r.isErr());
    const withMetadata = await attachMetadata(kept, {
      signal,
      deadline,
      nodes: fullFailed ? ['solidity', 'full'] : ['full', 'solidity'],
    });
    if (withMetadata === 'aborted') return err({ kind: 'aborted' });
    missing.push(...withMetadata.missing);

    const callsComplete = [full.tx, full.info, full.block, solidity.tx, solidity.info].every((r) => r.isOk());
    const stateComplete =
      callsComplete && tx !== null && !receiptMissing && !blockMissing && !headBelowBlock && solidityRaced.length === 0;
    const state: TransactionState = failed
      ? 'failed'
      : !stateComplete
        ? 'unknown'
        : finalized && confirmations !== null && confirmations >= REQUIRED_CONFIRMATIONS
          ? 'confirmed'
          : 'pending';

    const owner = view?.owner ? hexToBase58Address(view.owner) : null;
    const parties = new Set([owner, ...withMetadata.transfers.flatMap((t) => [t.sender, t.recipient])]);
    const named = (view?.named ?? []).map(hexToBase58Address).filter((a): a is string => a !== null);
    const counterparties = [...new Set([...named, ...normalized.involved])].filter((a) => !parties.has(a));

    return ok({
      txHash: hash,
      state,
      transactionType: view?.type ?? 'unknown',
      category: normalized.category,
      owner,
      blockNumber,
      blockTime: info?.blockTimeStamp !== undefined ? new Date(info.blockTimeStamp) : null,
      confirmations,
      finalized,
      verified: (verification?.verified ?? false) && (solidityCheck?.verified ?? true),
      disagreements,
      missing,
      transfers: withMetadata.transfers,
      transfersTruncated: truncated,
      primaryTransfer: normalized.primary !== null && normalized.primary < kept.length ? normalized.primary : null,
      counterparties,
      tokenDataAt: withMetadata.tokenDataAt,
      observedAt,
    });
  };

  const attachMetadata = async (
    transfers: RawTransfer[],
    request: MetadataRequest,
  ): Promise<{ transfers: Transfer[]; missing: string[]; tokenDataAt: Date | null } | 'aborted'> => {
    const tokens = new Map<string, TokenRef>();
    for (const t of transfers) if (t.token) tokens.set(tokenKey(t.token), t.token);
    const looked = [...tokens.entries()].slice(0, maxTokenLookups);
    const answers = await Promise.all(
      looked.map(async ([key, ref]) => [key, await metadata.read(ref, request)] as const),
    );
    if (answers.some(([, m]) => m === 'aborted')) return 'aborted';
    const known = new Map(answers as (readonly [string, TokenMetadata])[]);
    const missing: string[] = [];
    for (const [key] of [...tokens.entries()].slice(maxTokenLookups))
      missing.push(`token metadata of ${key} (lookup limit)`);
    for (const [key, m] of known)
      if (!m.complete) missing.push(`token metadata of ${key} (no usable answer from the nodes)`);
    const readTimes = [...known.values()].map((m) => m.readAt.getTime());
    return {
      missing,
      tokenDataAt: readTimes.length > 0 ? new Date(Math.min(...readTimes)) : null,
      transfers: transfers.map(({ token, ...t }, index): Transfer => {
        const m = token ? known.get(tokenKey(token)) : undefined;
        const meta =
          token === null
            ? TRX_METADATA
            : { tokenSymbol: m?.symbol ?? null, tokenName: m?.name ?? null, decimals: m?.decimals ?? null };
        return { index, ...t, ...meta };
      }),
    };
  };

  return {
    getTransactionFacts(txHash: string, ctx: ProviderContext): ResultAsync<ChainFacts, ChainProviderError> {
      if (!TX_HASH.test(txHash)) return errAsync({ kind: 'unavailable', detail: 'not a 64-hex transaction hash' });
      if (ctx.signal.aborted) return errAsync({ kind: 'aborted' });
      return new ResultAsync(facts(txHash.toLowerCase(), ctx));
    },
    close: () => {
      metadata.close();
      return client.close();
    },
  };
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

/** Contradictions between the full and the solidity node about the same transaction. */
function compareNodes(full: NodeAnswers, solidity: NodeAnswers): Disagreement[] {
  const out: Disagreement[] = [];
  const fullTx = value(full.tx);
  const solidTx = value(solidity.tx);
  const fullInfo = value(full.info);
  const solidInfo = value(solidity.info);
  // The solidity node serves solidified state only: whatever it has, the full node has too.
  const onlySolidity = [
    full.tx.isOk() && !fullTx && solidTx && 'transaction',
    full.info.isOk() && !fullInfo && solidInfo && 'tx info',
  ];
  if (onlySolidity.some(Boolean)) {
    out.push({
      code: 'nodes_disagree',
      detail: `the solidity node has the ${onlySolidity.filter(Boolean).join(' and ')}, the full node does not`,
    });
  }
  if (fullTx && solidTx) {
    const differs = [
      fullTx.txID.toLowerCase() !== solidTx.txID.toLowerCase() && 'txID',
      fullTx.raw_data_hex.toLowerCase() !== solidTx.raw_data_hex.toLowerCase() && 'raw_data_hex',
      fullTx.ret?.[0]?.contractRet !== solidTx.ret?.[0]?.contractRet && 'contractRet',
    ].filter(Boolean);
    if (differs.length > 0)
      out.push({ code: 'nodes_disagree', detail: `transaction bodies differ in ${differs.join(', ')}` });
  }
  if (fullInfo && solidInfo) {
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const differs = [
      fullInfo.blockNumber !== solidInfo.blockNumber && 'blockNumber',
      fullInfo.blockTimeStamp !== solidInfo.blockTimeStamp && 'blockTimeStamp',
      fullInfo.result !== solidInfo.result && 'result',
      fullInfo.receipt?.result !== solidInfo.receipt?.result && 'receipt.result',
      !same(fullInfo.contract_address, solidInfo.contract_address) && 'contract_address',
      !same(fullInfo.internal_transactions ?? [], solidInfo.internal_transactions ?? []) && 'internal_transactions',
    ].filter(Boolean);
    if (differs.length > 0) out.push({ code: 'nodes_disagree', detail: `tx infos differ in ${differs.join(', ')}` });
    if (!same(fullInfo.log ?? [], solidInfo.log ?? [])) {
      out.push({ code: 'log_mismatch', detail: 'the full and solidity nodes report different event logs' });
    }
  }
  return out;
}
