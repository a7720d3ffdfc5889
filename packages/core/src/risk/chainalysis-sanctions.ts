import * as t from 'io-ts';
import type { ProviderContext } from '../chain/facts.js';
import { nullable } from '../contract/schema.js';
import { combineSanctionsAnswers } from './sanctions-combine.js';
import { lookupOptions, sharedLookup, type SharedLookupOptions } from './shared-lookup.js';
import type { SanctionsAnswer, SanctionsProvider } from './signals.js';
import { getVendorJson } from './vendor-http.js';

export const CHAINALYSIS_SANCTIONS_SOURCE = 'Chainalysis sanctions API';

const Identification = t.intersection([
  t.type({ name: t.string }),
  t.partial({ category: nullable(t.string), description: nullable(t.string), url: nullable(t.string) }),
]);
/** `GET {base}/address/{address}`: a non-empty `identifications` means sanctioned. */
const SanctionsBody = t.type({ identifications: t.array(Identification) });

export interface ChainalysisSanctionsOptions extends Partial<SharedLookupOptions> {
  /** e.g. `https://public.chainalysis.com/api/v1` */
  baseUrl: string;
  apiKey: string;
  /** Calls in flight per screen (default 8). */
  maxConcurrent?: number;
}

/** The free Chainalysis sanctions API, one call per address (cached, shared while in flight). */
export function createChainalysisSanctionsProvider(options: ChainalysisSanctionsOptions): SanctionsProvider {
  const base = options.baseUrl.replace(/\/+$/, '');
  const lookup = sharedLookup<SanctionsAnswer>(
    async (address, signal) => {
      const body = await getVendorJson(
        `${base}/address/${encodeURIComponent(address)}`,
        { 'X-API-Key': options.apiKey },
        SanctionsBody,
        signal,
      );
      if (body.isErr()) return { status: 'unavailable', reason: `${CHAINALYSIS_SANCTIONS_SOURCE}: ${body.error}` };
      const ids = body.value.identifications;
      return {
        status: 'answered',
        hits: ids.length === 0 ? [] : [{ address, source: CHAINALYSIS_SANCTIONS_SOURCE, name: ids.map((i) => i.name).join('; ') }],
        asOf: new Date(),
      };
    },
    lookupOptions(options),
  );
  return {
    async screen(addresses: readonly string[], ctx: ProviderContext) {
      const unique = [...new Set(addresses)];
      if (unique.length === 0) return { status: 'answered', hits: [], asOf: new Date() };
      // A transaction with many transfers must not fire hundreds of calls at once (429 = unavailable).
      const answers: SanctionsAnswer[] = [];
      let next = 0;
      const worker = async () => {
        while (next < unique.length) answers.push(await lookup(unique[next++]!, ctx.signal));
      };
      await Promise.all(Array.from({ length: Math.min(options.maxConcurrent ?? 8, unique.length) }, worker));
      return combineSanctionsAnswers(answers);
    },
  };
}
