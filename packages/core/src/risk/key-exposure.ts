import { MAX_KEY_EXPOSURES } from '../contract/bounds.js';
import type { Exposure } from './signals.js';

/** A category or label that names sanctions (`sanctions`, `SANCTIONS: OFAC SDN …`). */
export const namesSanctions = (category: string | null | undefined): boolean =>
  category != null && /sanction/i.test(category);

/** Percent as a number for ranking; none (or unreadable) ranks below every percent. */
const percentOf = (exposure: Exposure): number => {
  const percent = exposure.percent === null ? NaN : Number(exposure.percent);
  return Number.isNaN(percent) ? -1 : percent;
};

/** Sanctions categories first, then the larger share, then the nearer (direct before indirect). */
const byWeight = (a: Exposure, b: Exposure): number =>
  Number(namesSanctions(b.category)) - Number(namesSanctions(a.category)) ||
  percentOf(b) - percentOf(a) ||
  a.hops - b.hops;

/**
 * The key exposures: at most MAX_KEY_EXPOSURES, the heaviest by `byWeight` (a sanctions category is
 * never dropped for another), kept in the order given.
 */
export function keyExposures(exposures: readonly Exposure[]): Exposure[] {
  if (exposures.length <= MAX_KEY_EXPOSURES) return [...exposures];
  const places = exposures.map((_, place) => place);
  const kept = new Set(places.sort((a, b) => byWeight(exposures[a]!, exposures[b]!)).slice(0, MAX_KEY_EXPOSURES));
  return exposures.filter((_, place) => kept.has(place));
}
