import { OFFICIAL_TOKENS_AS_OF, OFFICIAL_TRON_TOKENS } from '../risk/data/official-tokens.js';
import type { KnownToken } from './token-metadata.js';

/**
 * The official registry's TRC20 tokens as known metadata: a cold check of USDT needs no metadata call.
 * The registry's table is data both halves of a check read (the risk side pins these decimals and
 * holds any chain reading against them), so the chain side takes it as it is.
 */
export const REGISTRY_KNOWN_TOKENS: readonly KnownToken[] = OFFICIAL_TRON_TOKENS.flatMap((token) =>
  token.contract === undefined
    ? []
    : [
        {
          contract: token.contract,
          symbol: token.symbol,
          name: token.name,
          decimals: token.decimals,
          asOf: new Date(OFFICIAL_TOKENS_AS_OF),
        },
      ],
);
