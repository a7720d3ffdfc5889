import { setMaxListeners } from 'node:events';
import { err, ok, type Result } from 'neverthrow';
import { decodeAbiString, decodeDecimals, hexToText } from '../tron/abi.js';
import { base58ToHexAddress } from '../tron/address.js';
import type { NodeCallError, TronNode, TronNodeClient } from './client.js';
import { forCaller } from './for-caller.js';
import { LruCache } from './lru.js';
import type { NodeConstantCall } from './node-codecs.js';
import {
  SeededTokens,
  type KnownToken,
  type KnownTokenDisagreement,
  type KnownTokenStatus,
  type Seed,
} from './seeded-tokens.js';

export type { KnownToken, KnownTokenDisagreement, KnownTokenStatus } from './seeded-tokens.js';

/** A token as the chain describes it: TRC20 by contract (`41…` hex), TRC10 by asset id. */
export type TokenRef = { kind: 'trc20'; contractHex: string } | { kind: 'trc10'; id: string };

export interface TokenMetadata {
  decimals: number | null;
  symbol: string | null;
  name: string | null;
  /**
   * When these values were read from the chain (cached entries keep their first read time; a known
   * token its last confirmation by the chain, or its as-of before the first).
   */
  readAt: Date;
  /**
   * False when a node could not be asked (network, timeout, node error): the nulls then mean
   * "unknown", not "the token does not say". Incomplete answers are not cached.
   */
  complete: boolean;
}

export interface TokenMetadataOptions {
  /** Tokens kept; default 1000. */
  cacheSize?: number;
  /** Upper bound of one shared lookup (all its attempts, both nodes), independent of any one caller; default 5000 ms. */
  lookupBudgetMs?: number;
  /**
   * How long an answer without decimals (a revert, no such contract, a malformed return) is kept, in
   * ms; default 60 000, 0 = not cached. A token can be deployed or fixed later. A token that has
   * decimals but no `symbol()`/`name()` has answered completely and is kept like any other answer.
   */
  negativeCacheMs?: number;
  /**
   * How long an answer with decimals is kept, in ms; default 3 600 000 (1 h). Decimals do not
   * change, but the answer comes from one node: a lying node's value must not outlive the process.
   */
  cacheMs?: number;
  /** Clock of the cache's expiry (ms, monotonic); default `performance.now`. */
  now?: () => number;
  /**
   * Metadata known without asking a node (see `KnownToken`): served to checks without a call (a seed
   * not `bundled` once the chain has confirmed it), never evicted, and confirmed by the chain off the
   * checks' path (`confirmKnown`, see `SeededTokens`).
   */
  known?: readonly KnownToken[];
  /** Hears a known token the chain contradicts (it is then read from the chain like any other). */
  onKnownTokenDisagrees?: (disagreement: KnownTokenDisagreement) => void;
  /** Hears a bug in the known tokens' confirmation (see `SeededTokensOptions.onError`). */
  onConfirmationError?: (error: unknown) => void;
}

/** What one check's read may spend: its signal, a `performance.now()` deadline, and the nodes in the order to ask them. */
export interface MetadataRequest {
  signal: AbortSignal;
  deadline: number;
  nodes: readonly TronNode[];
}

/** One key per token (cache, coalescing, and the provider's per-check grouping). */
export const tokenKey = (token: TokenRef) =>
  token.kind === 'trc20' ? `trc20:${token.contractHex}` : `trc10:${token.id}`;

/** A call's outcome: a definitive answer (possibly "no value") or a failure to ask. */
type Read<T> = { asked: true; value: T | null } | { asked: false };

const unknownMetadata = (): TokenMetadata => ({
  decimals: null,
  symbol: null,
  name: null,
  readAt: new Date(),
  complete: false,
});

/**
 * Token metadata through the node: TRC20 `decimals()`/`symbol()`/`name()` by triggerconstantcontract,
 * TRC10 by getassetissuebyid; the nodes in the order the caller gives (the provider puts a node that
 * failed its first round last), each with its share of the lookup's budget, so one hanging node still
 * leaves time for the other. Answers with decimals are cached in a bounded LRU for `cacheMs`,
 * answers without decimals briefly; concurrent lookups of one token share one read. Known tokens
 * (a registry's, see `KnownToken`) are answered from their seeds without a call (a deployment's own once
 * the chain has confirmed them), and confirmed by the chain in the background every `cacheMs` once
 * `confirmKnown` has started it (see `SeededTokens`).
 */
