import { TRX_DECIMALS } from '../tron/amount.js';
import type { ChainFacts, Gap, Transfer } from './facts.js';
import type { MetadataTable } from './collect.js';
import type { DerivedFacts } from './derive.js';
import { tokenKey, type TokenRef } from './token-metadata.js';
import type { RawTransfer } from './transfers/index.js';

const TRX_METADATA = { tokenSymbol: 'TRX', tokenName: 'TRX', decimals: TRX_DECIMALS } as const;

/** The tokens whose metadata one check reads (distinct, in transfer order, at most the lookup limit), and the rest by key. */
export interface TokenPlan {
  looked: TokenRef[];
  overLimit: string[];
}

export function planTokens(transfers: readonly RawTransfer[], maxLookups: number): TokenPlan {
  const tokens = new Map<string, TokenRef>();
  for (const t of transfers) if (t.token) tokens.set(tokenKey(t.token), t.token);
  const entries = [...tokens.entries()];
  return {
    looked: entries.slice(0, maxLookups).map(([, ref]) => ref),
    overLimit: entries.slice(maxLookups).map(([key]) => key),
  };
}

/** Tokens the limit left unread, then tokens no node gave a usable answer about. */
function metadataGaps(plan: TokenPlan, table: MetadataTable): Gap[] {
  return [
    ...plan.overLimit.map((key): Gap => ({
      code: 'token_lookup_limit',
      detail: `token metadata of ${key} (lookup limit)`,
    })),
    ...[...table]
      .filter(([, m]) => !m.complete)
      .map(([key]): Gap => ({
        code: 'token_metadata_unavailable',
        detail: `token metadata of ${key} (no usable answer from the nodes)`,
      })),
  ];
}

/**
 * The chain facts: the derived facts with each transfer's position and its token's symbol, name and
 * decimals (null where the table has none), and the metadata's gaps and read time. Pure.
 */
export function assembleFacts(derived: DerivedFacts, plan: TokenPlan, table: MetadataTable): ChainFacts {
  // Only an answer dates the token data: incomplete metadata was read from no node.
  const readTimes = [...table.values()].filter((m) => m.complete).map((m) => m.readAt.getTime());
  return {
    ...derived,
    missing: [...derived.missing, ...metadataGaps(plan, table)],
    transfers: derived.transfers.map(({ token, ...t }, index): Transfer => {
      const m = token ? table.get(tokenKey(token)) : undefined;
      const meta =
        token === null
          ? TRX_METADATA
          : { tokenSymbol: m?.symbol ?? null, tokenName: m?.name ?? null, decimals: m?.decimals ?? null };
      return { index, ...t, ...meta };
    }),
    tokenDataAt: readTimes.length > 0 ? new Date(Math.min(...readTimes)) : null,
  };
}
