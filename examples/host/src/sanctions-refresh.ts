import type { SanctionsList, SanctionsListStore } from '@tron-safety/core';
import { publicUrl } from '@tron-safety/core/internal';
import {
  DEFAULT_OFAC_SDN_URL,
  OfacRefresher,
  type OfacListStatus,
  type RefreshFailure,
  type RefreshOutcome,
} from '@tron-safety/core/sanctions';
import type { Result } from 'neverthrow';
import type { Logger } from 'pino';

/** OFAC_SDN_URL and OFAC_REFRESH_SECONDS (README "Configuration"). */
export interface OfacHostConfig {
  /** http(s) or file: URL of OFAC's sdn.xml / sdn_advanced.xml; null = `off` (no downloads). */
  url: string | null;
  refreshSeconds: number;
}

/** What the host's configuration reader offers (see `Reader` in config.ts). */
interface ConfigReader {
  optionalText(name: string): string | null;
  integer(name: string, fallback: number, min: number, max: number): number;
  fail<T>(field: string, message: string, placeholder: T): T;
}

export function readOfacConfig(read: ConfigReader): OfacHostConfig {
  const raw = read.optionalText('OFAC_SDN_URL') ?? DEFAULT_OFAC_SDN_URL;
  const refreshSeconds = read.integer('OFAC_REFRESH_SECONDS', 3600, 1, 7 * 86_400);
  if (raw.toLowerCase() === 'off') return { url: null, refreshSeconds };
  try {
    if (['http:', 'https:', 'file:'].includes(new URL(raw).protocol)) return { url: raw, refreshSeconds };
  } catch {
    // reported below
  }
  // Shown without its user-info or query: a mirror's URL may carry a token.
  return read.fail('OFAC_SDN_URL', `must be an http(s) or file: URL, or off; got '${publicUrl(raw)}'`, {
    url: null,
    refreshSeconds,
  });
}

/** Other hosts' refreshes and operators' loads reach this host within this long (or the refresh interval, if shorter). */
const SYNC_INTERVAL_MS = 60_000;
const HOUR_MS = 3_600_000;

/** The sanctions list of one host: screened by the risk providers, refreshed and synced on a schedule. */
export interface HostSanctions {
  /** For `createRiskProviders({ ofacList })`: the list in use (the bundled snapshot until a stored or downloaded one). */
  list: { current(): SanctionsList };
  status(): OfacListStatus;
  /** Adopts the stored list, then refreshes in the background and on schedule. */
  start(store: SanctionsListStore): Promise<void>;
  /** Settles when the refresh started by `start` has (null without a URL). */
  firstRefresh(): Promise<void>;
  stop(): void;
}

/** One structured line per refresh: why a list was kept, or what replaced it. */
function logRefresh(logger: Logger, result: Result<RefreshOutcome, RefreshFailure>, status: OfacListStatus): void {
  const list = {
    list_source: status.source,
    addresses: status.addresses,
    published_at: status.publishedAt.toISOString(),
    confirmed_at: status.confirmedAt.toISOString(),
  };
  if (result.isOk())
    logger.info({ event: 'sanctions_refresh', outcome: result.value.kind, ...list }, 'sanctions list refreshed');
  else
    logger.warn(
      {
        event: 'sanctions_refresh_refused',
        kind: result.error.kind,
        reason: result.error.reason,
        refused: status.counts[result.error.kind],
        ...list,
      },
      `sanctions refresh refused, screening with the last good list: ${result.error.reason}`,
    );
}

export function createHostSanctions(config: OfacHostConfig, logger: Logger): HostSanctions {
  let refresher: OfacRefresher | null = null;
  const timers: NodeJS.Timeout[] = [];
  const stopped = new AbortController();
  let running: Promise<void> | null = null;
  let first: Promise<void> = Promise.resolve();

  const refresh = () => {
    if (!refresher || config.url === null || running) return running ?? Promise.resolve();
    const r = refresher;
    running = r
      .refresh(stopped.signal)
      .then((result) => logRefresh(logger, result, r.status()))
      // Outside failures are results; a rejection is a bug, logged rather than left unhandled.
      .catch((error: unknown) =>
        logger.error({ event: 'sanctions_refresh_failed', err: error }, 'sanctions list: the refresh failed on a bug'),
      )
      .finally(() => (running = null));
    return running;
  };
  const sync = () =>
    refresher
      ?.sync()
      .then((outcome) => {
        if (outcome === 'adopted')
          logger.info(
            { event: 'sanctions_sync', list_source: refresher!.status().source },
            'sanctions list: adopted the stored list',
          );
      })
      .catch((error: unknown) =>
        logger.warn({ event: 'sanctions_sync_failed', err: error }, 'sanctions list: reading the stored list failed'),
      );
  const every = (ms: number, work: () => unknown) => {
    const timer = setInterval(work, ms);
    timer.unref();
    timers.push(timer);
  };

  return {
    list: { current: () => (refresher ?? fallback).current() },
    status: () => (refresher ?? fallback).status(),
    async start(store) {
      refresher = new OfacRefresher({ store, url: config.url });
      await sync();
      every(Math.min(SYNC_INTERVAL_MS, config.refreshSeconds * 1000), sync);
      if (config.url === null) return;
      first = refresh();
      every(config.refreshSeconds * 1000, refresh);
    },
    firstRefresh: () => first,
    stop() {
      for (const timer of timers.splice(0)) clearInterval(timer);
      stopped.abort();
    },
  };
}

/** Before `start`: the bundled snapshot (a store-less refresher never downloads or stores). */
const fallback = new OfacRefresher({
  store: {
    currentHeader: async () => null,
    currentList: async () => null,
    replaceList: async () => false,
    confirmList: async () => false,
    recordFailure: async () => {},
    lastFailure: async () => null,
  },
  url: null,
});

/**
 * For the start-up line: the list in use and the screen's age (`as_of`: the list's confirmation, or the date
 * of a newer `# full-list` file, `RunningHost.sanctionsAsOf`); `past_limit` when it can no longer prove an address clean.
 */
export function describeSanctions(
  status: OfacListStatus,
  maxAgeDays: number,
  url: string | null,
  { asOf = status.confirmedAt, now = Date.now() }: { asOf?: Date; now?: number } = {},
) {
  return {
    list: status.source,
    addresses: status.addresses,
    published_at: status.publishedAt.toISOString(),
    confirmed_at: status.confirmedAt.toISOString(),
    as_of: asOf.toISOString(),
    age_hours: Math.floor((now - asOf.getTime()) / HOUR_MS),
    max_age_days: maxAgeDays,
    past_limit: now - asOf.getTime() > maxAgeDays * 24 * HOUR_MS,
    refresh: url === null ? 'off' : publicUrl(url),
  };
}
