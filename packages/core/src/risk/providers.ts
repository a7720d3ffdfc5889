import { err, ok, Result } from 'neverthrow';
import type { ProviderCallObserver } from '../chain/call-observer.js';
import { sameNetwork, TRON_MAINNET, type TronNetwork } from '../chain/network.js';
import { createNotConfiguredAmlProvider } from './aml-not-configured.js';
import { createChainalysisAmlProvider } from './chainalysis-entity.js';
import { createChainalysisSanctionsProvider, DEFAULT_SANCTIONS_API_MAX_ADDRESSES } from './chainalysis-sanctions.js';
import { createSanctionsScreen } from './sanctions-combine.js';
import {
  checkMaxAgeDays,
  createListSanctionsProvider,
  DEFAULT_SANCTIONS_LIST_MAX_AGE_DAYS,
  listsBesideOfac,
  loadSanctionsListFile,
  notAFullList,
  OFAC_TRON_LIST,
  sanctionsListsStatus,
  type NamedSanctionsList,
  type SanctionsList,
  type SanctionsListsStatus,
} from './sanctions-list.js';
import { integerWithin, nonnegativeInteger, positiveInteger } from './settings.js';
import {
  DEFAULT_RISK_CACHE_TTL_MS,
  DEFAULT_RISK_DEADLINE_MARGIN_MS,
  DEFAULT_RISK_TIMEOUT_MS,
  MAX_RISK_CACHE_TTL_MS,
  MAX_RISK_TIMEOUT_MS,
} from './shared-lookup.js';
import { publicUrl } from './public-url.js';
import type { AssetRef, RiskProviders } from './signals.js';
import {
  amlCoveredAssets,
  createTokenAuthenticityProvider,
  createTokenRegistry,
  loadTokenRegistryFile,
  type OfficialTokenData,
} from './token-registry.js';

export const DEFAULT_CHAINALYSIS_API_URL = 'https://api.chainalysis.com/api/risk';
export const DEFAULT_CHAINALYSIS_SANCTIONS_URL = 'https://public.chainalysis.com/api/v1';

/** Plain configuration of the risk providers (a host fills it from its environment). */
export interface RiskConfig {
  /** Chainalysis Entity API base. */
  chainalysisApiUrl?: string;
  /** Unset: no AML vendor, AML is reported unavailable. */
  chainalysisApiKey?: string | null;
  chainalysisSanctionsUrl?: string;
  /** Unset: sanctions come from the lists only. */
  chainalysisSanctionsApiKey?: string | null;
  /** Extra address lists screened with the bundled OFAC list (`# full-list` marks a full one). */
  sanctionsListFiles?: readonly string[];
  /**
   * Maximum age in days since the newest full list (the OFAC list in use, or a `# full-list` file) was
   * last confirmed current: past it, the lists answer `unavailable` unless they hit (default 2). A clean
   * sanctions API answer for every address still counts.
   */
  sanctionsListMaxAgeDays?: number;
  /**
   * The OFAC list in use, read at every screen (an `OfacRefresher` keeps it current); default: the bundled
   * snapshot, which is older than the default age limit, so refresh it (or give a current list file).
   */
  ofacList?: { current(): SanctionsList };
  /** The clock the lists' age is measured on (default `Date.now`; tests move it). */
  now?: () => number;
  /**
   * Addresses sent to the Chainalysis sanctions API per check (default 32); the rest are screened by
   * the lists only (see `createSanctionsScreen`).
   */
  chainalysisSanctionsMaxAddresses?: number;
  /** Tokens added to the official registry. */
  extraTokens?: readonly OfficialTokenData[];
  /** A JSON file of a deployment's own official tokens (`loadTokenRegistryFile`), added to the registry. */
  tokenRegistryFile?: string | null;
  /** Assets the AML vendor covers (default: TRX and every TRC20 of the registry, extensions included). */
  amlSupportedAssets?: readonly AssetRef[];
  /** Reuse of vendor answers (default 5 minutes; 0 = no cache; at most a day, `MAX_RISK_CACHE_TTL_MS`). */
  cacheTtlMs?: number;
  /** Each vendor call's timeout (default 4 s; at most 10 minutes, `MAX_RISK_TIMEOUT_MS`), always within the check deadline. */
  timeoutMs?: number;
  /** A vendor lookup gives up this long before the request deadline (default 500 ms; no variable). */
  deadlineMarginMs?: number;
  /**
   * The network of the chain provider beside these (default `TRON_MAINNET`). On another one the bundled
   * registry (mainnet's contracts and TRC10 ids, TRX) is left out: only `extraTokens` and the file's tokens
   * are official there, so a testnet token is never called a mainnet one. `createSafetyService` refuses a
   * chain provider of another network than this.
   */
  network?: TronNetwork;
}

