import type { TokenMetadata } from './token-metadata.js';

/** A TRC20 token whose metadata is known beforehand (a registry's table), so no check reads it. */
export interface KnownToken {
  /** Contract, base58. */
  contract: string;
  /** What the contract's `symbol()` answers: a reading with another symbol does not confirm the token. */
  symbol: string;
  name: string;
  decimals: number;
  /** When these values were established: the facts' `tokenDataAt` until the chain confirms them. */
  asOf: Date;
  /**
   * True for the bundled registry's tokens (`REGISTRY_KNOWN_TOKENS`), reviewed with the release: served
   * from the start, before the chain confirms them. Any other seed (a deployment's own, `knownTokensOf`) is
   * served only once a chain reading agreed with it: until then its token is read from the chain like any
   * other, so an operator's typo in its decimals meets the chain's instead of scaling payments.
   */
  bundled?: boolean;
}

/** A known token's chain reading that contradicts it: the token is read from the chain from then on. */
export interface KnownTokenDisagreement {
  contract: string;
  known: { symbol: string; decimals: number };
  chain: { symbol: string | null; decimals: number | null };
}

/** One known token as the reader keys it. */
export interface Seed {
  key: string;
  contractHex: string;
  token: KnownToken;
}

export interface SeededTokensOptions {
  /** How long a confirmation stands before the next round (the token cache's TTL); at least a second. */
  confirmEveryMs: number;
  onDisagreement?: (disagreement: KnownTokenDisagreement) => void;
  /**
   * Hears a read that rejected (a bug: the nodes' failures are answers). The round counts that token as
   * not asked, so its seed keeps its date and the next round is soon; without it, a process warning.
   */
  onError?: (error: unknown) => void;
}

/** One known token as an operator sees it (`SeededTokens.status`). */
export interface KnownTokenStatus {
  contract: string;
  symbol: string;
  bundled: boolean;
  /** The chain confirmed it last (`confirmed`), has not yet (`unconfirmed`), or its last reading contradicted it. */
  state: 'confirmed' | 'unconfirmed' | 'contradicted';
  /** When the data checks get for it dates from (its last confirmation, or a bundled seed's as-of); null when not served. */
  servedAsOf: Date | null;
  /**
   * Checks lack what the service promises for it: the chain contradicts it, its last confirmation is older
   * than twice the confirmation period (the scheduled rounds and their retries failed), or it was never
   * confirmed and a round has ended (the first round at start could not confirm it).
   */
  stale: boolean;
}

/** Reads one token's metadata from the nodes, within its own budget. */
export type ReadToken = (seed: Seed) => Promise<TokenMetadata>;

/** Tokens a round reads at once (three calls each): a round never floods the node. */
const CONCURRENT_READS = 4;
/** A round that could not ask about every token is tried again this soon (or at the period, if sooner). */
const RETRY_MS = 60_000;
const MIN_PERIOD_MS = 1_000;

interface SeedState extends Seed {
  /**
   * What checks get: a bundled seed's known values until the chain confirms them, then the confirming
   * reading; null before another seed's first confirmation, and while the chain disagrees.
   */
  served: TokenMetadata | null;
  /** The last reading contradicted the seed (heard once, until a reading agrees again). */
  contradicted: boolean;
  /** A reading has agreed with the seed. */
  confirmed: boolean;
}

/**
 * Known tokens served as seeded metadata, so a check of one never waits for a metadata call, and
 * confirmed by the chain off the checks' path. Until its first confirmation a bundled seed is served with
 * the known values as of their `asOf` (not confirmed yet); any other is not served (see
 * `KnownToken.bundled`). One seed per token: the bundled one, else the first given, so a restatement can
 * neither re-date nor rename it. A round reads every seed from the nodes (a few at a time; a round in
 * flight is joined, never doubled), then again `confirmEveryMs` later (sooner when some token could not be
 * asked). A reading that agrees on decimals and symbol is served from then on, dated when it was read; one
 * that differs ends the seed (and is heard once): checks read that token from the chain like any other (the
 * reader caches the reading), so the assessment holds its decimals against the registry's again.
 */
