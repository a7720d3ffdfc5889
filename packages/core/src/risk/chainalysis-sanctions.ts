import * as t from 'io-ts';
import type { ProviderCallObserver } from '../chain/call-observer.js';
import type { ProviderContext } from '../chain/facts.js';
import { combineSanctionsAnswers } from './sanctions-combine.js';
import { positiveInteger } from './settings.js';
import { lookupOptions, sharedLookup, type SharedLookupOptions } from './shared-lookup.js';
import type { SanctionsAnswer, SanctionsProvider } from './signals.js';
import { getVendorJson } from './vendor-http.js';

export const CHAINALYSIS_SANCTIONS_SOURCE = 'Chainalysis sanctions API';

/**
 * `GET {base}/address/{address}`: a non-empty `identifications` means sanctioned, whatever its entries
 * hold, so an entry is not decoded as a whole: one we cannot read must not turn a hit into "unavailable".
 */
const SanctionsBody = t.type({ identifications: t.array(t.unknown) });
/** What a hit reports of an entry: its name, where it has one. */
const NamedIdentification = t.type({ name: t.string });

function identificationName(entry: unknown): string {
  return NamedIdentification.is(entry) ? entry.name : 'unnamed identification';
}

export interface ChainalysisSanctionsOptions extends Partial<SharedLookupOptions> {
  /** e.g. `https://public.chainalysis.com/api/v1` */
  baseUrl: string;
  apiKey: string;
  /** Calls in flight per screen (default 8). */
  maxConcurrent?: number;
  /**
   * Addresses sent to the API per screen (default 32), in the order given (most important first).
   * The rest are not screened by this source, so its answer for them is `unavailable`.
   */
  maxAddresses?: number;
  /** Sees every vendor call (metrics, logs). */
  onCall?: ProviderCallObserver;
}

export const DEFAULT_SANCTIONS_API_MAX_ADDRESSES = 32;

/** The free Chainalysis sanctions API, one call per address (cached, shared while in flight). */
export function createChainalysisSanctionsProvider(options: ChainalysisSanctionsOptions): SanctionsProvider {
  const base = options.baseUrl.replace(/\/+$/, '');
  const checked = positiveInteger(options.maxAddresses ?? DEFAULT_SANCTIONS_API_MAX_ADDRESSES);
  if (checked.isErr()) throw new Error(`maxAddresses ${checked.error}`);
  const maxAddresses = checked.value;
  const lookup = sharedLookup<SanctionsAnswer>(async (address, signal) => {
    const body = await getVendorJson(
      {
        url: `${base}/address/${encodeURIComponent(address)}`,
        headers: { 'X-API-Key': options.apiKey },
        signal,
        observed: { provider: 'chainalysis_sanctions', call: 'address', onCall: options.onCall },
      },
      SanctionsBody,
    );
    if (body.isErr()) return { status: 'unavailable', reason: `${CHAINALYSIS_SANCTIONS_SOURCE}: ${body.error}` };
    const ids = body.value.identifications;
    return {
      status: 'answered',
      hits:
        ids.length === 0
          ? []
          : [{ address, source: CHAINALYSIS_SANCTIONS_SOURCE, name: ids.map(identificationName).join('; ') }],
      asOf: new Date(),
    };
  }, lookupOptions(options));
  return {
    async screen(addresses: readonly string[], ctx: ProviderContext) {
      const all = [...new Set(addresses)];
      if (all.length === 0) return { status: 'answered', hits: [], asOf: new Date() };
      // A transaction with many transfers must not cost hundreds of calls, nor fire them at once (429).
      const screened = all.slice(0, maxAddresses);
      const answers: SanctionsAnswer[] = [];
      if (all.length > screened.length) {
        answers.push({
          status: 'unavailable',
          reason: `${CHAINALYSIS_SANCTIONS_SOURCE}: ${all.length - screened.length} of ${all.length} addresses beyond the per-check cap of ${maxAddresses} not screened`,
        });
      }
      let next = 0;
      const worker = async () => {
        while (next < screened.length) answers.push(await lookup(screened[next++]!, ctx));
      };
      await Promise.all(Array.from({ length: Math.min(options.maxConcurrent ?? 8, screened.length) }, worker));
      return combineSanctionsAnswers(answers);
    },
  };
}
