import type { Coverage, ErrorCode, OverallState } from '../contract/enums.js';

/**
 * One logical check, for the usage report. Deliberately no transaction hash and no provider
 * detail. Idempotent replays are not recorded.
 */
export interface UsageRecord {
  organizationId: string;
  at: Date;
  /** Null when the request failed before its network was known. */
  network: string | null;
  /** Null for errors. */
  overallState: OverallState | null;
  coverage: Coverage | null;
  billable: boolean;
  latencyMs: number;
  /** Null for a 200. */
  errorCode: ErrorCode | null;
}

export interface UsageSummary {
  requests: number;
  billable: number;
  limitedData: number;
  errors: number;
  /** Rounded mean over the records; null when there are none. */
  averageLatencyMs: number | null;
  byNetwork: Record<string, number>;
  byOverallState: Record<string, number>;
}

/** The records of one organization with `since <= at < until`. */
export interface UsageWindowParams {
  organizationId: string;
  since: Date;
  until: Date;
}

export interface UsageStore {
  appendUsage(record: UsageRecord): Promise<void>;
  /** Summary of the organization's records with `since <= at < until`. */
  summarizeUsage(params: UsageWindowParams): Promise<UsageSummary>;
  /** Deletes records before `before` (retention); returns how many. */
  purgeUsageBefore(before: Date): Promise<number>;
}