export class SeededTokens {
  private readonly seeds: ReadonlyMap<string, SeedState>;
  private round: Promise<void> | null = null;
  private roundsEnded = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    seeds: readonly Seed[],
    private readonly options: SeededTokensOptions,
  ) {
    const states = new Map<string, SeedState>();
    for (const seed of seeds) {
      const held = states.get(seed.key)?.token;
      if (held && (held.bundled || !seed.token.bundled)) continue;
      states.set(seed.key, {
        ...seed,
        served: seed.token.bundled ? knownMetadata(seed.token) : null,
        contradicted: false,
        confirmed: false,
      });
    }
    this.seeds = states;
  }

  /** The seed's metadata, or null when the token is not seeded (unknown, not confirmed yet, or contradicted by the chain). */
  get(key: string): TokenMetadata | null {
    return this.seeds.get(key)?.served ?? null;
  }

  /** Every seed's confirmation as of `now` (ms since the epoch), without asking a node. */
  status(now: number = Date.now()): KnownTokenStatus[] {
    const overdueMs = 2 * this.periodMs();
    return [...this.seeds.values()].map(({ token, served, contradicted, confirmed }) => ({
      contract: token.contract,
      symbol: token.symbol,
      bundled: token.bundled === true,
      state: contradicted ? 'contradicted' : confirmed ? 'confirmed' : 'unconfirmed',
      servedAsOf: served?.readAt ?? null,
      stale: contradicted || (confirmed && served ? now - served.readAt.getTime() > overdueMs : this.roundsEnded > 0),
    }));
  }

  /** Confirms every seed now (or joins the round in flight), then on schedule until `stop()`. */
  keepConfirmed(read: ReadToken): Promise<void> {
    if (this.round) return this.round;
    if (this.stopped || this.seeds.size === 0) return Promise.resolve();
    this.round = this.confirmAll(read).then((complete) => {
      this.round = null;
      this.roundsEnded++;
      this.schedule(read, complete);
    });
    return this.round;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** One round; true when every token answered (a failure to ask leaves that seed as it was). */
  private async confirmAll(read: ReadToken): Promise<boolean> {
    const queue = [...this.seeds.values()];
    let complete = true;
    const worker = async () => {
      for (let seed = queue.shift(); seed !== undefined && !this.stopped; seed = queue.shift()) {
        const reading = await read(seed).catch((error: unknown) => this.reportBug(error));
        if (reading?.complete) this.judge(seed, reading);
        else complete = false;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT_READS }, worker));
    return complete;
  }

  private reportBug(error: unknown): null {
    if (this.options.onError) this.options.onError(error);
    else process.emitWarning(error instanceof Error ? error : String(error), 'KnownTokenConfirmationError');
    return null;
  }

  private judge(seed: SeedState, reading: TokenMetadata): void {
    const { decimals, symbol, contract } = seed.token;
    const agrees = reading.decimals === decimals && reading.symbol === symbol;
    const heard = seed.contradicted;
    seed.served = agrees ? reading : null;
    seed.contradicted = !agrees;
    seed.confirmed ||= agrees;
    if (!agrees && !heard) {
      this.options.onDisagreement?.({
        contract,
        known: { symbol, decimals },
        chain: { symbol: reading.symbol, decimals: reading.decimals },
      });
    }
  }

  /** The confirmation period (`confirmEveryMs`, at least a second). */
  private periodMs(): number {
    return Math.max(MIN_PERIOD_MS, this.options.confirmEveryMs);
  }

  private schedule(read: ReadToken, complete: boolean): void {
    if (this.stopped) return;
    const period = this.periodMs();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.keepConfirmed(read), complete ? period : Math.min(period, RETRY_MS));
    this.timer.unref();
  }
}

function knownMetadata({ symbol, name, decimals, asOf }: KnownToken): TokenMetadata {
  return { symbol, name, decimals, readAt: asOf, complete: true };
}