export class TokenMetadataReader {
  private readonly seeds: SeededTokens;
  private readonly cache: LruCache<string, { metadata: TokenMetadata; expiresAt: number }>;
  private readonly inflight = new Map<string, Promise<TokenMetadata>>();
  private readonly lookupBudgetMs: number;
  private readonly negativeCacheMs: number;
  private readonly cacheMs: number;
  private readonly now: () => number;
  /** Shared reads end at their deadline or at `close()`, never with one caller's signal. */
  private readonly closing = new AbortController();

  constructor(
    private readonly client: TronNodeClient,
    options: TokenMetadataOptions = {},
  ) {
    this.cache = new LruCache(options.cacheSize ?? 1000);
    this.lookupBudgetMs = options.lookupBudgetMs ?? 5000;
    this.negativeCacheMs = options.negativeCacheMs ?? 60_000;
    this.cacheMs = options.cacheMs ?? 3_600_000;
    this.now = options.now ?? (() => performance.now());
    // Every read in flight listens to it (a confirmation round alone has 12 calls): not a leak.
    setMaxListeners(0, this.closing.signal);
    this.seeds = new SeededTokens((options.known ?? []).map(seedOf), {
      confirmEveryMs: this.cacheMs,
      ...(options.onKnownTokenDisagrees ? { onDisagreement: options.onKnownTokenDisagrees } : {}),
      ...(options.onConfirmationError ? { onError: options.onConfirmationError } : {}),
    });
  }

  /** The token's metadata when it is seeded or cached, without asking a node; null otherwise. */
  peek(token: TokenRef): TokenMetadata | null {
    const key = tokenKey(token);
    const seeded = this.seeds.get(key);
    if (seeded) return seeded;
    const cached = this.cache.get(key);
    return cached && cached.expiresAt > this.now() ? cached.metadata : null;
  }

  /**
   * The token's metadata; 'aborted' when the caller's signal fired first; unknown (incomplete)
   * metadata when the caller's deadline passed first (the shared read goes on and is cached).
   */
  async read(token: TokenRef, request: MetadataRequest): Promise<TokenMetadata | 'aborted'> {
    const key = tokenKey(token);
    const ready = this.peek(token);
    if (ready) return ready;
    let shared = this.inflight.get(key);
    if (!shared) {
      // The shared read is bounded by its own budget, not by the first caller's deadline:
      // a caller that gives up must not fail the others waiting on the same read.
      const deadline = performance.now() + this.lookupBudgetMs;
      const read =
        token.kind === 'trc20'
          ? this.readTrc20(token.contractHex, request.nodes, deadline)
          : this.readTrc10(token.id, request.nodes, deadline);
      shared = read
        .then((metadata) => {
          this.remember(key, metadata);
          return metadata;
        })
        .finally(() => this.inflight.delete(key));
      this.inflight.set(key, shared);
    }
    // 'aborted' once the caller's signal fires, unknown metadata once its deadline passes.
    return forCaller(shared, request, () => 'aborted' as const, unknownMetadata);
  }

  /**
   * Confirms the known tokens against the chain now and every `cacheMs` from then on (see
   * `SeededTokens`); settles when this first round has. A reading is cached like a check's, so a token the
   * chain contradicts is answered from that reading. `nodes` gives the nodes to ask at each reading (the
   * provider's: those whose network is established); none makes the reading incomplete, a round to retry.
   */
  confirmKnown(nodes: () => Promise<readonly TronNode[]>): Promise<void> {
    return this.seeds.keepConfirmed(async ({ key, contractHex }) => {
      const reading = await this.readTrc20(contractHex, await nodes(), performance.now() + this.lookupBudgetMs);
      this.remember(key, reading);
      return reading;
    });
  }

