import { readFileSync } from 'node:fs';
import { decode } from '@tron-safety/codec';
import * as t from 'io-ts';
import { err, ok, type Result } from 'neverthrow';
import type { TokenAuthenticity } from '../contract/enums.js';
import { repeatedKey } from '../repeated-key.js';
import { isTronAddress } from '../tron/address.js';
import { OFFICIAL_TRON_TOKENS, type OfficialTokenData } from './data/official-tokens.js';
import { impersonationRule, onlyTags, type Mark } from './impersonation.js';
import type { AssetRef, TokenAuthenticityAnswer, TokenAuthenticityProvider, TokenRef } from './signals.js';

export type { OfficialTokenData } from './data/official-tokens.js';

export interface OfficialToken {
  symbol: string;
  name: string;
  asset: AssetRef;
  decimals: number;
  aliases: readonly string[];
  /** What the contract's `symbol()` answers (`OfficialTokenData.chainSymbol`, else `symbol`). */
  chainSymbol: string;
  /**
   * True for the release's own tokens. Any other (a deployment's: configuration, TOKEN_REGISTRY_FILE) is
   * official only while the chain names it as declared (`createTokenAuthenticityProvider`).
   */
  bundled: boolean;
}

export interface TokenRegistry {
  tokens: readonly OfficialToken[];
  /** The official token at exactly this asset, or null. */
  find(asset: AssetRef): OfficialToken | null;
  /** The official token whose symbol or name `text` imitates, or null. */
  imitated(text: string | null): OfficialToken | null;
}

const assetKey = (asset: AssetRef): string =>
  asset.kind === 'trx' ? 'trx' : asset.kind === 'trc10' ? `trc10:${asset.tokenId}` : `trc20:${asset.contract}`;

function toOfficial(data: OfficialTokenData, bundled: boolean): Result<OfficialToken, string> {
  const what = `token ${JSON.stringify(data.symbol)}`;
  if (!Number.isSafeInteger(data.decimals) || data.decimals < 0 || data.decimals > 77) {
    return err(`${what}: decimals must be an integer from 0 to 77`);
  }
  if (data.contract !== undefined && data.tokenId !== undefined)
    return err(`${what}: give a contract or a tokenId, not both`);
  if (data.contract !== undefined && !isTronAddress(data.contract)) {
    return err(`${what}: contract ${JSON.stringify(data.contract)} is not a valid TRON address`);
  }
  if (data.tokenId !== undefined && !/^[1-9][0-9]{0,18}$/.test(data.tokenId)) {
    return err(`${what}: tokenId ${JSON.stringify(data.tokenId)} is not a TRC10 id`);
  }
  if (data.contract === undefined && data.tokenId === undefined && data.symbol !== 'TRX') {
    return err(`${what}: a contract or a tokenId is required (only TRX is native)`);
  }
  const asset: AssetRef =
    data.contract !== undefined
      ? { kind: 'trc20', contract: data.contract }
      : data.tokenId !== undefined
        ? { kind: 'trc10', tokenId: data.tokenId }
        : { kind: 'trx' };
  const { symbol, name, decimals } = data;
  const chainSymbol = data.chainSymbol ?? symbol;
  return ok({ symbol, name, asset, decimals, aliases: data.aliases ?? [], chainSymbol, bundled });
}

/** How a registry's extra tokens are named in its messages. */
export interface ExtraTokenNames {
  /** The i-th extra token: `entry 1`. */
  entry(i: number): string;
  /** The i-th, as a later one contradicting it refers to it: `entry 0 of this file`. */
  earlier(i: number): string;
}

const BUNDLED = 'the bundled registry';
const EXTRA_TOKENS: ExtraTokenNames = { entry: (i) => `extra token ${i}`, earlier: (i) => `extra token ${i}` };
const FILE_ENTRIES: ExtraTokenNames = { entry: (i) => `entry ${i}`, earlier: (i) => `entry ${i} of this file` };

const assetText = (asset: AssetRef): string =>
  asset.kind === 'trx' ? 'native TRX' : asset.kind === 'trc10' ? `TRC10 ${asset.tokenId}` : asset.contract;

