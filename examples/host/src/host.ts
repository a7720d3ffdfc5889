import type { Server } from 'node:http';
import {
  createRiskProviders,
  createSafetyService,
  createTronChainFactsProvider,
  type ConfiguredRiskProviders,
  type KnownToken,
  type NodeNetwork,
  type RiskConfig,
  type SafetyService,
  type TronChainFactsProvider,
} from '@tron-safety/core';
import { err, ok, type Result } from 'neverthrow';
import type { Logger } from 'pino';
import { tronNodes, type ConfigError, type HostConfig } from './config.js';
import { createHttpServer, listen, stopAccepting, trackResponses, type ResponseTracker } from './http-app.js';
import { withRequestLog } from './log.js';
import { dataReadiness, type DataStatus } from './ops/data-health.js';
import { createObservability, type Observability } from './ops/observability.js';
import { hostRule } from './host-names.js';
import { startOpsListener } from './ops/server.js';
import { mountPortal } from './portal-mount.js';
import { withHostRoutes } from './routes.js';
import { createHostSanctions, type HostSanctions } from './sanctions-refresh.js';
import { applySeed, loadSeedFile, type SeedFile, type SeedSummary } from './seed-file.js';
import { withSeedWriteBack, type SeedWriteBack } from './seed-write-back.js';
import { openStores, type HostStores } from './stores.js';
import { startSweeper, type Sweeper } from './sweeper.js';
import { hostTokens } from './token-registry-file.js';

/** How often expired leases, windows, sessions and invitations are swept (a tick while a sweep still runs is skipped). */
const SWEEP_INTERVAL_MS = 60_000;
/**
 * After the service has answered everything, how long the framework may take to write those
 * answers before the remaining connections are cut (Koa writes a tick after the handler resolves).
 */
const WRITE_BOUND_MS = 2_000;
/** How long the start waits for the TRON nodes to say which network they serve (a node that cannot is no reason not to start). */
const NETWORK_CHECK_MS = 3_000;

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
  /** The date the sanctions screen is as of: the OFAC list's last confirmation, or a newer `# full-list` file's. */
  sanctionsAsOf(): Date;
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
  const observability = createObservability();
  const tokens = hostTokens(config.risk);
  if (tokens.isErr()) return err(tokens.error);
  for (const warning of tokens.value.warnings) logger.warn({ event: 'token_registry_file_warning' }, warning);
  const risk = hostRiskProviders(tokens.value.risk, sanctions, observability);
  if (risk.isErr()) return err(risk.error);
  const seed = config.seedFile === null ? ok(null) : await loadSeedFile(config.seedFile);
  if (seed.isErr()) return err(seed.error);

  const stores = await openStores(config.databaseUrl, { seedFile: config.seedFile !== null });
  if (stores.isErr()) return err(stores.error);
  const chain = hostChainProvider(config, tokens.value.knownTokens, observability, logger);
  const data: DataStatus = { chain: () => chain.status(), sanctions: () => risk.value.sanctionsStatus() };
  observability.watch(data);
  // The first check then finds its node connections open, and the registry tokens' metadata confirmed by
  // the chain (then every hour, in the background); best effort, bounded, never awaited.
  void chain.warmUp(AbortSignal.timeout(1000));
  const network = await checkChainNetwork(chain, config, logger);
  if (network.isErr()) {
    await chain.close();
    await stores.value.close();
    return err(network.error);
  }
  await sanctions.start(stores.value.stores.sanctionsLists);
  const release = async () => {
    sanctions.stop();
    await chain.close();
    await stores.value.close();
  };
  // Memory mode with a seed file: the portal's key and member changes are kept in the file.
  const writeBack = withSeedWriteBack(observability.counted(stores.value.stores), {
    kind: stores.value.kind,
    seedFile: config.seedFile,
  });
  const service = createSafetyService(
    writeBack.stores,
    { chain, risk: risk.value },
    {
      deadlineMs: config.requestDeadlineMs,
      idempotencyRetentionSeconds: config.idempotencyRetentionSeconds,
      apiDisabled: config.apiDisabled,
      onError: (error, { requestId, step }) =>
        logger.error({ request_id: requestId, step, err: error }, 'request failed inside the service'),
    },
  );

  const seeded = seed.value ? await applyHostSeed(service, seed.value, logger) : ok(null);
  if (seeded.isErr()) {
    await release();
    return err(seeded.error);
  }
  const armed = armWriteBack(stores.value, writeBack);
  const serving = await serve({ config, logger, service, stores: armed, observability, data, release });
  if (serving.isErr()) return err(serving.error);
  return ok({
    ...serving.value,
    service,
    seeded: seeded.value,
    stores: stores.value.description,
    sanctions,
    sanctionsAsOf: () => risk.value.sanctionsStatus().asOf,
  });
}

