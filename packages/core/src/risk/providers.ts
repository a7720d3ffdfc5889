import { err, ok, Result } from 'neverthrow';
import { createNotConfiguredAmlProvider } from './aml-not-configured.js';
import { createChainalysisAmlProvider } from './chainalysis-entity.js';
import { createChainalysisSanctionsProvider, DEFAULT_SANCTIONS_API_MAX_ADDRESSES } from './chainalysis-sanctions.js';
import { combineSanctionsProviders } from './sanctions-combine.js';
import { createListSanctionsProvider, loadSanctionsListFile, OFAC_TRON_LIST, type SanctionsList } from './sanctions-list.js';
import { DEFAULT_RISK_CACHE_TTL_MS, DEFAULT_RISK_TIMEOUT_MS } from './shared-lookup.js';
import type { AssetRef, RiskProviders, SanctionsProvider } from './signals.js';
import { amlCoveredAssets, createTokenAuthenticityProvider, createTokenRegistry, type OfficialTokenData } from './token-registry.js';

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
  /** Extra address lists screened with the bundled OFAC list. */
  sanctionsListFiles?: readonly string[];
  /**
   * Oldest acceptable list date, in days: past it, the lists answer `unavailable` unless they hit
   * (default: no limit, since the bundled list is only as new as its last regeneration).
   */
  sanctionsListMaxAgeDays?: number | null;
  /** Addresses sent to the Chainalysis sanctions API per check (default 32); the rest make it unavailable. */
  chainalysisSanctionsMaxAddresses?: number;
  /** Tokens added to the official registry. */
  extraTokens?: readonly OfficialTokenData[];
  /** Assets the AML vendor covers (default: TRX and every TRC20 of the registry, extensions included). */
  amlSupportedAssets?: readonly AssetRef[];
  /** Reuse of vendor answers (default 5 minutes; 0 = no cache). */
  cacheTtlMs?: number;
  /** Each vendor call's timeout (default 4 s), always within the check deadline. */
  timeoutMs?: number;
}

/** Builds the providers; invalid lists, tokens or numbers are errors here, at load, not during checks. */
export function createRiskProviders(config: RiskConfig = {}): Result<RiskProviders, string> {
  const ttlMs = config.cacheTtlMs ?? DEFAULT_RISK_CACHE_TTL_MS;
  const timeoutMs = config.timeoutMs ?? DEFAULT_RISK_TIMEOUT_MS;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 0) return err(`cacheTtlMs must be a nonnegative integer, got ${ttlMs}`);
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) return err(`timeoutMs must be a positive integer, got ${timeoutMs}`);
  const maxAgeDays = config.sanctionsListMaxAgeDays ?? null;
  if (maxAgeDays !== null && !(Number.isSafeInteger(maxAgeDays) && maxAgeDays > 0)) {
    return err(`sanctionsListMaxAgeDays must be a positive integer, got ${maxAgeDays}`);
  }
  const maxAddresses = config.chainalysisSanctionsMaxAddresses ?? DEFAULT_SANCTIONS_API_MAX_ADDRESSES;
  if (!Number.isSafeInteger(maxAddresses) || maxAddresses < 1) {
    return err(`chainalysisSanctionsMaxAddresses must be a positive integer, got ${maxAddresses}`);
  }
  const entityUrl = httpUrl('chainalysisApiUrl', config.chainalysisApiUrl ?? DEFAULT_CHAINALYSIS_API_URL);
  const sanctionsUrl = httpUrl('chainalysisSanctionsUrl', config.chainalysisSanctionsUrl ?? DEFAULT_CHAINALYSIS_SANCTIONS_URL);
  if (entityUrl.isErr()) return err(entityUrl.error);
  if (sanctionsUrl.isErr()) return err(sanctionsUrl.error);

  const lists: SanctionsList[] = [OFAC_TRON_LIST];
  for (const path of config.sanctionsListFiles ?? []) {
    const list = loadSanctionsListFile(path);
    if (list.isErr()) return err(list.error);
    lists.push(list.value);
  }
  const sanctions: SanctionsProvider[] = [createListSanctionsProvider(lists, { maxAgeDays })];
  if (config.chainalysisSanctionsApiKey) {
    sanctions.push(
      createChainalysisSanctionsProvider({
        baseUrl: sanctionsUrl.value,
        apiKey: config.chainalysisSanctionsApiKey,
        ttlMs,
        timeoutMs,
        maxAddresses,
      }),
    );
  }

  const registry = createTokenRegistry(config.extraTokens ?? []);
  if (registry.isErr()) return err(registry.error);

  const aml = config.chainalysisApiKey
    ? createChainalysisAmlProvider({
        baseUrl: entityUrl.value,
        apiKey: config.chainalysisApiKey,
        ttlMs,
        timeoutMs,
        supportedAssets: config.amlSupportedAssets ?? amlCoveredAssets(registry.value),
      })
    : createNotConfiguredAmlProvider();

  return ok({
    sanctions: sanctions.length === 1 ? sanctions[0]! : combineSanctionsProviders(sanctions),
    aml,
    tokens: createTokenAuthenticityProvider(registry.value),
  });
}

