import type { UsageRecord, UsageStore, UsageSummary, UsageWindowParams } from '@tron-safety/core';
import * as t from 'io-ts';
import type pg from 'pg';
import { Count, decodeRow } from './rows.js';

const SummaryRow = t.type({
  requests: Count,
  billable: Count,
  limited_data: Count,
  errors: Count,
  average_latency_ms: t.union([Count, t.null]),
  by_network: t.record(t.string, t.number),
  by_overall_state: t.record(t.string, t.number),
});

/** Usage records: one per logical check, with no transaction hash and no provider detail. */
export class PostgresUsageStore implements UsageStore {
  constructor(private readonly pool: pg.Pool) {}

  async appendUsage(record: UsageRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO usage_records (organization_id, at, network, overall_state, coverage, billable, latency_ms, error_code)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        record.organizationId,
        record.at,
        record.network,
        record.overallState,
        record.coverage,
        record.billable,
        record.latencyMs,
        record.errorCode,
      ],
    );
  }

  /** The whole summary in one statement over the (organization_id, at) index. */
  async summarizeUsage(params: UsageWindowParams): Promise<UsageSummary> {
    const { rows } = await this.pool.query(
      `WITH r AS (
         SELECT network, overall_state, billable, latency_ms, error_code FROM usage_records
          WHERE organization_id = $1 AND at >= $2 AND at < $3)
       SELECT count(*) AS requests,
              count(*) FILTER (WHERE billable) AS billable,
              count(*) FILTER (WHERE overall_state = 'LIMITED_DATA') AS limited_data,
              count(*) FILTER (WHERE error_code IS NOT NULL) AS errors,
              round(avg(latency_ms)) AS average_latency_ms,
              (SELECT COALESCE(json_object_agg(network, n), '{}'::json)
                 FROM (SELECT network, count(*) AS n FROM r WHERE network IS NOT NULL GROUP BY network) x) AS by_network,
              (SELECT COALESCE(json_object_agg(overall_state, n), '{}'::json)
                 FROM (SELECT overall_state, count(*) AS n FROM r WHERE overall_state IS NOT NULL GROUP BY overall_state) x)
                AS by_overall_state
         FROM r`,
      [params.organizationId, params.since, params.until],
    );
    const row = decodeRow(SummaryRow, rows, 'usage_records');
    if (!row) throw new Error('usage summary returned no row');
    return {
      requests: row.requests,
      billable: row.billable,
      limitedData: row.limited_data,
      errors: row.errors,
      averageLatencyMs: row.average_latency_ms,
      byNetwork: row.by_network,
      byOverallState: row.by_overall_state,
    };
  }

  async purgeUsageBefore(before: Date): Promise<number> {
    const result = await this.pool.query('DELETE FROM usage_records WHERE at < $1', [before]);
    return result.rowCount ?? 0;
  }
}
