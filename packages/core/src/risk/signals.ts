import type { ProviderContext } from '../chain/facts.js';
import type { TronNetwork } from '../chain/network.js';
import type { AmlRiskLevel, ExposureType, TokenAuthenticity } from '../contract/enums.js';

/**
 * Provider answers. Each one either carries data with the time the data is as of, or says
 * it is unavailable and why. There is no way to express "clean" without having assessed.
 */
export type Unavailable = { status: 'unavailable'; reason: string };

// ---- sanctions ---------------------------------------------------------------------------

export type SanctionsAnswer =
  | {
      status: 'answered';
      /** Every screened address that is listed (empty = screened, none listed). */
      hits: { address: string; source: string; name: string | null }[];
      /** Age of the data: when the list was last confirmed current, or when a live API answered (cache age included). */
      asOf: Date;
      /**
       * The hits stand, but not every address was screened by a source that vouches for it (a source
       * failed, or lists too old to prove anything clean hit): the evidence is not complete.
       */
      incomplete?: boolean;
    }
  /** `asOf`: lists too old to prove anything clean still say when they were last confirmed current. */
  | (Unavailable & { asOf?: Date });

export interface SanctionsProvider {
  /** Screens all `addresses` (base58). Never rejects: outside failures are `unavailable`. */
  screen(addresses: readonly string[], ctx: ProviderContext): Promise<SanctionsAnswer>;
}

// ---- AML ---------------------------------------------------------------------------------

/** A level the vendor actually gave: `unknown` is the response's word for no answer, never an answer. */
export type AmlLevel = Exclude<AmlRiskLevel, 'unknown'>;

export interface Exposure {
  category: string;
  exposureType: ExposureType;
  /** 1 for direct; see the risk README for indirect. */
  hops: number;
  /** Decimal string percentage ("12.5"), or null when the vendor gives none. */
  percent: string | null;
}

export type AmlAnswer =
  | {
      status: 'answered';
      level: AmlLevel;
      exposures: Exposure[];
      asOf: Date;
      /**
       * Set by `combineAmlAnswers`: some counterparties' lookups failed, and the level (high or severe, a
       * finding that stands) is the highest of those that answered; the evidence is not complete. A
       * provider may set it too (one combining sources of its own): then only a high or severe level stands.
       */
      incomplete?: boolean;
    }
  | Unavailable;

/** The asset a transfer moves, as far as AML coverage is concerned. */
export type AssetRef = { kind: 'trx' } | { kind: 'trc10'; tokenId: string } | { kind: 'trc20'; contract: string };

export interface AmlProvider {
  /** False when the vendor does not cover this asset (AML_UNSUPPORTED_ASSET). */
  supportsAsset(asset: AssetRef): boolean;
  /** Risk of one address. Never rejects. */
  assessAddress(address: string, ctx: ProviderContext): Promise<AmlAnswer>;
}

// ---- token authenticity ------------------------------------------------------------------

export interface TokenRef {
  asset: AssetRef;
  symbol: string | null;
  name: string | null;
}

export type TokenAuthenticityAnswer =
  | {
      status: 'answered';
      authenticity: TokenAuthenticity;
      asOf: Date;
      /**
       * The decimals an `official` token is pinned with (the registry's), when known: the assessment
       * holds the chain's reading against them, since one lying node answer would rescale every amount.
       */
      officialDecimals?: number;
      /**
       * How the chain's reading contradicts the registry's entry for this asset (a deployment's own token
       * the chain names otherwise): the assessment reports it as TX_FACTS_DISAGREE.
       */
      contradiction?: string;
    }
  | Unavailable;

export interface TokenAuthenticityProvider {
  assess(token: TokenRef, ctx: ProviderContext): Promise<TokenAuthenticityAnswer>;
}

// ---- what the assessment receives ----------------------------------------------------------

/**
 * The risk half of a check, gathered for one transaction.
 * `null` entries mean "not applicable" (nothing to screen / no token involved), which is
 * different from an `unavailable` answer.
 */
export interface RiskSignals {
  sanctions: SanctionsAnswer | null;
  /** Combined AML over the screened counterparties (highest level), or unsupported asset. */
  aml: AmlAnswer | { status: 'unsupported_asset' } | null;
  token: TokenAuthenticityAnswer | null;
}

export interface RiskProviders {
  sanctions: SanctionsProvider;
  aml: AmlProvider;
  tokens: TokenAuthenticityProvider;
  /** The network whose assets the token registry names; absent: TRON mainnet (see `ChainFactsProvider.network`). */
  readonly network?: TronNetwork;
}
