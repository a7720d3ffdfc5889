import type { SafetyStores } from '@tron-safety/core';
import { addDays, utcDay } from '@tron-safety/core/internal';
import type pg from 'pg';
import { PostgresApiKeyStore } from './api-keys.js';
import { PostgresCheckStore } from './checks.js';
import { openPool, type PostgresConnectionOptions } from './connection.js';
import { PostgresIdempotencyStore } from './idempotency.js';
import { PostgresLimitStore } from './limits.js';
import { PostgresMemberStore } from './members.js';
import { migrate, type MigrateResult } from './migrations.js';
import { PostgresOrganizationStore } from './organizations.js';
import { PostgresQuotaStore } from './quota.js';
import { PostgresSessionStore } from './sessions.js';
import { PostgresSanctionsListStore } from './sanctions-lists.js';
import { PostgresUsageStore } from './usage.js';

export interface SweepResult {
  idempotency: number;
  quotaReservations: number;
  /** Quota counters of months before the usage retention's first kept day (no reservation left). */
  quotaCounters: number;
  limits: number;
  usage: number;
  /** Ended portal sessions and sign-in failure windows. */
  portal: number;
  /** Invitations that expired without being accepted (their members deleted). */
  invitations: number;
  /** False when the time budget ran out first: the next sweep resumes with what is left. */
  complete: boolean;
}

export interface SweepOptions {
  /** UTC days of usage kept, today included (default 400; at least 1; keep 90 or more: `GET /v1/usage` reports up to 90). */
  usageRetentionDays?: number;
  /** Rows per statement (default 5000): each statement stays far below the statement timeout, whatever the backlog. */
  batchSize?: number;
  /** Time after which no new batch starts (default 20 s); the oldest rows go first, so the next sweep resumes. */
  budgetMs?: number;
}

export interface PostgresStores extends SafetyStores {
  idempotency: PostgresIdempotencyStore;
  quota: PostgresQuotaStore;
  limits: PostgresLimitStore;
  usage: PostgresUsageStore;
  checks: PostgresCheckStore;
  pool: pg.Pool;
  /** Creates or upgrades the schema (safe when several hosts call it at once). */
  migrate(): Promise<MigrateResult>;
  /**
   * Deletes what has expired at `now`, in batches of bounded statements, oldest first:
   * idempotency records past lease or retention, expired quota reservations (taken off their
   * counters), ended rate windows and slot leases, usage days past the retention and quota counters
   * of the months before it, ended portal
   * sessions and sign-in failure windows, and invitations that expired unaccepted. Expired
   * rows already count as gone for every operation, so sweeping only keeps the tables small: run
   * it every minute or so from one or more hosts (concurrent sweeps are safe); a backlog of any
   * size is worked off batch by batch, across sweeps when it outlasts the time budget.
   */
  sweep(now?: Date, options?: SweepOptions): Promise<SweepResult>;
  /** Ends the pool if the stores opened it from a URL. */
  close(): Promise<void>;
}

const DEFAULT_USAGE_RETENTION_DAYS = 400;

export function createPostgresStores(options: PostgresConnectionOptions): PostgresStores {
  const { pool, close } = openPool(options);
  const idempotency = new PostgresIdempotencyStore(pool);
  const quota = new PostgresQuotaStore(pool);
  const limits = new PostgresLimitStore(pool);
  const usage = new PostgresUsageStore(pool);
  const sessions = new PostgresSessionStore(pool);
  const members = new PostgresMemberStore(pool);
  return {
    organizations: new PostgresOrganizationStore(pool),
    apiKeys: new PostgresApiKeyStore(pool),
    idempotency,
    quota,
    limits,
    usage,
    checks: new PostgresCheckStore(pool),
    members,
    sessions,
    sanctionsLists: new PostgresSanctionsListStore(pool),
    pool,
    migrate: () => migrate(pool),
    async sweep(now = new Date(), sweepOptions: SweepOptions = {}) {
      const retention = sweepOptions.usageRetentionDays ?? DEFAULT_USAGE_RETENTION_DAYS;
      if (!(Number.isSafeInteger(retention) && retention >= 1)) {
        throw new RangeError('usageRetentionDays must be an integer of at least 1');
      }
      const batch = sweepOptions.batchSize ?? 5000;
      const stopAt = performance.now() + (sweepOptions.budgetMs ?? 20_000);
      const firstKeptDay = addDays(utcDay(now), 1 - retention);
      const result: SweepResult = {
        idempotency: 0,
        quotaReservations: 0,
        quotaCounters: 0,
        limits: 0,
        usage: 0,
        portal: 0,
        invitations: 0,
        complete: true,
      };
      const drain = async (kind: Exclude<keyof SweepResult, 'complete'>, step: () => Promise<number>) => {
        for (let n = batch; n >= batch;) {
          if (performance.now() > stopAt) return void (result.complete = false);
          n = await step();
          result[kind] += n;
        }
      };
      await drain('idempotency', () => idempotency.purgeExpired(now, batch));
      await drain('quotaReservations', () => quota.purgeExpired(now, batch));
      await drain('limits', () => limits.purgeExpired(now, batch));
      await drain('usage', () => usage.purgeUsageBefore(firstKeptDay, batch));
      await drain('quotaCounters', () => quota.purgeCountersBefore(firstKeptDay.slice(0, 7), batch));
      await drain('portal', () => sessions.purgeExpired(now, batch));
      await drain('invitations', () => members.purgeExpiredInvitations(now, batch));
      return result;
    },
    close,
  };
}