/** A refused risk setting: the option, the variable `riskConfigFromEnv` reads it from, and what is wrong. */
export interface RiskConfigError {
  option: keyof RiskConfig;
  /** Null for options no variable sets (`extraTokens`, `amlSupportedAssets`, `deadlineMarginMs`). */
  variable: string | null;
  /** Without the option's or variable's name (a list file's error names the file and line). */
  message: string;
}

/** The environment variable of each option `riskConfigFromEnv` reads. */
export const RISK_CONFIG_VARIABLES = {
  chainalysisApiUrl: 'CHAINALYSIS_API_URL',
  chainalysisApiKey: 'CHAINALYSIS_API_KEY',
  chainalysisSanctionsUrl: 'CHAINALYSIS_SANCTIONS_URL',
  chainalysisSanctionsApiKey: 'CHAINALYSIS_SANCTIONS_API_KEY',
  chainalysisSanctionsMaxAddresses: 'CHAINALYSIS_SANCTIONS_MAX_ADDRESSES',
  sanctionsListFiles: 'SANCTIONS_LIST_FILES',
  sanctionsListMaxAgeDays: 'SANCTIONS_LIST_MAX_AGE_DAYS',
  tokenRegistryFile: 'TOKEN_REGISTRY_FILE',
  cacheTtlMs: 'RISK_CACHE_TTL_SECONDS',
  timeoutMs: 'RISK_TIMEOUT_MS',
} as const satisfies Partial<Record<keyof RiskConfig, string>>;

function configError(option: keyof RiskConfig, message: string): RiskConfigError {
  const variables: Partial<Record<keyof RiskConfig, string>> = RISK_CONFIG_VARIABLES;
  return { option, variable: variables[option] ?? null, message };
}

/** What a host hooks into the risk providers beside their configuration. */
export interface RiskHooks {
  /** Sees every vendor call and how it ended (metrics, logs). */
  onCall?: ProviderCallObserver;
}

/** The providers `createRiskProviders` builds, with a read-only view of their data for an operator. */
export interface ConfiguredRiskProviders extends RiskProviders {
  /**
   * The sanctions lists screened (the OFAC list in use as `ofac`, each list file by its path), their dates
   * and whether the screen is past `sanctionsListMaxAgeDays`, by the screener's own rule; no I/O.
   */
  sanctionsStatus(): SanctionsListsStatus;
}

/** Builds the providers; invalid lists, tokens or numbers are errors here, at load, not during checks. */
export function createRiskProviders(
  config: RiskConfig = {},
  hooks: RiskHooks = {},
): Result<ConfiguredRiskProviders, RiskConfigError> {
  const settings = checkedSettings(config);
  if (settings.isErr()) return err(settings.error);
  const files = sanctionsListFiles(config);
  if (files.isErr()) return err(files.error);
  const { ttlMs, timeoutMs, deadlineMarginMs } = settings.value;
  const vendorCalls = { ttlMs, timeoutMs, deadlineMarginMs, onCall: hooks.onCall };
  const lists = listsBesideOfac(
    ofacListOf(config),
    files.value.map((file) => file.list),
  );
  const names = ['ofac', ...files.value.map((file) => file.name)];
  const named = (): NamedSanctionsList[] => lists().map((list, i) => ({ name: names[i]!, list }));
  const sanctions = sanctionsScreen(config, settings.value, lists, vendorCalls);
  const registry = tokenRegistryOf(config);
  if (registry.isErr()) return err(registry.error);

  const aml = config.chainalysisApiKey
    ? createChainalysisAmlProvider({
        baseUrl: settings.value.entityUrl,
        apiKey: config.chainalysisApiKey,
        ...vendorCalls,
        supportedAssets: config.amlSupportedAssets ?? amlCoveredAssets(registry.value),
      })
    : createNotConfiguredAmlProvider();

  const network = config.network ?? TRON_MAINNET;
  const now = config.now ?? Date.now;
  return ok({
    sanctions,
    aml,
    tokens: createTokenAuthenticityProvider(registry.value),
    network,
    sanctionsStatus: () => sanctionsListsStatus(named(), settings.value.maxAgeDays, now()),
  });
}