/**
 * Arms the write-back (the seed file is loaded) and answers the stores to serve on, its sweep beside
 * theirs: with a seed file, invitations that expired unaccepted leave the file and memory together.
 */
function armWriteBack(stores: HostStores, writeBack: SeedWriteBack): HostStores {
  writeBack.arm();
  return { ...stores, sweep: async () => void (await Promise.all([stores.sweep(), writeBack.sweep(new Date())])) };
}

/** The risk providers of the configuration, reading the host's OFAC list; a wrong option names its variable. */
function hostRiskProviders(
  config: RiskConfig,
  sanctions: HostSanctions,
  observability: Observability,
): Result<ConfiguredRiskProviders, ConfigError> {
  const risk = createRiskProviders({ ...config, ofacList: sanctions.list }, { onCall: observability.onProviderCall });
  if (risk.isOk()) return ok(risk.value);
  const field = risk.error.variable ?? risk.error.option;
  return err({ field, message: `${field}: ${risk.error.message}` });
}

function hostChainProvider(
  config: HostConfig,
  knownTokens: readonly KnownToken[],
  observability: Observability,
  logger: Logger,
) {
  return createTronChainFactsProvider({
    knownTokens,
    ...tronNodes(config),
    ...(config.maxTransfers !== null ? { maxTransfers: config.maxTransfers } : {}),
    onCall: observability.onProviderCall,
    onKnownTokenDisagrees: ({ contract, known, chain: read }) =>
      logger.warn(
        { event: 'known_token_disagrees', contract, registry: known, chain: read },
        'the chain contradicts the token registry: that token is read from the chain like any other, and while its decimals (or a file token symbol) differ its payments are never CLEAR (TX_FACTS_DISAGREE, or TOKEN_FAKE when the chain calls it an official token)',
      ),
    onWrongNetwork: ({ node, expected, found, detail }) =>
      logger.error(
        { event: 'tron_node_wrong_network', node, expected, found },
        `${detail}: its answers are not used (the check is LIMITED_DATA, or 503 when neither node serves ${expected}); point ${nodeVariable(config, node)} at a ${expected} node and restart`,
      ),
    onConfirmationError: (error) =>
      logger.error(
        { event: 'known_token_confirmation_failed', err: error },
        'a bug in confirming a registry token against the chain: it keeps its seed and the date of its last confirmation (the registry date until the first)',
      ),
  });
}

/** The variable that names a node's URL (the solidity node's is the full node's unless set apart). */
const nodeVariable = (config: HostConfig, node: NodeNetwork['node']) =>
  node === 'solidity' && config.tronSolidityUrl !== config.tronFullNodeUrl ? 'TRON_SOLIDITY_URL' : 'TRON_FULLNODE_URL';

/**
 * Start-up: which network each TRON node serves, logged. A node that serves another network refuses
 * the start (a copied staging URL); one that cannot say yet (down, slow) is a warning: checks establish
 * it later and do not use its answers until then.
 */
async function checkChainNetwork(
  chain: TronChainFactsProvider,
  config: HostConfig,
  logger: Logger,
): Promise<Result<void, ConfigError>> {
  const networks = await chain.verifyNetwork(AbortSignal.timeout(NETWORK_CHECK_MS));
  for (const network of [networks.full, networks.solidity]) {
    const variable = nodeVariable(config, network.node);
    if (network.status === 'wrong_network')
      return err({ field: variable, message: `${variable}: ${network.mismatch.detail}` });
    if (network.status === 'unverified') {
      logger.warn(
        { event: 'tron_node_network_unverified', node: network.node },
        `${network.detail}: its answers are not used until a check establishes it (${variable})`,
      );
    } else {
      logger.info(
        { event: 'tron_node_network', node: network.node, network: network.network, via: network.via },
        `the ${network.node} node serves TRON ${network.network} (${variable})`,
      );
    }
  }
  return ok(undefined);
}

