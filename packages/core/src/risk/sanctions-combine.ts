import type { ProviderContext } from '../chain/facts.js';
import { settle } from './settle.js';
import type { SanctionsAnswer, SanctionsProvider } from './signals.js';

type Hit = Extract<SanctionsAnswer, { status: 'answered' }>['hits'][number];

/**
 * One answer from several: any hit is a hit (a listing stands even if another source failed);
 * no hit counts as clear only when every source answered; otherwise unavailable. The as-of
 * time is the oldest of the answers used, so freshness never looks better than its weakest source.
 */
export function combineSanctionsAnswers(answers: readonly SanctionsAnswer[]): SanctionsAnswer {
  if (answers.length === 0) return { status: 'unavailable', reason: 'no sanctions source configured' };
  const answered = answers.filter((a) => a.status === 'answered');
  const hits = new Map<string, Hit>();
  for (const a of answered) for (const hit of a.hits) hits.set(`${hit.address}\n${hit.source}`, hit);
  const failed = answers.filter((a) => a.status === 'unavailable');
  if (hits.size === 0 && failed.length > 0) {
    return { status: 'unavailable', reason: [...new Set(failed.map((f) => f.reason))].join('; ') };
  }
  const asOf = new Date(Math.min(...answered.map((a) => a.asOf.getTime())));
  return { status: 'answered', hits: [...hits.values()], asOf };
}

/**
 * Screens with every provider in parallel and combines the answers. A source that rejects (breaking
 * its promise) is that source's `unavailable`, so a hit from another source still stands.
 */
export function combineSanctionsProviders(providers: readonly SanctionsProvider[]): SanctionsProvider {
  return {
    async screen(addresses: readonly string[], ctx: ProviderContext) {
      return combineSanctionsAnswers(await Promise.all(providers.map((p) => settle(() => p.screen(addresses, ctx)))));
    },
  };
}
