import type { Server } from 'node:http';
import {
  createRiskProviders,
  createSafetyService,
  createTronChainFactsProvider,
  type SafetyService,
} from '@tron-safety/core';
import { err, ok, type Result } from 'neverthrow';
import type { Logger } from 'pino';
import type { ConfigError, HostConfig } from './config.js';
import { createHttpServer, listen, stopAccepting, trackResponses } from './http-app.js';
import { withRequestLog } from './log.js';
import { createObservability } from './ops/observability.js';
import { startOpsListener } from './ops/server.js';
import { mountPortal } from './portal-mount.js';
import { withHostRoutes } from './routes.js';
import { createHostSanctions, type HostSanctions } from './sanctions-refresh.js';
import { applySeed, loadSeedFile, type SeedFile, type SeedSummary } from './seed-file.js';
import { openStores } from './stores.js';

/** How often expired leases and windows are swept from PostgreSQL. */
const SWEEP_INTERVAL_MS = 60_000;
/**
 * After the service has answered everything, how long the framework may take to write those
 * answers before the remaining connections are cut (Koa writes a tick after the handler resolves).
 */
const WRITE_BOUND_MS = 2_000;

export interface RunningHost {
  url: string;
  service: SafetyService;
  server: Server;
  /** The operations listener's URL (`/metrics`, `/healthz`, `/readyz`), null when OPS_PORT is unset. */
  opsUrl: string | null;
  seeded: SeedSummary | null;
  /** Where the state lives, for the start-up log. */
  stores: string;
  /** The OFAC list in use, refreshed in the background (README "Operations"). */
  sanctions: HostSanctions;
  /** Graceful stop: refuse new work, let in-flight checks finish (up to the grace), release, close. */
  stop(reason: string): Promise<void>;
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
  const sanctions = createHostSanctions(config.ofac, logger);
  // The sanctions list age gauge reads the list in use: when it was last confirmed current.
  const observability = createObservability({ sanctionsListAsOf: () => sanctions.status().confirmedAt });
  const risk = createRiskProviders(
    { ...config.risk, ofacList: sanctions.list },
    { onCall: observability.onProviderCall },
  );
  if (risk.isErr()) {
    const field = risk.error.variable ?? risk.error.option;
    return err({ field, message: `${field}: ${risk.error.message}` });
  }

  let seed: SeedFile | null = null;
  if (config.seedFile !== null) {
    const loaded = await loadSeedFile(config.seedFile);
    if (loaded.isErr()) return err(loaded.error);
    seed = loaded.value;
  }

  const stores = await openStores(config.databaseUrl);
  if (stores.isErr()) return err(stores.error);
  const chain = createTronChainFactsProvider({
    fullNodeUrl: config.tronFullNodeUrl,
    solidityNodeUrl: config.tronSolidityUrl,
    ...(config.tronApiKey ? { apiKey: config.tronApiKey } : {}),
    ...(config.maxTransfers !== null ? { maxTransfers: config.maxTransfers } : {}),
    onCall: observability.onProviderCall,
    onKnownTokenDisagrees: ({ contract, known, chain: read }) =>
      logger.warn(
        { event: 'known_token_disagrees', contract, registry: known, chain: read },
        'the chain contradicts the token registry: that token is read from the chain like any other, and while its decimals differ its payments are LIMITED_DATA (TX_FACTS_DISAGREE)',
      ),
  });
  // The first check then finds its node connections open, and the registry tokens' metadata confirmed by
  // the chain (then every hour, in the background); best effort, bounded, never awaited.
  void chain.warmUp(AbortSignal.timeout(1000));
  await sanctions.start(stores.value.stores.sanctionsLists);
  const release = async () => {
    sanctions.stop();
    await chain.close();
    await stores.value.close();
  };
  const service = createSafetyService(
    observability.counted(stores.value.stores),
    { chain, risk: risk.value },
    {
      deadlineMs: config.requestDeadlineMs,
      idempotencyRetentionSeconds: config.idempotencyRetentionSeconds,
      apiDisabled: config.apiDisabled,
      onError: (error, { requestId, step }) =>
        logger.error({ request_id: requestId, step, err: error }, 'request failed inside the service'),
    },
  );

  let seeded: SeedSummary | null = null;
  if (seed) {
    const applied = await applySeed(service.admin, seed);
    if (applied.isErr()) {
      await release();
      return err(applied.error);
    }
    seeded = applied.value;
    for (const { field, stored, seed: wanted } of seeded.differences) {
      logger.warn(
        { seed_field: field, stored, seed: wanted },
        `seed file: ${field} differs from the stored state; the stored value is kept (change it with the admin CLI)`,
      );
    }
  }

  const handler = withRequestLog(withHostRoutes(service), logger, observability.requests(stores.value.stores.apiKeys));
  const portal = mountPortal(service, stores.value.stores, config, logger);
  const server = createHttpServer(handler, config.framework, config.http, portal);
  const responses = trackResponses(server);
  let listening;
  try {
    listening = await listen(server, config.port, config.host);
  } catch (e) {
    await release();
    return err({
      field: 'PORT',
      message: `PORT/HOST: cannot listen on ${config.host}:${config.port} (${(e as Error).message})`,
    });
  }

  let stopping: Promise<void> | null = null;
  const ops = await startOpsListener(config.ops, {
    registry: observability.metrics.registry,
    readiness: [
      { component: 'database', check: () => stores.value.ping().then(() => null) },
      { component: 'shutdown', check: async () => (stopping ? 'the host is shutting down' : null) },
    ],
  });
  if (ops.isErr()) {
    await stopAccepting(server);
    await release();
    return err(ops.error);
  }

  const sweeper = setInterval(() => {
    stores.value.sweep().catch((error: unknown) => logger.warn({ err: error }, 'store sweep failed'));
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();

  const stop = (reason: string) =>
    (stopping ??= (async () => {
      logger.info(
        { reason, in_flight: service.inFlight, grace_ms: config.shutdownGraceMs },
        'shutting down: no new connections',
      );
      clearInterval(sweeper);
      const closed = stopAccepting(server);
      // New requests on open connections get 503 api_disabled; in-flight checks finish or are aborted at the grace.
      await service.close({ timeoutMs: config.shutdownGraceMs });
      await responses.settled(WRITE_BOUND_MS);
      server.closeAllConnections();
      await closed;
      // Unknown (null) when the stores cannot say, e.g. the database is down: the stop goes on.
      const reserved = await reservedQuota(service).catch(() => null);
      await release();
      await ops.value?.close();
      logger.info({ in_flight: service.inFlight, reserved_after_drain: reserved }, 'stopped');
    })());

  const opsUrl = ops.value?.url ?? null;
  return ok({
    url: listening.url,
    opsUrl,
    service,
    server,
    seeded,
    stores: stores.value.description,
    sanctions,
    stop,
  });
}
