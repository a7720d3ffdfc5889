import { readFileSync } from 'node:fs';
import { decode } from '@tron-safety/codec';
import * as t from 'io-ts';
import { err, ok, type Result } from 'neverthrow';
import type { TokenAuthenticity } from '../contract/enums.js';
import { isTronAddress } from '../tron/address.js';
import { OFFICIAL_TOKENS_AS_OF, OFFICIAL_TRON_TOKENS, type OfficialTokenData } from './data/official-tokens.js';
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
  /** As-of time of the registry's verdicts (`token_data_at`). */
  asOf: Date;
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

/** The bundled registry plus `extra` tokens (configuration); an invalid entry is an error at load. */
export function createTokenRegistry(extra: readonly OfficialTokenData[] = []): Result<TokenRegistry, string> {
  const tokens: OfficialToken[] = [];
  for (const data of [...OFFICIAL_TRON_TOKENS, ...extra]) {
    const token = toOfficial(data);
    if (token.isErr()) return err(token.error);
    tokens.push(token.value);
  }
  const byAsset = new Map(tokens.map((t) => [assetKey(t.asset), t]));
  const marks: Mark<OfficialToken>[] = tokens.flatMap((token) => [
    { text: token.symbol, kind: 'symbol' as const, token },
    ...[token.name, ...token.aliases].map((text) => ({ text, kind: 'name' as const, token })),
  ]);
  const imitated = impersonationRule(marks);
  return ok({
    tokens,
    asOf: new Date(OFFICIAL_TOKENS_AS_OF),
    find: (asset) => byAsset.get(assetKey(asset)) ?? null,
    imitated,
  });
}

/**
 * `official`: the exact asset is in the registry (TRX is native and official). `fake`: its symbol or
 * name imitates an official token (see `impersonation.ts`). `unknown`: anything else, including a
 * token whose symbol and name could not be read.
 */
export function createTokenAuthenticityProvider(registry: TokenRegistry): TokenAuthenticityProvider {
  return {
    assess(token: TokenRef) {
      const answer = (authenticity: TokenAuthenticity): Promise<TokenAuthenticityAnswer> =>
        Promise.resolve({ status: 'answered', authenticity, asOf: registry.asOf });
      const official = registry.find(token.asset);
      if (official)
        return Promise.resolve({
          status: 'answered',
          authenticity: 'official',
          asOf: registry.asOf,
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
 * entries are then checked like the bundled ones (`createTokenRegistry`).
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
  return ok(tokens);
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