/** Why `later` contradicts the first declaration of its asset (`where` names it), or null when it restates it. */
function contradiction(first: OfficialToken, where: string, later: OfficialToken): string | null {
  if (later.decimals !== first.decimals) return `${later.decimals} decimals, but ${where} pins ${first.decimals}`;
  if (later.symbol !== first.symbol) return `symbol "${later.symbol}", but ${where} pins "${first.symbol}"`;
  return null;
}

/** A token's symbol, name and aliases as marks the impersonation rule protects. */
function marksOf(tokens: readonly OfficialToken[]): Mark<OfficialToken>[] {
  return tokens.flatMap((token) => [
    { text: token.symbol, kind: 'symbol' as const, token },
    ...[token.name, ...token.aliases].map((text) => ({ text, kind: 'name' as const, token })),
  ]);
}

const BUNDLED_MARKS = marksOf(
  OFFICIAL_TRON_TOKENS.flatMap((data) =>
    toOfficial(data, true)
      .map((t) => [t])
      .unwrapOr([]),
  ),
);
/** A bundled token's symbol or name itself (look-alikes, spacing and tags allowed): `USDT`, `USDT.e`, `Tether USD`. */
const NAMED_AS_BUNDLED = impersonationRule(BUNDLED_MARKS, { whole: true });
/** A bundled token's mark anywhere in the text: also derivatives such as `jUSDT`. */
const CONTAINS_BUNDLED = impersonationRule(BUNDLED_MARKS);

/**
 * Why an extra token at an asset the bundled registry does not hold may not be named as it is, or what an
 * operator should hear about its names. Refused: a symbol or name that is a bundled token's (the extension
 * would make this contract that token, officially, and pin its decimals: a typo in a contract turns an
 * impostor into USDT), and one of chain or version tags alone (`Token`: it would make unrelated tokens
 * fake). Warned: one that only contains a bundled mark (`jUSDT`, `stUSDT`), the derivatives the extension
 * exists for (impersonation.ts, official-tokens.ts); it is official here, and its look-alikes fake.
 */
function namingOf(token: OfficialToken): { refused: string } | { warning: string } | null {
  const names = [
    { field: 'symbol', text: token.symbol },
    ...[token.name, ...token.aliases].map((text) => ({ field: 'name', text })),
  ];
  for (const { field, text } of names) {
    const bundled = NAMED_AS_BUNDLED(text);
    const what = `${field} ${JSON.stringify(text)}`;
    if (bundled) {
      return { refused: `${what} is the bundled ${bundled.symbol}'s, which is at ${assetText(bundled.asset)}` };
    }
    if (onlyTags(text))
      return { refused: `${what} is only a chain or version tag, which would make unrelated tokens fake` };
  }
  for (const { field, text } of names) {
    const bundled = CONTAINS_BUNDLED(text);
    if (bundled) {
      const mark = `${field} ${JSON.stringify(text)} contains the bundled ${bundled.symbol}'s mark`;
      return { warning: `${mark}: accepted as a derivative, official at this contract only` };
    }
  }
  return null;
}

/** A restatement's other names protect the token too (it stays one token, first declared). */
function withNamesOf(first: OfficialToken, later: OfficialToken): OfficialToken {
  const names = [later.name, ...later.aliases].filter((n) => n !== first.name && !first.aliases.includes(n));
  return names.length === 0 ? first : { ...first, aliases: [...first.aliases, ...new Set(names)] };
}

export interface TokenRegistryOptions {
  /** How the extra tokens are named in messages; default `extra token 0`. */
  names?: ExtraTokenNames;
  /** Hears what an operator should know about an accepted extra token (see `namingOf`). */
  onWarning?: (message: string) => void;
  /**
   * False: without the bundled tokens (mainnet's), for another network; the extra tokens are then the whole
   * registry, named as they like (`namingOf` protects the bundled tokens' marks). Default true.
   */
  bundled?: boolean;
}

/**
 * The bundled registry plus `extra` tokens (configuration); an invalid entry is an error at load, and so is
 * one that gives an asset already declared (bundled, or an earlier extra) other decimals or another symbol
 * (amounts would be scaled by whichever came last), and one at another asset named as a bundled token or
 * by tags alone (`namingOf`). Restating the same facts is fine.
 */
