import { isHigherLevel } from './aml-levels.js';
import type { AmlAnswer, Exposure } from './signals.js';

/**
 * The check's AML from the screened counterparties: the highest level, exposures merged, the
 * oldest as-of. A missing answer could only raise the level, so a partial result stands only when
 * it is already high or severe (`AML_HIGH` either way), marked `incomplete` (coverage partial);
 * otherwise the whole is unavailable. An answer that is itself `incomplete` counts as partly failed.
 */
export function combineAmlAnswers(answers: readonly AmlAnswer[]): AmlAnswer {
  if (answers.length === 0) return { status: 'unavailable', reason: 'no counterparty to screen' };
  // One pass: the first answer of the highest level, the oldest as-of, the failures' reasons.
  let top: Answered | null = null;
  let oldest = Infinity;
  const failed: string[] = [];
  for (const a of answers) {
    if (a.status === 'answered') {
      if (top === null || isHigherLevel(a.level, top.level)) top = a;
      oldest = Math.min(oldest, a.asOf.getTime());
      // A provider's own incomplete answer (a host's, itself combined) is a lookup that partly failed.
      if (a.incomplete === true) failed.push('an AML answer was incomplete');
    } else failed.push(a.reason); // whatever a provider breaking its type calls it, it is no answer
  }
  if (top === null || (failed.length > 0 && !isHigherLevel(top.level, 'moderate'))) {
    return { status: 'unavailable', reason: [...new Set(failed)].join('; ') };
  }
  const answer: AmlAnswer = {
    status: 'answered',
    level: top.level,
    exposures: mergedExposures(answers),
    asOf: new Date(oldest),
  };
  return failed.length > 0 ? { ...answer, incomplete: true } : answer;
}

type Answered = Extract<AmlAnswer, { status: 'answered' }>;

/** The answers' exposures, one per category, type and hops: the highest percent of each. */
function mergedExposures(answers: readonly AmlAnswer[]): Exposure[] {
  let merged: Map<string, Exposure> | null = null;
  for (const a of answers) {
    if (a.status !== 'answered') continue;
    for (const e of a.exposures) {
      merged ??= new Map();
      const key = `${e.category}\n${e.exposureType}\n${e.hops}`;
      const seen = merged.get(key);
      if (!seen || Number(e.percent ?? -1) > Number(seen.percent ?? -1)) merged.set(key, e);
    }
  }
  return merged === null ? [] : [...merged.values()];
}
