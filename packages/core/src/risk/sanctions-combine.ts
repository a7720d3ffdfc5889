import type { ProviderContext } from '../chain/facts.js';
import { isSanctionsAnswer } from './answer-shapes.js';
import { settle } from './settle.js';
import type { SanctionsAnswer, SanctionsProvider } from './signals.js';

type Hit = Extract<SanctionsAnswer, { status: 'answered' }>['hits'][number];

/**
 * One answer from several: any hit is a hit (a listing stands even if another source failed, the
 * answer then `incomplete`: not every source vouched for the other addresses); no hit counts as clear
 * only when every source answered; otherwise unavailable. The as-of
 * time is the oldest of the answers used, so freshness never looks better than its weakest source.
 */
export function combineSanctionsAnswers(answers: readonly SanctionsAnswer[]): SanctionsAnswer {
  if (answers.length === 0) return { status: 'unavailable', reason: 'no sanctions source configured' };
  const answered = answers.filter((a) => a.status === 'answered');
  const hits = new Map<string, Hit>();
  for (const a of answered) for (const hit of a.hits) hits.set(`${hit.address}\n${hit.source}`, hit);
  // Every answer but `answered` is a failure, whatever a provider breaking its type calls it.
  const failed = answers.filter((a) => a.status !== 'answered');
  if (hits.size === 0 && failed.length > 0) {
    const reason = [...new Set(failed.map((f) => f.reason))].join('; ');
    const dated = failed.flatMap((f) => (f.asOf ? [f.asOf.getTime()] : []));
    return dated.length > 0
      ? { status: 'unavailable', reason, asOf: new Date(Math.min(...dated)) }
      : { status: 'unavailable', reason };
  }
  const asOf = new Date(Math.min(...answered.map((a) => a.asOf.getTime())));
  const combined: SanctionsAnswer = { status: 'answered', hits: [...hits.values()], asOf };
  const incomplete = failed.length > 0 || answered.some((a) => a.incomplete === true);
  return incomplete ? { ...combined, incomplete } : combined;
}

/**
 * Screens with every provider in parallel and combines the answers. A source that rejects or answers
 * in a shape of its own (breaking its promise) is that source's `unavailable`, so a hit from another source still stands.
 */
export function combineSanctionsProviders(providers: readonly SanctionsProvider[]): SanctionsProvider {
  return {
    async screen(addresses: readonly string[], ctx: ProviderContext) {
      return combineSanctionsAnswers(
        await Promise.all(providers.map((p) => settle(() => p.screen(addresses, ctx), isSanctionsAnswer))),
      );
    },
  };
}

/**
 * The configured screen: the lists screen every address; the sanctions API, when there is one, the
 * first `maxAddresses` (a bounded cost per check). Any hit is a hit, and an API failure without a hit
 * is unavailable. No hit is clean when every address was screened by a source that vouches for it: the
 * API for those it was sent, the lists for all while they are current (`maxAgeDays`; they answer
 * unavailable once too old). So the addresses beyond the cap fare exactly as without the API (clean by
 * current lists, unavailable by stale ones), never worse; and stale lists (whose hit is `incomplete`) do
 * not undo a clean API answer that covered every address.
 */
export function createSanctionsScreen(
  lists: SanctionsProvider,
  api: { provider: SanctionsProvider; maxAddresses: number } | null,
): SanctionsProvider {
  if (api === null) return lists;
  return {
    async screen(addresses: readonly string[], ctx: ProviderContext) {
      const all = [...new Set(addresses)];
      const sent = all.slice(0, api.maxAddresses);
      const [fromLists, fromApi] = await Promise.all([
        settle(() => lists.screen(all, ctx), isSanctionsAnswer),
        settle(() => api.provider.screen(sent, ctx), isSanctionsAnswer),
      ]);
      const apiVouchesForAll = sent.length === all.length && fromApi.status === 'answered' && !fromApi.incomplete;
      if (fromLists.status === 'answered') {
        // Stale lists vouch only for their hits; a clean API answer for every address vouches for the rest.
        const lists = apiVouchesForAll
          ? { status: fromLists.status, hits: fromLists.hits, asOf: fromLists.asOf }
          : fromLists;
        return combineSanctionsAnswers([lists, fromApi]);
      }
      // Stale lists: a clean API answer for every address stands alone; any other answer is unavailable
      // and keeps the lists' age, so a stale screen shows it.
      if (sent.length === all.length) {
        return fromApi.status === 'answered' ? fromApi : combineSanctionsAnswers([fromApi, fromLists]);
      }
      return combineSanctionsAnswers([
        fromApi,
        {
          ...fromLists,
          reason: `${all.length - sent.length} of ${all.length} addresses beyond the sanctions API cap of ${api.maxAddresses} are screened by the lists only: ${fromLists.reason}`,
        },
      ]);
    },
  };
}
