import type { AmlLevel } from './signals.js';

/**
 * Vendor risk scales mapped onto ours. Anything a vendor reports as unknown (or a value we do not
 * recognise) maps to null: the caller answers `unavailable`, never a level it did not receive.
 */
export const AML_LEVELS = ['low', 'moderate', 'high', 'severe'] as const satisfies readonly AmlLevel[];

export const isHigherLevel = (a: AmlLevel, b: AmlLevel): boolean => AML_LEVELS.indexOf(a) > AML_LEVELS.indexOf(b);

/** Chainalysis Entity API `risk`. */
export function levelFromChainalysis(risk: string): AmlLevel | null {
  return CHAINALYSIS[risk] ?? null;
}
const CHAINALYSIS: Record<string, AmlLevel> = { Severe: 'severe', High: 'high', Medium: 'moderate', Low: 'low' };

/** TRM Labs `riskScoreLevel` names or their numeric scores (Severe 15, High 10, Medium 5, Low 1, Unknown 0). */
export function levelFromTrm(level: string | number): AmlLevel | null {
  if (typeof level === 'number') return TRM_SCORES[level] ?? null;
  return CHAINALYSIS[level.charAt(0).toUpperCase() + level.slice(1).toLowerCase()] ?? null;
}
const TRM_SCORES: Record<number, AmlLevel> = { 15: 'severe', 10: 'high', 5: 'moderate', 1: 'low' };

export interface PercentScoreBands {
  /** Lowest score (inclusive) of each band; defaults from the risk-data notes, tunable. */
  severe: number;
  high: number;
  moderate: number;
}
export const DEFAULT_PERCENT_BANDS: PercentScoreBands = { severe: 75, high: 50, moderate: 25 };

/** AMLBot-style 0–100 risk percentage ("probability the address is tied to illicit activity"). */
export function levelFromPercentScore(
  score: number | null,
  bands: PercentScoreBands = DEFAULT_PERCENT_BANDS,
): AmlLevel | null {
  if (score === null || !Number.isFinite(score) || score < 0 || score > 100) return null;
  if (score >= bands.severe) return 'severe';
  if (score >= bands.high) return 'high';
  if (score >= bands.moderate) return 'moderate';
  return 'low';
}