export function createTokenRegistry(
  extra: readonly OfficialTokenData[] = [],
  { names = EXTRA_TOKENS, onWarning, bundled = true }: TokenRegistryOptions = {},
): Result<TokenRegistry, string> {
  const declarations = [
    ...(bundled ? OFFICIAL_TRON_TOKENS : []).map((data, i) => ({
      data,
      name: `bundled token ${i}`,
      where: BUNDLED,
      extra: false,
    })),
    ...extra.map((data, i) => ({ data, name: names.entry(i), where: names.earlier(i), extra: true })),
  ];
  const byAsset = new Map<string, { token: OfficialToken; where: string }>();
  for (const { data, name, where, extra } of declarations) {
    const token = toOfficial(data, !extra);
    if (token.isErr()) return err(token.error);
    const entry = `${name} (${JSON.stringify(data.symbol)} at ${assetText(token.value.asset)})`;
    const key = assetKey(token.value.asset);
    const first = byAsset.get(key);
    const naming = extra && bundled && first?.where !== BUNDLED ? namingOf(token.value) : null;
    if (naming && 'refused' in naming) return err(`${entry}: ${naming.refused}`);
    if (naming) onWarning?.(`${entry}: ${naming.warning}`);
    if (!first) {
      byAsset.set(key, { token: token.value, where });
      continue;
    }
    const contradicted = contradiction(first.token, first.where, token.value);
    if (contradicted) return err(`${entry}: ${contradicted}`);
    first.token = withNamesOf(first.token, token.value);
  }
  const tokens = [...byAsset.values()].map((declared) => declared.token);
  const imitated = impersonationRule(marksOf(tokens));
  return ok({
    tokens,
    find: (asset) => byAsset.get(assetKey(asset))?.token ?? null,
    imitated,
  });
}

/**
 * How the chain's reading contradicts a deployment's own token (`OfficialToken.bundled` false), or null when
 * the chain names it as declared: the symbol its contract answers, and its name (or an alias) when it has
 * one. `unread`: the chain gave no symbol (no answer, or the contract has no `symbol()`), so nothing vouches
 * for the entry. A bundled token is pinned by the release and never contradicted here (its decimals are
 * held against the chain's in the assessment).
 */
function namedOtherwise(official: OfficialToken, token: TokenRef): string | 'unread' | null {
  if (official.bundled) return null;
  if (token.symbol === null) return 'unread';
  const at = assetText(official.asset);
  if (token.symbol !== official.chainSymbol)
    return `the chain calls the token at ${at} ${JSON.stringify(token.symbol)}; the registry says "${official.chainSymbol}"`;
  if (token.name !== null && token.name !== official.name && !official.aliases.includes(token.name))
    return `the chain names the token at ${at} ${JSON.stringify(token.name)}; the registry says "${official.name}"`;
  return null;
}

/**
 * `official`: the exact asset is in the registry (TRX is native and official) and, for a deployment's own
 * token, the chain names it as its entry does. `fake`: its symbol or name imitates an official token (see
 * `impersonation.ts`); so is a deployment's token the chain names as another official token (an entry at
 * a look-alike's contract, by a typo: the file must not make a USDT look-alike official). A deployment's
 * token the chain names otherwise is `unknown` with the `contradiction` (TX_FACTS_DISAGREE), and without one
 * when the chain gave no symbol. `unknown`: anything else, including a token whose symbol and name could
 * not be read.
 *
 * A verdict is as of when it is given: the registry is part of the release, pinning contracts (which do not
 * go stale), and the token data that can change (decimals, symbol) is the chain's, dated by the facts'
 * `tokenDataAt` (a read, or the chain's last confirmation of a seeded registry token). So the registry's
 * own date never ages `token_data_at` or `max_source_age_seconds` (docs/assessment.md, "Freshness").
 */
