#!/usr/bin/env node
// The host process: configuration from the environment (README "Configuration"), then serve
// until SIGTERM/SIGINT, then a graceful stop. Exit codes: 0 stopped cleanly, 2 refused to start.
import { DEFAULT_SANCTIONS_LIST_MAX_AGE_DAYS } from '@tron-safety/core/sanctions';
import { simpleFlags } from './cli-flags.js';
import type { Logger } from 'pino';
import { parseConfig, type HostConfig } from './config.js';
import { startHost, type RunningHost } from './host.js';
import { createLogger, originOf } from './log.js';
import { describeSanctions } from './sanctions-refresh.js';
import { startupWarnings } from './startup-warnings.js';

const HELP = `Usage: tron-safety-host [--help | --version]

Serves the TRON transaction safety API (/v1) until SIGTERM or SIGINT, then stops gracefully.
Configured only through the environment (PORT, HOST, DATABASE_URL, SAFETY_SEED_FILE,
TRON_FULLNODE_URL, CHAINALYSIS_API_KEY, OPS_PORT, ...): see the README's Configuration table.
Exit codes: 0 stopped cleanly, 2 refused to start (the message names the variable), 64 wrong arguments.
`;

async function main(): Promise<number> {
  const flags = simpleFlags(process.argv.slice(2), HELP);
  if (flags) {
    (flags.code === 0 ? process.stdout : process.stderr).write(flags.out);
    return flags.code;
  }
  const parsed = parseConfig(process.env);
  if (parsed.isErr()) {
    console.error(`tron-safety host: refusing to start: ${parsed.error.message}`);
    return 2;
  }
  const config = parsed.value;
  const logger = createLogger(config.logLevel);
  const started = await startHost(config, logger);
  if (started.isErr()) {
    logger.fatal({ field: started.error.field }, `refusing to start: ${started.error.message}`);
    console.error(`tron-safety host: refusing to start: ${started.error.message}`);
    return 2;
  }
  const host = started.value;
  // Listen before announcing: a signal right after "listening" must still drain gracefully.
  const stopped = stopOnSignal(host);
  await announce(host, config, logger);

  await stopped;
  return 0;
}

/** Resolves once SIGTERM or SIGINT has stopped the host gracefully. */
function stopOnSignal(host: RunningHost): Promise<void> {
  return new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', onSignal).off('SIGINT', onSignal);
      void host.stop(signal).then(resolve);
    };
    process.on('SIGTERM', onSignal).on('SIGINT', onSignal);
  });
}

/** The start-up log: where the host listens and what it reads, then the configuration's warnings. */
async function announce(host: RunningHost, config: HostConfig, logger: Logger): Promise<void> {
  const sanctions = describeSanctions(
    host.sanctions.status(),
    config.risk.sanctionsListMaxAgeDays ?? DEFAULT_SANCTIONS_LIST_MAX_AGE_DAYS,
    config.ofac.url,
    { asOf: host.sanctionsAsOf() },
  );
  if (sanctions.past_limit)
    logger.warn(
      { sanctions },
      `sanctions list in use is past the ${sanctions.max_age_days}-day age limit: it proves no address clean until a refresh succeeds`,
    );
  logger.info(
    {
      url: host.url,
      framework: config.framework,
      stores: host.stores,
      tron_full_node: originOf(config.tronFullNodeUrl),
      tron_solidity_node: originOf(config.tronSolidityUrl),
      aml: config.risk.chainalysisApiKey ? 'chainalysis entity api' : 'not configured: AML unavailable in every result',
      sanctions: {
        ...sanctions,
        api: config.risk.chainalysisSanctionsApiKey ? 'chainalysis sanctions api' : 'none (lists only)',
      },
      // each difference was logged as a warning
      seeded: host.seeded && { ...host.seeded, differences: host.seeded.differences.length },
      api_disabled: config.apiDisabled,
      ops: host.opsUrl,
    },
    `listening on ${host.url}`,
  );
  const organizations = await host.service.admin.listOrganizations({ kind: 'operator' });
  for (const warning of startupWarnings(config, organizations.isOk() ? organizations.value.length : 0)) {
    logger.warn({ startup_warning: true }, warning);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error('tron-safety host: crashed', error);
    process.exitCode = 1;
  },
);
