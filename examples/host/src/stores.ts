import type { SafetyStores } from '@tron-safety/core';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createPostgresStores } from '@tron-safety/store-postgres';
import { err, ok, type Result } from 'neverthrow';
import type { ConfigError } from './config.js';

/** The stores a host (or the admin CLI) runs on, with what it takes to keep and end them. */
export interface HostStores {
  stores: SafetyStores;
  kind: 'memory' | 'postgres';
  /** For the start-up log: never includes credentials. */
  description: string;
  /**
   * Deletes expired idempotency records, reservations, windows, slots, portal sessions and sign-in
   * failures (they count as gone already), quota counters of ended months (memory), and invitations
   * that expired unaccepted (memory mode with a seed file: not these, which the seed file's write-back
   * sweeps from the file and memory together, `withSeedWriteBack`).
   */
  sweep(): Promise<void>;
  /** Rejects when the stores cannot be reached (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * In-memory stores without `databaseUrl`; with it, PostgreSQL: the schema is created or upgraded
 * first (safe when several hosts start at once), and a failure to reach or migrate the database
 * refuses the start instead of falling back to memory. In memory mode with a seed file
 * (`seedFile`), the file keeps the members, so an invitation that expired is swept from the file and
 * memory together by the write-back, never from memory only (a restart would bring it back).
 */
export async function openStores(
  databaseUrl: string | null,
  options: { seedFile?: boolean } = {},
): Promise<Result<HostStores, ConfigError>> {
  if (databaseUrl === null) {
    const sweepsInvitations = !options.seedFile;
    const stores = createMemoryStores();
    return ok({
      stores,
      kind: 'memory',
      description: 'memory (this process only; state is lost on restart)',
      async sweep() {
        const now = new Date();
        await Promise.all([
          stores.idempotency.purgeExpired(now),
          stores.quota.purgeExpired(now),
          stores.limits.purgeExpired(now),
          stores.sessions.purgeExpired(now),
          sweepsInvitations ? stores.members.purgeExpiredInvitations(now) : 0,
        ]);
      },
      ping: async () => {},
      close: async () => {},
    });
  }
  const url = new URL(databaseUrl);
  const where = `${url.hostname}:${url.port || 5432}${url.pathname}`;
  const stores = createPostgresStores({ connectionString: databaseUrl, applicationName: 'tron-safety-host' });
  try {
    await stores.migrate();
  } catch (e) {
    await stores.close().catch(() => {});
    return err({
      field: 'DATABASE_URL',
      message: `DATABASE_URL: cannot prepare PostgreSQL at ${where} (${(e as Error).message})`,
    });
  }
  return ok({
    stores,
    kind: 'postgres',
    description: `postgres ${where}`,
    sweep: async () => void (await stores.sweep()),
    ping: async () => void (await stores.pool.query('SELECT 1')),
    close: () => stores.close(),
  });
}
