import { decodeAbiString, decodeDecimals, hexToText } from '../tron/abi.js';
import type { NodeCallError, TronNode, TronNodeClient } from './client.js';
import { LruCache } from './lru.js';
import type { NodeConstantCall } from './node-codecs.js';

/** A token as the chain describes it: TRC20 by contract (`41…` hex), TRC10 by asset id. */
export type TokenRef = { kind: 'trc20'; contractHex: string } | { kind: 'trc10'; id: string };

export interface TokenMetadata {
  decimals: number | null;
  symbol: string | null;
  name: string | null;
  /** When these values were read from the chain (cached entries keep their first read time). */
  readAt: Date;
  /**
   * False when a node could not be asked (network, timeout, node error): the nulls then mean
   * "unknown", not "the token does not say". Incomplete answers are not cached.
   */
  complete: boolean;
}

export interface TokenMetadataOptions {
  /** Tokens kept (decimals and symbols do not change); default 1000. */
  cacheSize?: number;
  /** Upper bound of one shared lookup (all its attempts), independent of any one caller; default 5000 ms. */
  lookupBudgetMs?: number;
}

/** One key per token (cache, coalescing, and the provider's per-check grouping). */
export const tokenKey = (token: TokenRef) => (token.kind === 'trc20' ? `trc20:${token.contractHex}` : `trc10:${token.id}`);

/** A call's outcome: a definitive answer (possibly "no value") or a failure to ask. */
type Read<T> = { asked: true; value: T | null } | { asked: false };

const untilAborted = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T | 'aborted'> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve('aborted');
    const onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then((value) => {
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    });
  });

/**
 * Token metadata through the node: TRC20 `decimals()`/`symbol()`/`name()` by triggerconstantcontract,
 * TRC10 by getassetissuebyid; full node first, solidity node when the full node cannot answer.
 * Complete answers are cached in a bounded LRU; concurrent lookups of one token share one read.
 */
export class TokenMetadataReader {
  private readonly cache: LruCache<string, TokenMetadata>;
  private readonly inflight = new Map<string, Promise<TokenMetadata>>();
  private readonly lookupBudgetMs: number;

  constructor(
    private readonly client: TronNodeClient,
    options: TokenMetadataOptions = {},
  ) {
    this.cache = new LruCache(options.cacheSize ?? 1000);
    this.lookupBudgetMs = options.lookupBudgetMs ?? 5000;
  }

  /** The token's metadata, or 'aborted' when the caller's signal fired first. */
  async read(token: TokenRef, signal: AbortSignal): Promise<TokenMetadata | 'aborted'> {
    const key = tokenKey(token);
    const cached = this.cache.get(key);
    if (cached) return cached;
    let shared = this.inflight.get(key);
    if (!shared) {
      // The shared read is bounded by its own budget, not by the first caller's deadline:
      // a caller that gives up must not fail the others waiting on the same read.
      const budget = AbortSignal.timeout(this.lookupBudgetMs);
      shared = (token.kind === 'trc20' ? this.readTrc20(token.contractHex, budget) : this.readTrc10(token.id, budget)).then(
        (metadata) => {
          if (metadata.complete) this.cache.set(key, metadata);
          this.inflight.delete(key);
          return metadata;
        },
      );
      this.inflight.set(key, shared);
    }
    return untilAborted(shared, signal);
  }

  private async fromEitherNode<T>(
    ask: (node: TronNode) => Promise<{ ok: true; value: T } | { ok: false; error: NodeCallError }>,
  ): Promise<Read<T>> {
    for (const node of ['full', 'solidity'] as const) {
      const answer = await ask(node);
      if (answer.ok) return { asked: true, value: answer.value };
      if (answer.error.kind === 'aborted') break;
    }
    return { asked: false };
  }

  private async readTrc20(contractHex: string, signal: AbortSignal): Promise<TokenMetadata> {
    const call = <T>(selector: string, decode: (hex: string) => T | null) =>
      this.fromEitherNode<T>(async (node) => {
        const answer = await this.client.triggerConstantContract(node, contractHex, selector, signal);
        if (answer.isErr()) return { ok: false, error: answer.error };
        const code = answer.value?.result?.code;
        // Only "no such contract" is an answer about the token; other codes (e.g. a CPU timeout) are not.
        if (code !== undefined && code !== 'CONTRACT_VALIDATE_ERROR') {
          return { ok: false, error: { kind: 'node_error', node, endpoint: 'triggerconstantcontract', message: code } };
        }
        return { ok: true, value: constantValue(answer.value, decode) as T };
      });
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

  private async readTrc10(id: string, signal: AbortSignal): Promise<TokenMetadata> {
    const asset = await this.fromEitherNode(async (node) => {
      const answer = await this.client.getAssetIssueById(node, id, signal);
      return answer.isOk() ? { ok: true, value: answer.value } : { ok: false, error: answer.error };
    });
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

/** The decoded return value of a constant call; null for a revert, a missing contract or a malformed return. */
function constantValue<T>(answer: NodeConstantCall | null, decode: (hex: string) => T | null): T | null {
  if (!answer || answer.result?.code !== undefined || answer.result?.result !== true) return null;
  if (answer.transaction?.ret?.some((r) => r.ret === 'FAILED')) return null;
  const hex = answer.constant_result?.[0];
  return hex === undefined ? null : decode(hex);
}
