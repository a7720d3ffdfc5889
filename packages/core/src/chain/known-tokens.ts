import { OFFICIAL_TOKENS_AS_OF, OFFICIAL_TRON_TOKENS, type OfficialTokenData } from '../risk/data/official-tokens.js';
import type { KnownToken } from './seeded-tokens.js';

/**
 * The official registry's TRC20 tokens as seeded metadata: a cold check of USDT needs no metadata call.
 * The seeds are what the registry pins (decimals, and the symbol the contract answers), as of the
 * registry's date until the chain confirms them (`SeededTokens`); a token the chain contradicts is read
 * from the nodes again, and the risk side holds that reading against the registry's decimals.
 */
export const REGISTRY_KNOWN_TOKENS: readonly KnownToken[] = knownTokensOf(
  OFFICIAL_TRON_TOKENS,
  new Date(OFFICIAL_TOKENS_AS_OF),
).map((token) => ({ ...token, bundled: true }));

/**
 * A registry's TRC20 tokens (a deployment's own, e.g. `loadTokenRegistryFile`'s) as seeded metadata,
 * established as of `asOf`: for `knownTokens`, beside `REGISTRY_KNOWN_TOKENS`. They are served only once
 * the chain has confirmed them (see `KnownToken.bundled`), and a bundled token they restate keeps its own
 * seed. Entries without a contract (TRX, TRC10) are left out.
 */
export function knownTokensOf(tokens: readonly OfficialTokenData[], asOf: Date): KnownToken[] {
  return tokens.flatMap((token) =>
    token.contract === undefined
      ? []
      : [
          {
            contract: token.contract,
            symbol: token.chainSymbol ?? token.symbol,
            name: token.name,
            decimals: token.decimals,
            asOf,
          },
        ],
  );
}
