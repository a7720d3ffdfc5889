import type { ChainFacts } from '../chain/facts.js';
import { isoString } from '../contract/date-time.js';
import type { FreshnessResponse } from '../contract/models.js';
import type { RiskSignals } from '../risk/signals.js';

function oldest(times: readonly (Date | null)[]): Date | null {
  let result: Date | null = null;
  for (const time of times) {
    if (time && (result === null || time.getTime() < result.getTime())) result = time;
  }
  return result;
}

const iso = (time: Date | null) => (time === null ? null : isoString(time));

const answeredAt = (answer: { status: string; asOf?: Date } | null) =>
  answer?.status === 'answered' ? (answer.asOf ?? null) : null;

/**
 * Source times of one check, from the facts and signals the assessment used.
 * `risk_data_at`: the oldest of the sanctions evidence's last confirmation (answered, or unavailable because
 * the lists are too old) and the AML answer's `asOf`; `token_data_at`: the oldest of
 * the token answer's `asOf` and the chain's token metadata read time; `max_source_age_seconds`: whole
 * seconds from the oldest of those and the chain data to `checked_at`; 0 when a source claims a time after
 * `checked_at`. The chain data is as old as the older of the observation and the head the answer rests on
 * (`ChainFacts.headTime`: the full node's; a node stalled in the past answers from then); the tx's block time
 * is when it happened, not how old our data is.
 */
export function freshnessOf(facts: ChainFacts, signals: RiskSignals, checkedAt: Date): FreshnessResponse {
  // Sanctions: when the evidence used was last confirmed current, also when it was too old to prove clean.
  const sanctionsAt = signals.sanctions?.asOf ?? null;
  const riskDataAt = oldest([sanctionsAt, answeredAt(signals.aml)]);
  const tokenDataAt = oldest([answeredAt(signals.token), facts.tokenDataAt]);
  const oldestSource = oldest([facts.observedAt, facts.headTime, riskDataAt, tokenDataAt])!;
  const age = Math.floor((checkedAt.getTime() - oldestSource.getTime()) / 1000);
  return {
    checked_at: isoString(checkedAt),
    transaction_at: iso(facts.blockTime),
    risk_data_at: iso(riskDataAt),
    token_data_at: iso(tokenDataAt),
    max_source_age_seconds: Math.max(0, age),
  };
}
