import type { UsageDay, UsageDaysParams, UsageRecord, UsageStore } from '@tron-safety/core';
import { utcDay } from '@tron-safety/core/internal';
import * as t from 'io-ts';
import type pg from 'pg';
import { Count, decodeRows, Histogram } from './rows.js';

const DayRow = t.type({
  day: t.string,
  requests: t.number,
  billable: t.number,
  limited_data: t.number,
  errors: t.number,
  latency_sum_ms: Count,
  latency_count: t.number,
  by_network: t.record(t.string, t.number),
  by_overall_state: t.record(t.string, t.number),
  latency_histogram: Histogram,
});

/** The `usage_record` call, for `recordUsage` and (inside finish_check) for a check's finish. */
export function usageRecordParams(record: Omit<UsageRecord, 'organizationId'>): unknown[] {
  return [
    utcDay(record.at),
    record.network,
    record.overallState,
    record.billable,
    record.errorCode !== null,
    Math.round(record.latencyMs),
  ];
}

/** Usage as one row per organization and UTC day (migration 003): a report reads at most one row a day. */
export class PostgresUsageStore implements UsageStore {
  constructor(private readonly pool: pg.Pool) {}

  async recordUsage(record: UsageRecord): Promise<void> {
    await this.pool.query({
      name: 'usage_record',
      text: 'SELECT usage_record($1, $2, $3, $4, $5, $6, $7)',
      values: [record.organizationId, ...usageRecordParams(record)],
    });
  }

  async readUsageDays(params: UsageDaysParams): Promise<UsageDay[]> {
    // Not a named statement: a generic plan cached while the table was small would keep scanning it whole.
    const { rows } = await this.pool.query({
      // The histogram as text: node-postgres' array parser and an io-ts decode per bucket cost
      // about 40 µs a row here, most of a 90-day report's time.
      text: `SELECT to_char(day, 'YYYY-MM-DD') AS day, requests, billable, limited_data, errors, latency_sum_ms,
                    latency_count, by_network, by_overall_state, array_to_string(latency_histogram, ',') AS latency_histogram
               FROM usage_days WHERE organization_id = $1 AND day BETWEEN $2::date AND $3::date ORDER BY day`,
      values: [params.organizationId, params.firstDay, params.lastDay],
    });
    return decodeRows(DayRow, rows, 'usage_days').map((row) => ({
      day: row.day,
      requests: row.requests,
      billable: row.billable,
      limitedData: row.limited_data,
      errors: row.errors,
      latencySumMs: row.latency_sum_ms,
      latencyCount: row.latency_count,
      byNetwork: row.by_network,
      byOverallState: row.by_overall_state,
      latencyHistogram: row.latency_histogram,
    }));
  }

  /** One bounded statement: the oldest `limit` days before `firstKeptDay` (over the `day` index). */
  async purgeUsageBefore(firstKeptDay: string, limit = 2_147_483_647): Promise<number> {
    const result = await this.pool.query(
      `DELETE FROM usage_days d USING (
         SELECT organization_id, day FROM usage_days WHERE day < $1::date ORDER BY day LIMIT $2) old
        WHERE d.organization_id = old.organization_id AND d.day = old.day`,
      [firstKeptDay, limit],
    );
    return result.rowCount ?? 0;
  }
}