/**
 * `RiskConfig` from environment variables: CHAINALYSIS_API_URL, CHAINALYSIS_API_KEY,
 * CHAINALYSIS_SANCTIONS_URL, CHAINALYSIS_SANCTIONS_API_KEY, CHAINALYSIS_SANCTIONS_MAX_ADDRESSES,
 * SANCTIONS_LIST_FILES (comma-separated paths), SANCTIONS_LIST_MAX_AGE_DAYS, RISK_CACHE_TTL_SECONDS,
 * RISK_TIMEOUT_MS. Empty values count as unset.
 */
export function riskConfigFromEnv(env: Readonly<Record<string, string | undefined>>): Result<RiskConfig, string> {
  const value = (name: string): string | undefined => env[name]?.trim() || undefined;
  const integer = (name: string): Result<number | undefined, string> => {
    const raw = value(name);
    if (raw === undefined) return ok(undefined);
    return /^[0-9]{1,10}$/.test(raw) ? ok(Number(raw)) : err(`${name} must be a nonnegative integer, got "${raw}"`);
  };
  const numbers = Result.combine([
    integer('RISK_CACHE_TTL_SECONDS'),
    integer('RISK_TIMEOUT_MS'),
    integer('SANCTIONS_LIST_MAX_AGE_DAYS'),
    integer('CHAINALYSIS_SANCTIONS_MAX_ADDRESSES'),
  ]);
  if (numbers.isErr()) return err(numbers.error);
  const [ttlSeconds, timeoutMs, maxAgeDays, maxAddresses] = numbers.value;
  const files = value('SANCTIONS_LIST_FILES')?.split(',').map((f) => f.trim()).filter((f) => f !== '');
  return ok({
    chainalysisApiUrl: value('CHAINALYSIS_API_URL') ?? DEFAULT_CHAINALYSIS_API_URL,
    chainalysisApiKey: value('CHAINALYSIS_API_KEY') ?? null,
    chainalysisSanctionsUrl: value('CHAINALYSIS_SANCTIONS_URL') ?? DEFAULT_CHAINALYSIS_SANCTIONS_URL,
    chainalysisSanctionsApiKey: value('CHAINALYSIS_SANCTIONS_API_KEY') ?? null,
    sanctionsListFiles: files ?? [],
    ...(ttlSeconds !== undefined ? { cacheTtlMs: ttlSeconds * 1000 } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(maxAgeDays !== undefined ? { sanctionsListMaxAgeDays: maxAgeDays } : {}),
    ...(maxAddresses !== undefined ? { chainalysisSanctionsMaxAddresses: maxAddresses } : {}),
  });
}

function httpUrl(name: string, value: string): Result<string, string> {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return ok(value);
  } catch {
    // reported below
  }
  return err(`${name} must be an http(s) URL, got "${value}"`);
}
