import { err, errAsync, ok, ResultAsync, type Result } from 'neverthrow';
import type { ProviderCallObserver } from './call-observer.js';
import { TronNodeClient, type RetryPolicy, type TronNode } from './client.js';
import { assembleFacts, planTokens, type TokenPlan } from './assemble.js';
import { collectAnswers, collectMetadata, type MetadataTable, type NodeAnswers } from './collect.js';
import { deriveFacts } from './derive.js';
import type { ChainFacts, ChainFactsContext, ChainFactsProvider, ChainProviderError } from './facts.js';
import { REGISTRY_KNOWN_TOKENS } from './known-tokens.js';
import {
  establishedNodes,
  NetworkVerifier,
  sameNetwork,
  TRON_MAINNET,
  trustedAnswers,
  type NodeNetworks,
  type TronNetwork,
  type WrongNetwork,
} from './network.js';
import {
  tokenKey,
  TokenMetadataReader,
  type KnownToken,
  type KnownTokenDisagreement,
  type KnownTokenStatus,
  type TokenMetadata,
} from './token-metadata.js';

export { REGISTRY_KNOWN_TOKENS } from './known-tokens.js';
export type { NodeNetwork, NodeNetworks, TronNetwork, WrongNetwork } from './network.js';
export type { KnownToken, KnownTokenDisagreement, KnownTokenStatus } from './token-metadata.js';

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
  /**
   * Sent as `TRON-PRO-API-KEY` to the full node, and to the solidity node only when it is on the full
   * node's origin (TronGrid serves both): a key never goes to another provider's node.
   */
  apiKey?: string;
  /** Sent as `TRON-PRO-API-KEY` to the solidity node (its own provider's key); default as above. */
  solidityApiKey?: string;
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
  /**
   * TRC20 tokens whose metadata is seeded, so a check reads none for them; default the official
   * registry's (`REGISTRY_KNOWN_TOKENS`) on mainnet, none on another `network` (they are mainnet contracts). `warmUp()` has the chain confirm them in the background, then
   * every `tokenCacheMs`; one the chain contradicts is read from the nodes like any other token. `[]`:
   * every token is read from the nodes. A deployment's own registry joins them with
   * `[...REGISTRY_KNOWN_TOKENS, ...knownTokensOf(tokens, asOf)]` (both from `@tron-safety/core/tron`);
   * those seeds serve checks only once the chain has confirmed them (`KnownToken.bundled`), and a bundled
   * token they restate keeps its bundled seed.
   */
  knownTokens?: readonly KnownToken[];
  /** Hears a known token whose chain reading contradicts it (decimals or symbol): an operator's warning. */
  onKnownTokenDisagrees?: (disagreement: KnownTokenDisagreement) => void;
  /**
   * Hears a bug in the known tokens' background confirmation (a read that rejected; the nodes' failures
   * are answers): log it as an error. The token keeps its seed and date; without it, a process warning.
   */
  onConfirmationError?: (error: unknown) => void;
  /** Sees every node call and how it ended (metrics, logs); see `ProviderCallObserver`. */
  onCall?: ProviderCallObserver;
  /**
   * The network the nodes must serve; default `TRON_MAINNET` (the spec's `tron`; it and `TRON_NILE`,
   * `TRON_SHASTA` are in `@tron-safety/core/tron`). Each node's block 0 must be this genesis before any
   * answer of that node is used (see `network.ts`); an embedder running its own test chain names that
   * chain's genesis here.
   */
  network?: TronNetwork;
  /**
   * Hears, at every check, a node that serves another network (its answers were not used, the facts
   * are partial or unavailable): log it as an error, it is a configuration mistake. Without it, a
   * process warning.
   */
  onWrongNetwork?: (mismatch: WrongNetwork) => void;
}

export interface TronChainFactsProvider extends ChainFactsProvider {
  /**
   * Opens the connections a check's first round uses (one round of lookups for a hash no transaction
   * has), so the first check does not wait for handshakes, and starts confirming the known tokens
   * against the chain (now, then every `tokenCacheMs`, in the background until `close()`). Settles when
   * both the round and the first confirmation have; `signal` bounds the round. Best effort: failures are
   * ignored (an unconfirmed token keeps its as-of date, and its confirmation is tried again).
   */
  warmUp(signal?: AbortSignal): Promise<void>;
  /**
   * Which network each node serves, as far as it is established when `signal` fires (without one,
   * when the verification ends: one or two calls per node, bounded by twice `timeoutMs`). A host's
   * start-up reads it; checks establish it themselves (once per node for the provider's life).
   */
  verifyNetwork(signal?: AbortSignal): Promise<NodeNetworks>;
  /** What an operator needs to know of the provider's data, read without a call (see `ChainStatus`). */
  status(): ChainStatus;
  /** Closes the connection pools. */
  close(): Promise<void>;
}

