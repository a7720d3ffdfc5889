import type { Server } from 'node:http';
import {
  createRiskProviders,
  createSafetyService,
  createTronChainFactsProvider,
  type SafetyService,
  type SafetyStores,
} from '@tron-safety/core';
import { createMemoryStores } from '@tron-safety/store-memory';
import { err, ok, type Result } from 'neverthrow';
import type { Logger } from 'pino';
import type { ConfigError, HostConfig } from './config.js';
import { createHttpServer, listen, stopAccepting } from './http-app.js';
import { withRequestLog } from './log.js';
import { withHostRoutes } from './routes.js';
import { applySeed, loadSeedFile, type SeedFile, type SeedSummary } from './seed-file.js';

export interface RunningHost {
  url: string;
  service: SafetyService;
  server: Server;
  seeded: SeedSummary | null;
  /** Graceful stop: refuse new work, let in-flight checks finish (up to the grace), release, close. */
  stop(reason: string): Promise<void>;
}

/** Which stores the configuration asks for. PostgreSQL is refused until the host can use store-postgres. */
export function storesFor(config: HostConfig): Result<{ stores: SafetyStores; kind: 'memory' }, ConfigError> {
  if (config.databaseUrl !== null) {
    return err({
      field: 'DATABASE_URL',
      message:
        'DATABASE_URL: PostgreSQL is not available in this host yet (the PostgreSQL store package is not wired in). ' +
        'Unset DATABASE_URL to run with in-memory stores (state is lost on restart), or wait for store-postgres.',
    });
  }
  return ok({ stores: createMemoryStores(), kind: 'memory' });
}

/** Quota units still reserved across all organizations (0 after a clean drain). */
async function reservedQuota(service: SafetyService): Promise<number> {
  const operator = { kind: 'operator' } as const;
  const organizations = await service.admin.listOrganizations(operator);
  let reserved = 0;
  for (const org of organizations.isOk() ? organizations.value : []) {
    const usage = await service.admin.usage(operator, org.id, 1);
    if (usage.isOk()) reserved += usage.value.period.reserved;
  }
  return reserved;
}

/** Builds and starts the host; a wrong configuration or seed is an error naming the field, before anything listens. */
export async function startHost(config: HostConfig, logger: Logger): Promise<Result<RunningHost, ConfigError>> {
  const stores = storesFor(config);
  if (stores.isErr()) return err(stores.error);

  const risk = createRiskProviders({
    chainalysisApiUrl: config.chainalysisApiUrl,
    chainalysisApiKey: config.chainalysisApiKey,
    chainalysisSanctionsUrl: config.chainalysisSanctionsUrl,
    chainalysisSanctionsApiKey: config.chainalysisSanctionsApiKey,
    sanctionsListFiles: config.sanctionsListFiles,
  });
  if (risk.isErr()) return err({ field: 'SANCTIONS_LIST_FILES', message: `risk providers: ${risk.error}` });

  let seed: SeedFile | null = null;
  if (config.seedFile !== null) {
    const loaded = await loadSeedFile(config.seedFile);
    if (loaded.isErr()) return err(loaded.error);
    seed = loaded.value;
  }

  const chain = createTronChainFactsProvider({
    fullNodeUrl: config.tronFullNodeUrl,
    solidityNodeUrl: config.tronSolidityUrl,
    ...(config.tronApiKey ? { apiKey: config.tronApiKey } : {}),
    ...(config.maxTransfers !== null ? { maxTransfers: config.maxTransfers } : {}),
  });
  const service = createSafetyService(
    stores.value.stores,
    { chain, risk: risk.value },
    {
      deadlineMs: config.requestDeadlineMs,
      idempotencyRetentionSeconds: config.idempotencyRetentionSeconds,
      apiDisabled: config.apiDisabled,
      onError: (error, { requestId, step }) => logger.error({ request_id: requestId, step, err: error }, 'request failed inside the service'),
    },
  );

  let seeded: SeedSummary | null = null;
  if (seed) {
    const applied = await applySeed(service.admin, seed);
    if (applied.isErr()) {
      await chain.close();
      return err(applied.error);
    }
    seeded = applied.value;
  }

  const handler = withRequestLog(withHostRoutes(service), logger);
  const server = createHttpServer(handler, config.framework);
  let listening;
  try {
    listening = await listen(server, config.port, config.host);
  } catch (e) {
    await chain.close();
    return err({ field: 'PORT', message: `PORT/HOST: cannot listen on ${config.host}:${config.port} (${(e as Error).message})` });
  }

  let stopping: Promise<void> | null = null;
  const stop = (reason: string) =>
    (stopping ??= (async () => {
      logger.info({ reason, in_flight: service.inFlight, grace_ms: config.shutdownGraceMs }, 'shutting down: no new connections');
      const closed = stopAccepting(server);
      // New requests on open connections get 503 api_disabled; in-flight checks finish or are aborted at the grace.
      await service.close({ timeoutMs: config.shutdownGraceMs });
      server.closeAllConnections();
      await closed;
      await chain.close();
      logger.info({ in_flight: service.inFlight, reserved_after_drain: await reservedQuota(service) }, 'stopped');
    })());

  return ok({ url: listening.url, service, server, seeded, stop });
}
