import type { ResultAsync } from 'neverthrow';
import type { AssetType, TransactionCategory, TransactionState } from '../contract/enums.js';
import type { TronNetwork } from './network.js';

/** TRON's finality policy: 19 confirmations together with finalized (solidified) evidence. */
export const REQUIRED_CONFIRMATIONS = 19;

/** One normalized value movement of a transaction. Addresses are base58 `T…`. */
export interface Transfer {
  /** Stable position in the normalized list (0-based). */
  index: number;
  assetType: AssetType;
  /** Where the transfer was read from: the contract itself, a TRC20 Transfer log, or an internal transaction. */
  source: 'contract' | 'log' | 'internal';
  sender: string | null;
  recipient: string | null;
  /** TRC20 contract (the log's emitter), base58; null for TRX and TRC10. */
  tokenContract: string | null;
  /** TRC10 token id ("1002000"); null otherwise. */
  tokenId: string | null;
  /** As read from the token (a symbol does not prove authenticity); null when unreadable. TRX: "TRX". */
  tokenSymbol: string | null;
  /** Token name, for impersonation checks; null when unreadable. */
  tokenName: string | null;
  /** Null when the token's metadata could not be read. TRX: 6. */
  decimals: number | null;
  /** Raw integer units. */
  rawAmount: bigint;
}

/** Why two answers could not both be true (full vs solidity node, node vs its own raw bytes…). */
export interface Disagreement {
  code: 'tx_id_mismatch' | 'raw_data_mismatch' | 'nodes_disagree' | 'info_id_mismatch' | 'log_mismatch' | 'other';
  detail: string;
}

/** What a complete answer needed and could not be read (a node call, a field, a token's metadata…). */
export interface Gap {
  code:
    | 'node_call_failed'
    | 'node_wrong_network'
    | 'node_network_unverified'
    | 'transaction_body_missing'
    | 'receipt_result_missing'
    | 'block_number_missing'
    | 'block_time_missing'
    | 'block_time_ahead'
    | 'head_below_block'
    | 'head_stale'
    | 'solidity_node_racing'
    | 'owner_unreadable'
    | 'asset_id_unreadable'
    | 'log_unreadable'
    | 'internal_transaction_unreadable'
    | 'transfer_event_missing'
    | 'value_not_listed'
    | 'party_unreadable'
    | 'amount_invalid'
    | 'token_lookup_limit'
    | 'token_metadata_unavailable';
  detail: string;
}

/** The chain facts of one transaction, as established (not merely reported) by the provider. */
export interface ChainFacts {
  txHash: string;
  state: TransactionState;
  /** Raw contract type name (`TransferContract`…); `unknown` when not found. */
  transactionType: string;
  category: TransactionCategory;
  /** Owner (signer) of the transaction's contract. */
  owner: string | null;
  blockNumber: number | null;
  /** Block time of the transaction (freshness.transaction_at). */
  blockTime: Date | null;
  confirmations: number | null;
  /** The solidity node has the transaction (finalized evidence). */
  finalized: boolean;
  /** txID = sha256(raw_data_hex) = requested hash and the decoded raw bytes match the JSON. */
  verified: boolean;
  /** Contradictions between sources; non-empty means TX_FACTS_DISAGREE. */
  disagreements: Disagreement[];
  /**
   * Facts a complete answer needs are missing (e.g. one node unreachable, tx info missing,
   * internal transactions unreadable); non-empty means TX_FACTS_PARTIAL.
   */
  missing: Gap[];
  transfers: Transfer[];
  transfersTruncated: boolean;
  /**
   * Index into `transfers` of the transfer the transaction is about when nothing is expected
   * (the contract's own transfer, or the single TRC20 Transfer log); null when there is none.
   */
  primaryTransfer: number | null;
  /**
   * Addresses the transaction involves besides its signer and its transfers' parties (base58): the
   * called contract, a decoded call's target (`to`, `spender`), a resource or vote receiver. Screened
   * for sanctions like every other party; a value-less call still names whom it talks to.
   */
  counterparties: string[];
  /**
   * Oldest time the token metadata in `transfers` was read from the chain; null when no token is
   * involved or no node answered about any (metadata that is not `complete` has no read time).
   */
  tokenDataAt: Date | null;
  /** When the node answers were read. */
  observedAt: Date;
  /**
   * Block time of the head the answer rests on: the full node's, else (when it answered none) the solidity
   * node's. The view the facts used is as of then, so the chain data is as old as the older of this and
   * `observedAt` (freshness). Null when no head was answered.
   */
  headTime: Date | null;
}

export interface ProviderContext {
  /**
   * Aborted at the request deadline: every call made for the check must honor it. The runtime makes
   * it on first read, so a provider that answers without I/O (a cache hit) should not read it.
   */
  readonly signal: AbortSignal;
  /**
   * When the request's deadline falls (epoch ms, the `Date.now()` clock), if the caller knows it:
   * a provider with several rounds budgets them from the time left instead of its own default.
   */
  deadlineAt?: number;
}

export type ChainProviderError =
  /** No node could be asked or none answered usefully: required transaction data unavailable. */
  | { kind: 'unavailable'; detail: string }
  /** The deadline's signal fired. */
  | { kind: 'aborted' };

/** A chain provider's context: the request's, plus who wants to hear early that the parties are known. */
export interface ChainFactsContext extends ProviderContext {
  /**
   * Called at most once, before the provider reads token metadata, with the facts as known without it:
   * every party, the state and the transfers are final there; tokens not yet read have null
   * decimals, symbol and name, and their gaps are not listed yet. Lets a caller start screening the
   * parties while metadata is read. A provider may never call it (then the facts are the first word).
   */
  onPartiesKnown?: (facts: ChainFacts) => void;
}

export interface ChainFactsProvider {
  getTransactionFacts(txHash: string, ctx: ChainFactsContext): ResultAsync<ChainFacts, ChainProviderError>;
  /**
   * The network whose transactions it reads; absent: TRON mainnet. `createSafetyService` refuses risk
   * providers of another network (their token registry names that network's assets).
   */
  readonly network?: TronNetwork;
}

/**
 * Facts that know nothing about the transaction itself (not found, or no node could say): the
 * spec's not_found values for every descriptive field, keeping what was observed about the sources.
 */
export function factsWithoutTransaction(
  known: Pick<ChainFacts, 'txHash' | 'state' | 'verified' | 'disagreements' | 'missing' | 'observedAt' | 'headTime'>,
): ChainFacts {
  return {
    txHash: known.txHash,
    state: known.state,
    transactionType: 'unknown',
    category: 'unknown',
    owner: null,
    blockNumber: null,
    blockTime: null,
    confirmations: null,
    finalized: false,
    verified: known.verified,
    disagreements: known.disagreements,
    missing: known.missing,
    transfers: [],
    transfersTruncated: false,
    primaryTransfer: null,
    counterparties: [],
    tokenDataAt: null,
    observedAt: known.observedAt,
    headTime: known.headTime,
  };
}