/** The chain provider's data as it stands, for readiness and metrics: no call is made. */
export interface ChainStatus {
  /** The network the nodes must serve (`TronNetwork.name`). */
  network: string;
  /**
   * Each node's network as known now: a final verdict, else `unverified` (not asked yet, or the last
   * verification could not decide; checks ask again).
   */
  nodes: NodeNetworks;
  /** The known tokens' confirmation by the chain. */
  knownTokens: KnownTokenStatus[];
}

const TX_HASH = /^[0-9a-fA-F]{64}$/;
const NO_TRANSACTION = '00'.repeat(32);

/** What one provider's checks share: the client, the nodes' networks, the metadata reader and the limits. */
interface Parts {
  client: TronNodeClient;
  networks: NetworkVerifier;
  onWrongNetwork: (mismatch: WrongNetwork) => void;
  metadata: TokenMetadataReader;
  budgetMs: number;
  maxTransfers: number;
  maxTokenLookups: number;
}

/**
 * Chain facts from java-tron's HTTP API: collect → derive → assemble. One round of six parallel calls
 * (transaction, tx info and now-block on the full node and on the solidity node), the pure steps
 * that judge the answers (`derive.ts`: disagreements, gaps, the state table, transfers by source),
 * then token metadata (seeded known tokens and cached answers need no call) and the assembled facts.
 *
 * Rules (see `ChainFacts` for the fields):
 * - Time: the first round gets half of the budget (`budgetMs`, or less when `ctx.deadlineAt` is
 *   sooner), metadata the rest; a node that hangs costs one per-call timeout, not the whole deadline,
 *   and metadata asks the solidity node first when the full node failed the first round.
 * - confirmations = highest node head − tx block + 1 (0 for a broadcast tx not yet in a block); a head
 *   below the tx block gives null confirmations, state `unknown` and a `missing` entry (a lagging or
 *   load-balanced node is not proof of a lie; the solidity node contradicting itself is, see below);
 *   finalized = the solidity node has the tx info (it answers only for solidified blocks).
 * - state (`state.ts`): `failed` when any answer says the execution failed (`ret[0].contractRet`,
 *   `receipt.result` not SUCCESS, or `ret[0].ret`/`result` FAILED); `not_found` when both nodes answered
 *   `{}` for both lookups; `unknown` when one of the lookups or the full node's now-block failed, or the
 *   answers lack what a state needs (body, block number, a contract call's receipt result); `confirmed`
 *   when finalized and confirmations ≥ 19; `pending` otherwise. Every failed call is listed in
 *   `missing`; token metadata failures leave `decimals` null and add to `missing` without changing the state.
 * - Disagreements (`disagreements.ts`): txID/hash/sha256/raw bytes and a contract count other than 1
 *   (see `verifyTransaction`; both nodes' bodies are checked), tx info id ≠ hash, full vs solidity
 *   answers that differ (body, block, result, logs, internal transactions), a solidified block height
 *   at or past the tx block while the solidity node does not know the tx. A solidity node with the tx
 *   info but not the body, or with the tx in a block above its own solidified head, is `missing` and
 *   state `unknown` instead: on a load-balanced endpoint (TronGrid) that is backends racing, not a lie.
 * - A tx info in a block without `blockTimeStamp` is `missing` (freshness needs the block time).
 * - counterparties: the accounts the signed parameter names (see `ContractView.named`; none when the
 *   raw bytes did not decode) and those the execution involved without a fungible transfer (see
 *   `Normalized.involved`), base58, deduplicated, without the owner and without the parties of the
 *   listed transfers (those are screened as transfer parties already).
 * - Facts come from the solidity node's info when it has one (final), else the full node's.
 * - Calls use visible=false (java-tron's default): addresses come back as `41…` hex, converted here.
 * - `ctx.onPartiesKnown` hears the facts before metadata is read, when there is metadata to read.
 */
