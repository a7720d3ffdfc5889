/**
 * Official TRON tokens, pinned by exact contract. Source: the cross-checked table of
 * `shared/reference/risk-data.md` §3 (TronLink "Common token contracts (SSOT)", OneKey firmware
 * `tron_tokens.c`, Trust Wallet and JustLend configs); every contract passes base58check.
 * OneKey's single-source extras (WBTT, WBTC, ETH, HT, DOGE, NFT) are left to configuration: public code
 * labels WBTT's contract TKfjV9RN… variously WBTT, WBTC, USDJ or DAI, with 6 or 18 decimals.
 */

/** When the table was cross-checked (feeds `token_data_at` for registry verdicts). */
export const OFFICIAL_TOKENS_AS_OF = '2026-11-21T00:00:00Z';

export interface OfficialTokenData {
  symbol: string;
  name: string;
  /** TRC20 contract (base58); absent for native TRX. */
  contract?: string;
  /** TRC10 token id. */
  tokenId?: string;
  decimals: number;
  /** Other names the token is known by (also protected against imitation). */
  aliases?: readonly string[];
}

export const OFFICIAL_TRON_TOKENS: readonly OfficialTokenData[] = [
  { symbol: 'TRX', name: 'TRON', decimals: 6, aliases: ['Tronix'] },
  {
    symbol: 'USDT',
    name: 'Tether USD',
    contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    decimals: 6,
    aliases: ['Tether'],
  },
  { symbol: 'USDC', name: 'USD Coin', contract: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', decimals: 6 },
  { symbol: 'USDD', name: 'Decentralized USD', contract: 'TXDk8mbtRbXeYuMNS83CfKPaYYT8XWv9Hz', decimals: 18 },
  // The older USDD contract: official-legacy; 18 decimals per wallet code (not independently verified).
  { symbol: 'USDD', name: 'Decentralized USD', contract: 'TPYmHEhy5n8TCEfYGqW2rPxsghSfzghPDn', decimals: 18 },
  { symbol: 'WTRX', name: 'Wrapped TRX', contract: 'TNUC9Qb1rRpS5CbWLmNMxXBjyFoydXjWFR', decimals: 6 },
  { symbol: 'BTT', name: 'BitTorrent', contract: 'TAFjULxiVgT4qWk6UZwjqwZXTSaGaqnVp4', decimals: 18 },
  // The original BTT, TRC10 id 1002000 (on chain: "BTT" / "BitTorrent"; renamed BTTOLD after the 2021
  // redenomination): in Trust Wallet's TRON allowlist (packages/core/fixtures/tokens) and its assets entry
  // blockchains/tron/assets/1002000/info.json (type TRC10, name BitTorrent, decimals 6, trustwallet/assets@6b3fc0db).
  { symbol: 'BTT', name: 'BitTorrent', tokenId: '1002000', decimals: 6, aliases: ['BitTorrent Old'] },
  { symbol: 'JST', name: 'JUST', contract: 'TCFLL5dx5ZJdKnWuesXxi1VPwjLVmWZZy9', decimals: 18 },
  { symbol: 'SUN', name: 'SUN', contract: 'TSSMHYeV2uE9qYH95DqyoCuNCzEL1NvU3S', decimals: 18 },
  { symbol: 'WIN', name: 'WINkLink', contract: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', decimals: 6 },
  { symbol: 'TUSD', name: 'TrueUSD', contract: 'TUpMhErZL2fhh4sVNULAbNKLokS4GjC1F4', decimals: 18 },
  { symbol: 'USDJ', name: 'JUST Stablecoin', contract: 'TMwFHYXLJaRUPeW6421aqXL4ZEzPRFGkGT', decimals: 18 },
];
