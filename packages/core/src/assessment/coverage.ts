import type { Coverage } from '../contract/enums.js';
import type { Evidence } from './evidence.js';

/**
 * Each applicable check and what counts as completed with evidence (docs/assessment.md has the table).
 * `complete` only when every one holds; anything else is `partial`.
 */
export const COVERAGE_CONDITIONS: readonly { check: string; complete: (evidence: Evidence) => boolean }[] = [
  { check: 'transaction facts verified', complete: (e) => e.factsVerified },
  { check: 'finality met (confirmed or failed)', complete: (e) => e.final },
  { check: 'transfer list not truncated', complete: (e) => !e.truncated },
  // A finding beside missing evidence stands (its overall state), but the evidence is not complete.
  { check: 'sanctions screening answered', complete: (e) => e.sanctions !== 'unavailable' && !e.sanctionsIncomplete },
  {
    check: 'AML answered for every counterparty, or not applicable',
    complete: (e) => e.aml !== 'unavailable' && e.aml !== 'unsupported' && !e.amlIncomplete,
  },
  {
    check: 'token authenticity known where a token moves',
    complete: (e) => e.token !== 'unavailable' && e.token !== 'unknown',
  },
  { check: 'every requested comparison possible', complete: (e) => !e.match.dataUnavailable },
];

export function coverageOf(evidence: Evidence): Coverage {
  return COVERAGE_CONDITIONS.every(({ complete }) => complete(evidence)) ? 'complete' : 'partial';
}