  /** The known tokens' confirmation by the chain (see `SeededTokens.status`). */
  knownStatus(): KnownTokenStatus[] {
    return this.seeds.status();
  }

  /** Ends the shared reads still running (their tokens stay uncached) and the known tokens' confirmations. */
  close(): void {
    this.seeds.stop();
    this.closing.abort();
  }

  private remember(key: string, metadata: TokenMetadata): void {
    if (!metadata.complete) return;
    // Amounts need decimals only: a token without name() or symbol() is not re-read for them.
    const ttl = metadata.decimals === null ? this.negativeCacheMs : this.cacheMs;
    if (ttl <= 0) return;
    this.cache.set(key, { metadata, expiresAt: this.now() + ttl });
  }

  /** The first node that answers; each node but the last gets an equal share of the time left, the last all of it. */
  private async fromEitherNode<T>(
    nodes: readonly TronNode[],
    deadline: number,
    ask: (node: TronNode, deadline: number) => PromiseLike<Result<T, NodeCallError>>,
  ): Promise<Read<T>> {
    for (const [i, node] of nodes.entries()) {
      const share = (deadline - performance.now()) / (nodes.length - i);
      const answer = await ask(node, performance.now() + share);
      if (answer.isOk()) return { asked: true, value: answer.value };
    }
    return { asked: false };
  }

  private async readTrc20(contractHex: string, nodes: readonly TronNode[], deadline: number): Promise<TokenMetadata> {
    const call = <T>(selector: string, decode: (hex: string) => T | null) =>
      this.fromEitherNode<T>(nodes, deadline, (node, until) =>
        this.client
          .triggerConstantContract(node, { contractHex41: contractHex, selector }, this.closing.signal, until)
          .andThen((answer): Result<T, NodeCallError> => {
            const code = answer?.result?.code;
            // Only "no such contract" is an answer about the token; other codes (e.g. a CPU timeout) are not.
            if (code !== undefined && code !== 'CONTRACT_VALIDATE_ERROR') {
              return err({ kind: 'node_error', node, endpoint: 'triggerconstantcontract', message: code });
            }
            return ok(constantValue(answer, decode) as T);
          }),
      );
    const [decimals, symbol, name] = await Promise.all([
      call('decimals()', decodeDecimals),
      call('symbol()', decodeAbiString),
      call('name()', decodeAbiString),
    ]);
    return {
      decimals: decimals.asked ? decimals.value : null,
      symbol: symbol.asked ? symbol.value : null,
      name: name.asked ? name.value : null,
      readAt: new Date(),
      complete: decimals.asked && symbol.asked && name.asked,
    };
  }

  private async readTrc10(id: string, nodes: readonly TronNode[], deadline: number): Promise<TokenMetadata> {
    const asset = await this.fromEitherNode(nodes, deadline, (node, until) =>
      this.client.getAssetIssueById(node, id, this.closing.signal, until),
    );
    const found = asset.asked ? asset.value : null;
    return {
      // proto3 omits a zero precision.
      decimals: found ? (found.precision ?? 0) : null,
      symbol: found?.abbr !== undefined ? hexToText(found.abbr) : null,
      name: found?.name !== undefined ? hexToText(found.name) : null,
      readAt: new Date(),
      complete: asset.asked,
    };
  }
}

/** A known token as the reader keys it; its contract is a programmer's constant, so a bad one throws. */
function seedOf(token: KnownToken): Seed {
  const contractHex = base58ToHexAddress(token.contract);
  if (contractHex === null) throw new Error(`known token ${token.symbol}: ${token.contract} is not a TRON address`);
  return { key: tokenKey({ kind: 'trc20', contractHex }), contractHex, token };
}

/** The decoded return value of a constant call; null for a revert, a missing contract or a malformed return. */
function constantValue<T>(answer: NodeConstantCall | null, decode: (hex: string) => T | null): T | null {
  if (!answer || answer.result?.code !== undefined || answer.result?.result !== true) return null;
  if (answer.transaction?.ret?.some((r) => r.ret === 'FAILED')) return null;
  const hex = answer.constant_result?.[0];
  return hex === undefined ? null : decode(hex);
}
