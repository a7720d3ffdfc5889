import { isHigherLevel } from './aml-levels.js';
import type { AmlAnswer, Exposure } from './signals.js';

/**
 * The check's AML from the screened counterparties: the highest level, exposures merged, the
 * oldest as-of. A missing answer could only raise the level, so a partial result stands only when
 * it is already high or severe (`AML_HIGH` either way); otherwise the whole is unavailable.
 */
export function combineAmlAnswers(answers: readonly AmlAnswer[]): AmlAnswer {
  if (answers.length === 0) return { status: 'unavailable', reason: 'no counterparty to screen' };
  const answered = answers.filter((a) => a.status === 'answered');
  const failed = answers.filter((a) => a.status === 'unavailable');
  const top = answered.reduce<AmlAnswer | null>(
    (best, a) => (best?.status === 'answered' && !isHigherLevel(a.level, best.level) ? best : a),
    null,
  );
  if (top?.status !== 'answered' || (failed.length > 0 && !isHigherLevel(top.level, 'moderate'))) {
    return { status: 'unavailable', reason: [...new Set(failed.map((f) => f.reason))].join('; ') };
  }
  const exposures = new Map<string, Exposure>();
  for (const a of answered) {
    for (const e of a.exposures) {
      const key = `${e.category}\n${e.exposureType}\n${e.hops}`;
      const seen = exposures.get(key);
      if (!seen || Number(e.percent ?? -1) > Number(seen.percent ?? -1)) exposures.set(key, e);
    }
  }
  return {
    status: 'answered',
    level: top.level,
    exposures: [...exposures.values()],
    asOf: new Date(Math.min(...answered.map((a) => a.asOf.getTime()))),
  };
}
