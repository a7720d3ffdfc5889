import type { SafetyStores } from '@tron-safety/core';
import type pg from 'pg';
import { PostgresApiKeyStore } from './api-keys.js';
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
  limits: number;
  usage: number;
  /** Ended portal sessions and sign-in failure windows. */
  portal: number;
}

export interface PostgresStores extends SafetyStores {
  idempotency: PostgresIdempotencyStore;
  quota: PostgresQuotaStore;
  limits: PostgresLimitStore;
  usage: PostgresUsageStore;
  pool: pg.Pool;
  /** Creates or upgrades the schema (safe when several hosts call it at once). */
  migrate(): Promise<MigrateResult>;
  /**
   * Deletes what has expired at `now`: idempotency records past lease or retention, expired
   * quota reservations (taken off their counters), ended rate windows and slot leases, and,
   * when `usageRetentionDays` is given, usage records older than that; ended portal sessions and
   * sign-in failure windows. Expired rows already count as gone for every operation, so sweeping
   * only keeps the tables small: run it every minute or so from one or more hosts (concurrent
   * sweeps are safe).
   */
  sweep(now?: Date, options?: { usageRetentionDays?: number }): Promise<SweepResult>;
  /** Ends the pool if the stores opened it from a URL. */
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;

export function createPostgresStores(options: PostgresConnectionOptions): PostgresStores {
  const { pool, close } = openPool(options);
  const idempotency = new PostgresIdempotencyStore(pool);
  const quota = new PostgresQuotaStore(pool);
  const limits = new PostgresLimitStore(pool);
  const usage = new PostgresUsageStore(pool);
  const sessions = new PostgresSessionStore(pool);
  return {
    organizations: new PostgresOrganizationStore(pool),
    apiKeys: new PostgresApiKeyStore(pool),
    idempotency,
    quota,
    limits,
    usage,
    members: new PostgresMemberStore(pool),
    sessions,
    sanctionsLists: new PostgresSanctionsListStore(pool),
    pool,
    migrate: () => migrate(pool),
    async sweep(now = new Date(), sweepOptions = {}) {
      const retention = sweepOptions.usageRetentionDays;
      if (retention !== undefined && !(Number.isFinite(retention) && retention >= 1)) {
        throw new RangeError('usageRetentionDays must be at least 1');
      }
      return {
        idempotency: await idempotency.purgeExpired(now),
        quotaReservations: await quota.purgeExpired(now),
        limits: await limits.purgeExpired(now),
        usage: retention === undefined ? 0 : await usage.purgeUsageBefore(new Date(now.getTime() - retention * DAY_MS)),
        portal: await sessions.purgeExpired(now),
      };
    },
    close,
  };
}