const checked = <T>(option: keyof RiskConfig, result: Result<T, string>): Result<T, RiskConfigError> =>
  result.mapErr((message) => configError(option, message));

type RiskSettings = ReturnType<typeof checkedSettings> extends Result<infer S, unknown> ? S : never;

/** The numbers and URLs of the configuration, defaulted and checked. */
function checkedSettings(config: RiskConfig) {
  const settings = Result.combine([
    checked('cacheTtlMs', integerWithin(0, MAX_RISK_CACHE_TTL_MS)(config.cacheTtlMs ?? DEFAULT_RISK_CACHE_TTL_MS)),
    checked('timeoutMs', integerWithin(1, MAX_RISK_TIMEOUT_MS)(config.timeoutMs ?? DEFAULT_RISK_TIMEOUT_MS)),
    checked('deadlineMarginMs', nonnegativeInteger(config.deadlineMarginMs ?? DEFAULT_RISK_DEADLINE_MARGIN_MS)),
    checked(
      'chainalysisSanctionsMaxAddresses',
      positiveInteger(config.chainalysisSanctionsMaxAddresses ?? DEFAULT_SANCTIONS_API_MAX_ADDRESSES),
    ),
  ]);
  if (settings.isErr()) return err(settings.error);
  const [ttlMs, timeoutMs, deadlineMarginMs, maxAddresses] = settings.value;
  const maxAgeDays = checked(
    'sanctionsListMaxAgeDays',
    checkMaxAgeDays(config.sanctionsListMaxAgeDays ?? DEFAULT_SANCTIONS_LIST_MAX_AGE_DAYS),
  );
  if (maxAgeDays.isErr()) return err(maxAgeDays.error);
  const entityUrl = checked('chainalysisApiUrl', httpUrl(config.chainalysisApiUrl ?? DEFAULT_CHAINALYSIS_API_URL));
  if (entityUrl.isErr()) return err(entityUrl.error);
  const sanctionsUrl = checked(
    'chainalysisSanctionsUrl',
    httpUrl(config.chainalysisSanctionsUrl ?? DEFAULT_CHAINALYSIS_SANCTIONS_URL),
  );
  if (sanctionsUrl.isErr()) return err(sanctionsUrl.error);
  return ok({
    ttlMs,
    timeoutMs,
    deadlineMarginMs,
    maxAddresses,
    maxAgeDays: maxAgeDays.value,
    entityUrl: entityUrl.value,
    sanctionsUrl: sanctionsUrl.value,
  });
}

/** The deployment's own sanctions list files, loaded, checked (a full list against the OFAC list in use) and named by their paths. */
function sanctionsListFiles(config: RiskConfig): Result<NamedSanctionsList[], RiskConfigError> {
  const files: NamedSanctionsList[] = [];
  const loadedAt = new Date((config.now ?? Date.now)());
  const ofac = ofacListOf(config).current();
  for (const path of config.sanctionsListFiles ?? []) {
    const list = checked('sanctionsListFiles', loadSanctionsListFile(path, loadedAt));
    if (list.isErr()) return err(list.error);
    const notFull = list.value.full ? notAFullList(list.value, ofac) : null;
    if (notFull !== null) return err(configError('sanctionsListFiles', `${path}: ${notFull}`));
    files.push({ name: path, list: list.value });
  }
  return ok(files);
}

const ofacListOf = (config: RiskConfig) => config.ofacList ?? { current: () => OFAC_TRON_LIST };