export function createTokenAuthenticityProvider(registry: TokenRegistry): TokenAuthenticityProvider {
  const answer = (
    authenticity: TokenAuthenticity,
    more: { officialDecimals?: number; contradiction?: string } = {},
  ): Promise<TokenAuthenticityAnswer> =>
    Promise.resolve({ status: 'answered', authenticity, asOf: new Date(), ...more });
  return {
    assess(token: TokenRef) {
      // Whether its symbol or name imitates an official token other than `self`.
      const imitates = (self: OfficialToken | null) =>
        [token.symbol, token.name].some((text) => ![null, self].includes(registry.imitated(text)));
      const official = registry.find(token.asset);
      if (!official) return answer(imitates(null) ? 'fake' : 'unknown');
      const otherwise = namedOtherwise(official, token);
      if (otherwise === null) return answer('official', { officialDecimals: official.decimals });
      if (imitates(official)) return answer('fake');
      return answer('unknown', otherwise === 'unread' ? {} : { contradiction: otherwise });
    },
  };
}

const TOKEN_FILE_FIELDS = ['contract', 'symbol', 'decimals', 'name'] as const;
/** `TOKEN_REGISTRY_FILE`: a JSON array of a deployment's own official TRC20 tokens. */
const TokenRegistryFileEntry = t.type({ contract: t.string, symbol: t.string, decimals: t.number, name: t.string });

/**
 * Reads a token registry file (`[{"contract","symbol","decimals","name"}]`) through its codec: unreadable
 * files, other JSON, missing, mistyped, unknown or repeated fields are errors naming the file and the entry.
 * The entries are then checked like configured extra tokens (`createTokenRegistry`): one that gives a
 * contract the bundled registry or an earlier entry declares other decimals or another symbol is an error
 * naming both, and so is one at another contract named as a bundled token or by tags alone; `onWarning`
 * hears an accepted entry whose name contains a bundled token's (a derivative such as jUSDT).
 */
export function loadTokenRegistryFile(
  path: string,
  { onWarning, bundled }: Pick<TokenRegistryOptions, 'onWarning' | 'bundled'> = {},
): Result<OfficialTokenData[], string> {
  let text: string;
  let json: unknown;
  try {
    text = readFileSync(path, 'utf8');
    json = JSON.parse(text);
  } catch (cause) {
    return err(`${path}: cannot read a JSON token registry (${(cause as Error).message})`);
  }
  if (!Array.isArray(json)) return err(`${path}: must be a JSON array of {contract, symbol, decimals, name}`);
  const repeated = repeatedKey(text);
  if (repeated) return err(`${path}: entry ${repeated.element}: field "${repeated.key}" is given twice`);
  const tokens: OfficialTokenData[] = [];
  for (const [i, entry] of json.entries()) {
    const decoded = decode(TokenRegistryFileEntry, entry);
    const extra =
      entry && typeof entry === 'object'
        ? Object.keys(entry).filter((k) => !(TOKEN_FILE_FIELDS as readonly string[]).includes(k))
        : [];
    if (decoded.isErr() || extra.length > 0) {
      const wrong =
        extra.length > 0
          ? `unknown field "${extra[0]}"`
          : 'needs contract, symbol, name (strings) and decimals (a number)';
      return err(`${path}: entry ${i}: ${wrong}`);
    }
    tokens.push(decoded.value);
  }
  return createTokenRegistry(tokens, { names: FILE_ENTRIES, ...(onWarning ? { onWarning } : {}), bundled })
    .map(() => tokens)
    .mapErr((message) => `${path}: ${message}`);
}

function bundledRegistry(): TokenRegistry {
  const registry = createTokenRegistry();
  if (registry.isErr()) throw new Error(`bundled token registry: ${registry.error}`);
  return registry.value;
}

/** TRX and the TRC20 tokens of a registry: the default AML coverage (vendors screen TRX and TRC20 flows, not TRC10). */
export function amlCoveredAssets(registry: TokenRegistry): AssetRef[] {
  return registry.tokens.map((t) => t.asset).filter((asset) => asset.kind !== 'trc10');
}

/** TRX and the TRC20 tokens of the bundled registry. */
export const OFFICIAL_ASSETS: readonly AssetRef[] = amlCoveredAssets(bundledRegistry());

export function assetCoverage(assets: readonly AssetRef[]): (asset: AssetRef) => boolean {
  const keys = new Set(assets.map(assetKey));
  return (asset) => keys.has(assetKey(asset));
}
