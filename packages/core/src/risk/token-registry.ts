import { readFileSync } from 'node:fs';
import { decode } from '@tron-safety/codec';
import * as t from 'io-ts';
import { err, ok, type Result } from 'neverthrow';
import type { TokenAuthenticity } from '../contract/enums.js';
import { isTronAddress } from '../tron/address.js';
import { OFFICIAL_TRON_TOKENS, type OfficialTokenData } from './data/official-tokens.js';
import { impersonationRule, type Mark } from './impersonation.js';
import type { AssetRef, TokenAuthenticityAnswer, TokenAuthenticityProvider, TokenRef } from './signals.js';

export type { OfficialTokenData } from './data/official-tokens.js';

export interface OfficialToken {
  symbol: string;
  name: string;
  asset: AssetRef;
  decimals: number;
  aliases: readonly string[];
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

function toOfficial(data: OfficialTokenData): Result<OfficialToken, string> {
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
  return ok({ symbol: data.symbol, name: data.name, asset, decimals: data.decimals, aliases: data.aliases ?? [] });
}

/** How a registry's extra tokens are named in its messages. */
export interface ExtraTokenNames {
  /** The i-th extra token: `entry 1`. */
  entry(i: number): string;
  /** The i-th, as a later one contradicting it refers to it: `entry 0 of this file`. */
  earlier(i: number): string;
}

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

/** A restatement's other names protect the token too (it stays one token, first declared). */
function withNamesOf(first: OfficialToken, later: OfficialToken): OfficialToken {
  const names = [later.name, ...later.aliases].filter((n) => n !== first.name && !first.aliases.includes(n));
  return names.length === 0 ? first : { ...first, aliases: [...first.aliases, ...new Set(names)] };
}

/**
 * The bundled registry plus `extra` tokens (configuration); an invalid entry is an error at load, and so is
 * one that gives an asset already declared (bundled, or an earlier extra) other decimals or another symbol:
 * amounts would be scaled by whichever came last. Restating the same facts is fine.
 */
export function createTokenRegistry(
  extra: readonly OfficialTokenData[] = [],
  names: ExtraTokenNames = EXTRA_TOKENS,
): Result<TokenRegistry, string> {
  const declarations = [
    ...OFFICIAL_TRON_TOKENS.map((data, i) => ({ data, name: `bundled token ${i}`, where: 'the bundled registry' })),
    ...extra.map((data, i) => ({ data, name: names.entry(i), where: names.earlier(i) })),
  ];
  const byAsset = new Map<string, { token: OfficialToken; where: string }>();
  for (const { data, name, where } of declarations) {
    const token = toOfficial(data);
    if (token.isErr()) return err(token.error);
    const key = assetKey(token.value.asset);
    const first = byAsset.get(key);
    if (!first) {
      byAsset.set(key, { token: token.value, where });
      continue;
    }
    const contradicted = contradiction(first.token, first.where, token.value);
    const entry = `${name} (${JSON.stringify(data.symbol)} at ${assetText(token.value.asset)})`;
    if (contradicted) return err(`${entry}: ${contradicted}`);
    first.token = withNamesOf(first.token, token.value);
  }
  const tokens = [...byAsset.values()].map((declared) => declared.token);
  const marks: Mark<OfficialToken>[] = tokens.flatMap((token) => [
    { text: token.symbol, kind: 'symbol' as const, token },
    ...[token.name, ...token.aliases].map((text) => ({ text, kind: 'name' as const, token })),
  ]);
  const imitated = impersonationRule(marks);
  return ok({
    tokens,
    find: (asset) => byAsset.get(assetKey(asset))?.token ?? null,
    imitated,
  });
}

/**
 * `official`: the exact asset is in the registry (TRX is native and official). `fake`: its symbol or
 * name imitates an official token (see `impersonation.ts`). `unknown`: anything else, including a
 * token whose symbol and name could not be read.
 *
 * A verdict is as of when it is given: the registry is part of the release, pinning contracts (which do not
 * go stale), and the token data that can change (decimals, symbol) is the chain's, dated by the facts'
 * `tokenDataAt` (a read, or the chain's last confirmation of a seeded registry token). So the registry's
 * own date never ages `token_data_at` or `max_source_age_seconds` (docs/assessment.md, "Freshness").
 */
export function createTokenAuthenticityProvider(registry: TokenRegistry): TokenAuthenticityProvider {
  return {
    assess(token: TokenRef) {
      const answer = (authenticity: TokenAuthenticity): Promise<TokenAuthenticityAnswer> =>
        Promise.resolve({ status: 'answered', authenticity, asOf: new Date() });
      const official = registry.find(token.asset);
      if (official)
        return Promise.resolve({
          status: 'answered',
          authenticity: 'official',
          asOf: new Date(),
          officialDecimals: official.decimals,
        });
      if (registry.imitated(token.symbol) || registry.imitated(token.name)) return answer('fake');
      return answer('unknown');
    },
  };
}

const TOKEN_FILE_FIELDS = ['contract', 'symbol', 'decimals', 'name'] as const;
/** `TOKEN_REGISTRY_FILE`: a JSON array of a deployment's own official TRC20 tokens. */
const TokenRegistryFileEntry = t.type({ contract: t.string, symbol: t.string, decimals: t.number, name: t.string });

/**
 * Reads a token registry file (`[{"contract","symbol","decimals","name"}]`) through its codec: unreadable
 * files, other JSON, missing, mistyped or unknown fields are errors naming the file and the entry. The
 * entries are then checked like the bundled ones (`createTokenRegistry`): an entry that gives a contract the
 * bundled registry or an earlier entry declares other decimals or another symbol is an error naming both.
 */
export function loadTokenRegistryFile(path: string): Result<OfficialTokenData[], string> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    return err(`${path}: cannot read a JSON token registry (${(cause as Error).message})`);
  }
  if (!Array.isArray(json)) return err(`${path}: must be a JSON array of {contract, symbol, decimals, name}`);
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
  return createTokenRegistry(tokens, FILE_ENTRIES)
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