/** The lists (OFAC's in use and the files), with Chainalysis' sanctions API beside them when it has a key. */
function sanctionsScreen(
  config: RiskConfig,
  settings: RiskSettings,
  lists: () => readonly SanctionsList[],
  vendorCalls: { ttlMs: number; timeoutMs: number; deadlineMarginMs: number; onCall: RiskHooks['onCall'] },
) {
  const { maxAddresses } = settings;
  return createSanctionsScreen(
    createListSanctionsProvider(lists, {
      maxAgeDays: settings.maxAgeDays,
      ...(config.now ? { now: config.now } : {}),
    }),
    config.chainalysisSanctionsApiKey
      ? {
          provider: createChainalysisSanctionsProvider({
            baseUrl: settings.sanctionsUrl,
            apiKey: config.chainalysisSanctionsApiKey,
            maxAddresses,
            ...vendorCalls,
          }),
          maxAddresses,
        }
      : null,
  );
}

/** The official tokens: the bundled ones (on mainnet), the configuration's and the registry file's. */
function tokenRegistryOf(config: RiskConfig) {
  const bundled = sameNetwork(config.network ?? TRON_MAINNET, TRON_MAINNET);
  const file = config.tokenRegistryFile;
  const fileTokens = file ? checked('tokenRegistryFile', loadTokenRegistryFile(file, { bundled })) : ok([]);
  if (fileTokens.isErr()) return err(fileTokens.error);
  const extra = [...(config.extraTokens ?? []), ...fileTokens.value];
  return checked('extraTokens', createTokenRegistry(extra, { bundled }));
}

/**
 * `RiskConfig` from the environment variables of `RISK_CONFIG_VARIABLES` (SANCTIONS_LIST_FILES:
 * comma-separated paths, at least one when set; RISK_CACHE_TTL_SECONDS in seconds). Empty values count as unset.
 */
export function riskConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Result<RiskConfig, RiskConfigError> {
  const value = (option: keyof typeof RISK_CONFIG_VARIABLES): string | undefined =>
    env[RISK_CONFIG_VARIABLES[option]]?.trim() || undefined;
  const integer = (option: keyof typeof RISK_CONFIG_VARIABLES): Result<number | undefined, RiskConfigError> => {
    const raw = value(option);
    if (raw === undefined) return ok(undefined);
    return /^[0-9]{1,10}$/.test(raw)
      ? ok(Number(raw))
      : err(configError(option, `must be a nonnegative integer, got "${raw}"`));
  };
  const numbers = Result.combine([
    integer('cacheTtlMs'),
    integer('timeoutMs'),
    integer('sanctionsListMaxAgeDays'),
    integer('chainalysisSanctionsMaxAddresses'),
  ]);
  if (numbers.isErr()) return err(numbers.error);
  const [ttlSeconds, timeoutMs, maxAgeDays, maxAddresses] = numbers.value;
  // In the variable's own unit: createRiskProviders checks milliseconds.
  const maxTtlSeconds = MAX_RISK_CACHE_TTL_MS / 1000;
  if (ttlSeconds !== undefined && ttlSeconds > maxTtlSeconds)
    return err(configError('cacheTtlMs', `must be an integer from 0 to ${maxTtlSeconds}, got "${ttlSeconds}"`));
  const files = value('sanctionsListFiles')
    ?.split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  // Set, but naming no file (` , `): a path lost in editing, not "no lists".
  if (files?.length === 0) return err(configError('sanctionsListFiles', 'is set but names no file'));
  return ok({
    chainalysisApiUrl: value('chainalysisApiUrl') ?? DEFAULT_CHAINALYSIS_API_URL,
    chainalysisApiKey: value('chainalysisApiKey') ?? null,
    chainalysisSanctionsUrl: value('chainalysisSanctionsUrl') ?? DEFAULT_CHAINALYSIS_SANCTIONS_URL,
    chainalysisSanctionsApiKey: value('chainalysisSanctionsApiKey') ?? null,
    sanctionsListFiles: files ?? [],
    tokenRegistryFile: value('tokenRegistryFile') ?? null,
    ...(ttlSeconds !== undefined ? { cacheTtlMs: ttlSeconds * 1000 } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(maxAgeDays !== undefined ? { sanctionsListMaxAgeDays: maxAgeDays } : {}),
    ...(maxAddresses !== undefined ? { chainalysisSanctionsMaxAddresses: maxAddresses } : {}),
  });
}

function httpUrl(value: string): Result<string, string> {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return ok(value);
  } catch {
    // reported below
  }
  return err(`must be an http(s) URL, got "${publicUrl(value)}"`);
}
