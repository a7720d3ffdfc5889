/**
 * Official TRON tokens, pinned by exact contract. Sources: TronLink's "Common token contracts (SSOT)"
 * (packages/core/fixtures/tokens), OneKey firmware `legacy/firmware/tron_tokens.c` @2117096474cc, the SUN
 * issuer's SunSwap token list (sun-protocol's agent toolkit `tokens.py`: name, symbol, decimals, contract),
 * JustLend DAO's market table (each market links its TronScan token page), and the official explorer
 * TronScan (https://tronscan.org/#/token20/<contract>), named per token below. Every contract passes
 * base58check (a test checks it). A token is listed when independent sources agree on its contract and
 * decimals; a registry token is always `official`, never judged a look-alike of another.
 *
 * Left out, because public sources contest them: THb4CqiF… (called ETH in OneKey and SunSwap's list,
 * ETHOLD elsewhere, while another list gives ETH to TRFe3hT5…, which SunSwap calls ETHB), TN3W4H6r…
 * ("BTC" or "BTCT", flagged doubtful by others), THbVQp8k… ("DOGE" or "DOGET"), and tokens only one
 * source names (sTRX, stUSDT, LTC, USD1): a deployment that accepts them adds them with TOKEN_REGISTRY_FILE.
 */

/** When the table was cross-checked: the `token_data_at` of a seeded registry token until the chain confirms it. */
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
  /**
   * What the contract's `symbol()` answers, when the registry lists the token under another symbol
   * (the chain's confirmation of its seeded metadata compares this; see `chain/known-tokens.ts`).
   */
  chainSymbol?: string;
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
  // WBTT, Wrapped BitTorrent, 6 decimals: SunSwap's token list, OneKey, uniblow's TRON list; TronScan
  // token20/TKfjV9RNKJJCqPvBtK8L7Knykh7DNWvnYt. (Some public code mislabels this contract WBTC, USDJ or DAI:
  // three sources that name it agree on WBTT with 6 decimals, and the look-alike rule called it fake.)
  { symbol: 'WBTT', name: 'Wrapped BitTorrent', contract: 'TKfjV9RNKJJCqPvBtK8L7Knykh7DNWvnYt', decimals: 6 },
  // The original SUN, renamed SUNOLD at the 2021 SUN redenomination, 18 decimals: SunSwap's token list
  // (SUNOLD), a TronScan-logo token list and uniblow; on chain it was "SUN", so the look-alike rule called it fake.
  // Its contract still answers symbol() "SUN" (wallet token tables list TKkeib… as symbol SUN, name "SUN Token").
  {
    symbol: 'SUNOLD',
    name: 'SUNOLD',
    contract: 'TKkeiboTkxXKJpbmVFbv4a8ov5rAfRDMf9',
    decimals: 18,
    aliases: ['SUN Token'],
    chainSymbol: 'SUN',
  },
  // BUSD on TRON, 18 decimals: JustLend DAO's legacy jBUSDOLD market (underlying linked to TronScan
  // token20/TMz2SWatiAtZVVcH2ebpsbVtYwUPT9EdjH), uniblow's TRON list ("BUSD Token"), wallet configs (18).
  { symbol: 'BUSD', name: 'BUSD Token', contract: 'TMz2SWatiAtZVVcH2ebpsbVtYwUPT9EdjH', decimals: 18 },
  // WBTC, Wrapped BTC, 8 decimals: OneKey, uniblow's TRON list, SunSwap's token list; TronScan token20.
  { symbol: 'WBTC', name: 'Wrapped BTC', contract: 'TXpw8XeWYeTUd4quDskoUqeQPowRh4jY65', decimals: 8 },
  // NFT, APENFT, 6 decimals: SunSwap's token list, OneKey, uniblow; TronScan token20.
  { symbol: 'NFT', name: 'APENFT', contract: 'TFczxzPhnThNSqr5by8tvxsdCFRRz6cPNq', decimals: 6 },
  // HT, HuobiToken, 18 decimals: SunSwap's token list, OneKey; TronScan token20.
  { symbol: 'HT', name: 'HuobiToken', contract: 'TDyvndWuvX5xTBwHPYJi7J3Yq8pq8yh62h', decimals: 18 },
];