export function createTronChainFactsProvider(options: TronChainFactsProviderOptions): TronChainFactsProvider {
  const client = new TronNodeClient({
    fullNodeUrl: options.fullNodeUrl,
    ...(options.solidityNodeUrl !== undefined ? { solidityNodeUrl: options.solidityNodeUrl } : {}),
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.solidityApiKey !== undefined ? { solidityApiKey: options.solidityApiKey } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.retry !== undefined ? { retry: options.retry } : {}),
    ...(options.connections !== undefined ? { connections: options.connections } : {}),
    ...(options.onCall !== undefined ? { onCall: options.onCall } : {}),
  });
  const network = options.network ?? TRON_MAINNET;
  const metadata = new TokenMetadataReader(client, {
    ...(options.tokenCacheSize !== undefined ? { cacheSize: options.tokenCacheSize } : {}),
    ...(options.tokenNegativeCacheMs !== undefined ? { negativeCacheMs: options.tokenNegativeCacheMs } : {}),
    ...(options.tokenCacheMs !== undefined ? { cacheMs: options.tokenCacheMs } : {}),
    ...(options.tokenCacheClock !== undefined ? { now: options.tokenCacheClock } : {}),
    known: options.knownTokens ?? (sameNetwork(network, TRON_MAINNET) ? REGISTRY_KNOWN_TOKENS : []),
    ...(options.onKnownTokenDisagrees ? { onKnownTokenDisagrees: options.onKnownTokenDisagrees } : {}),
    ...(options.onConfirmationError ? { onConfirmationError: options.onConfirmationError } : {}),
    lookupBudgetMs: client.timeoutMs * 2,
  });
  const networks = new NetworkVerifier(client, {
    expected: network,
    budgetMs: client.timeoutMs * 2,
  });
  const parts: Parts = {
    client,
    networks,
    onWrongNetwork: options.onWrongNetwork ?? ((m) => process.emitWarning(m.detail, { code: 'TRON_WRONG_NETWORK' })),
    metadata,
    budgetMs: options.budgetMs ?? DEFAULT_BUDGET_MS,
    maxTransfers: options.maxTransfers ?? DEFAULT_MAX_TRANSFERS,
    maxTokenLookups: options.maxTokenLookups ?? DEFAULT_MAX_TOKEN_LOOKUPS,
  };
  return {
    network,
    getTransactionFacts(txHash: string, ctx: ChainFactsContext): ResultAsync<ChainFacts, ChainProviderError> {
      if (!TX_HASH.test(txHash)) return errAsync({ kind: 'unavailable', detail: 'not a 64-hex transaction hash' });
      if (ctx.signal.aborted) return errAsync({ kind: 'aborted' });
      return new ResultAsync(transactionFacts(parts, txHash.toLowerCase(), ctx));
    },
    warmUp: async (signal = AbortSignal.timeout(client.timeoutMs)) => {
      await Promise.all([
        collectAnswers(client, NO_TRANSACTION, { signal, deadline: Number.POSITIVE_INFINITY }),
        networks.verified(),
        // Known tokens are confirmed only by nodes that serve the expected network.
        metadata.confirmKnown(async () => establishedNodes(await networks.verified())),
      ]);
    },
    verifyNetwork: (signal) =>
      signal ? networks.networks({ signal, deadline: Number.POSITIVE_INFINITY }) : networks.verified(),
    status: () => ({ network: network.name, nodes: networks.known(), knownTokens: metadata.knownStatus() }),
    close: () => {
      networks.close();
      metadata.close();
      return client.close();
    },
  };
}

/** collect → derive → (metadata) → assemble. */
async function transactionFacts(
  parts: Parts,
  hash: string,
  ctx: ChainFactsContext,
): Promise<Result<ChainFacts, ChainProviderError>> {
  const { signal } = ctx;
  const started = performance.now();
  const callerLeft = ctx.deadlineAt !== undefined ? ctx.deadlineAt - Date.now() : Number.POSITIVE_INFINITY;
  const deadline = started + Math.max(0, Math.min(parts.budgetMs, callerLeft));
  const round = { signal, deadline: started + (deadline - started) / 2 };
  // The nodes' networks are verified once, beside the first check's lookups; later checks find them decided.
  const [read, networks] = await Promise.all([
    collectAnswers(parts.client, hash, round),
    parts.networks.decidedBoth() ?? parts.networks.networks(round),
  ]);
  if (signal.aborted) return err({ kind: 'aborted' });
  reportWrongNetworks(parts, networks);
  const answers = trustedAnswers(read, networks);
  const derived = deriveFacts(hash, answers, parts.maxTransfers);
  if (derived.isErr()) return err(derived.error);
  const plan = planTokens(derived.value.transfers, parts.maxTokenLookups);
  const ready = knownMetadata(parts.metadata, plan);
  if (ready.size < plan.looked.length) ctx.onPartiesKnown?.(assembleFacts(derived.value, plan, ready));
  const nodes = establishedNodes(networks, metadataNodes(answers));
  const table = await collectMetadata(parts.metadata, plan.looked, { signal, deadline, nodes });
  if (table === 'aborted') return err({ kind: 'aborted' });
  return ok(assembleFacts(derived.value, plan, table));
}

/** Every check a wrong node's answers were dropped from says so: the operator must fix the node's URL. */
function reportWrongNetworks({ onWrongNetwork }: Parts, networks: NodeNetworks): void {
  for (const network of [networks.full, networks.solidity]) {
    if (network.status === 'wrong_network') onWrongNetwork(network.mismatch);
  }
}

/** The planned tokens' metadata that needs no call (known or cached). */
function knownMetadata(reader: TokenMetadataReader, plan: TokenPlan): MetadataTable {
  const known = plan.looked.flatMap((ref) => {
    const m = reader.peek(ref);
    return m ? [[tokenKey(ref), m] as [string, TokenMetadata]] : [];
  });
  return new Map(known);
}

/** A full node that failed the first round is asked last for metadata. */
function metadataNodes({ full }: NodeAnswers): TronNode[] {
  return [full.tx, full.info, full.block].some((r) => r.isErr()) ? ['solidity', 'full'] : ['full', 'solidity'];
}