/** Applies the seed file; where it differs from the stored state, the stored value is kept and the difference logged. */
async function applyHostSeed(
  service: SafetyService,
  seed: SeedFile,
  logger: Logger,
): Promise<Result<SeedSummary, ConfigError>> {
  const applied = await applySeed(service.admin, seed);
  if (applied.isErr()) return err(applied.error);
  for (const { field, stored, seed: wanted } of applied.value.differences) {
    logger.warn(
      { seed_field: field, stored, seed: wanted },
      `seed file: ${field} differs from the stored state; the stored value is kept (change it with the admin CLI)`,
    );
  }
  return ok(applied.value);
}

interface Serving {
  config: HostConfig;
  logger: Logger;
  service: SafetyService;
  stores: HostStores;
  observability: Observability;
  /** The providers' data, for `/readyz`. */
  data: DataStatus;
  /** Stops the sanctions refresh and closes the chain provider and the stores. */
  release(): Promise<void>;
}

/**
 * The API, the portal and the operations listener listening, the stores swept; on a start error
 * everything started so far is released.
 */
async function serve(
  s: Serving,
): Promise<Result<Pick<RunningHost, 'url' | 'opsUrl' | 'server' | 'stop'>, ConfigError>> {
  const { config, logger, service, stores, observability, data, release } = s;
  const handler = withRequestLog(withHostRoutes(service), logger, observability.requests(stores.stores.apiKeys));
  let listening: { url: string } | undefined;
  const portal = mountPortal(service, stores.stores, logger, { config, listeningUrl: () => listening?.url ?? null });
  const server = createHttpServer(handler, config.framework, config.http, portal);
  const responses = trackResponses(server);
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
  const health = dataReadiness(data);
  const ops = await startOpsListener(config.ops, {
    registry: observability.metrics.registry,
    readiness: [
      { component: 'database', check: () => stores.ping().then(() => null) },
      { component: 'shutdown', check: async () => (stopping ? 'the host is shutting down' : null) },
      ...health.failing,
    ],
    degraded: health.degraded,
    acceptsHost: hostRule(config.ops.host, config.portalPublicUrl),
  });
  if (ops.isErr()) {
    await stopAccepting(server);
    await release();
    return err(ops.error);
  }

  const sweeper = startSweeper(
    () => stores.sweep(),
    SWEEP_INTERVAL_MS,
    (error) => logger.warn({ err: error }, 'store sweep failed'),
  );

  const drain = gracefulStop({ ...s, server, responses, sweeper, ops: ops.value });
  const stop = (reason: string) => (stopping ??= drain(reason));
  return ok({ url: listening.url, opsUrl: ops.value?.url ?? null, server, stop });
}

/**
 * The graceful stop, once: refuse new connections, let the service answer or abort in-flight
 * checks within the grace, let the framework write those answers, then release everything.
 */
function gracefulStop(
  s: Serving & {
    server: Server;
    responses: ResponseTracker;
    sweeper: Sweeper;
    ops: { close(): Promise<void> } | null;
  },
) {
  const { config, logger, service, server, responses, sweeper, ops, release } = s;
  return async (reason: string) => {
    logger.info(
      { reason, in_flight: service.inFlight, grace_ms: config.shutdownGraceMs },
      'shutting down: no new connections',
    );
    sweeper.stop();
    const closed = stopAccepting(server);
    // New requests on open connections get 503 api_disabled; in-flight checks finish or are aborted at the grace.
    await service.close({ timeoutMs: config.shutdownGraceMs });
    await responses.settled(WRITE_BOUND_MS);
    server.closeAllConnections();
    await closed;
    // Unknown (null) when the stores cannot say, e.g. the database is down: the stop goes on.
    const reserved = await reservedQuota(service).catch(() => null);
    await release();
    await ops?.close();
    logger.info({ in_flight: service.inFlight, reserved_after_drain: reserved }, 'stopped');
  };
}
