import { riskConfigFromEnv, type RiskConfig } from '@tron-safety/core';
import { err, ok, type Result } from 'neverthrow';
import { readOfacConfig, type OfacHostConfig } from './sanctions-refresh.js';
import { recordingReads, unknownVariable } from './unknown-variables.js';

/** The host's configuration, read from the environment (README: "Configuration"). */
export interface HostConfig {
  port: number;
  host: string;
  databaseUrl: string | null;
  seedFile: string | null;
  tronFullNodeUrl: string;
  tronSolidityUrl: string;
  tronApiKey: string | null;
  /** The solidity node's own key; without it the solidity node gets TRON_API_KEY only on the full node's origin. */
  tronSolidityApiKey: string | null;
  /** CHAINALYSIS_*, SANCTIONS_LIST_FILES, RISK_*: read by the core's `riskConfigFromEnv`. */
  risk: RiskConfig;
  /** OFAC_SDN_URL, OFAC_REFRESH_SECONDS: where and how often the OFAC list is refreshed. */
  ofac: OfacHostConfig;
  requestDeadlineMs: number;
  idempotencyRetentionSeconds: number;
  /** null: the chain provider's documented default. */
  maxTransfers: number | null;
  apiDisabled: boolean;
  /** Beyond the table: which framework serves HTTP (both serve the same API). */
  framework: 'express' | 'koa';
  logLevel: string;
  /** Beyond the table: how long SIGTERM/SIGINT waits for in-flight checks. */
  shutdownGraceMs: number;
  /** The operations listener (/metrics, /healthz, /readyz); null port = off. */
  ops: { port: number | null; host: string };
  /** The API listener's protection against slow or too many clients (see `HTTP_LIMITS`). */
  http: HttpLimits;
  /** The portal takes the client address from the proxy's X-Forwarded-For. */
  portalTrustProxy: boolean;
  /**
   * The origin browsers reach the portal at (`https://safety.example.com`): its absolute links (invitations)
   * are built on it, and an `https` one makes its cookies `__Host-` cookies. Null: see `portalLinkOrigin`.
   */
  portalPublicUrl: string | null;
}

export interface HttpLimits {
  /** Open connections at most; more are refused at accept. */
  maxConnections: number;
  /** A client that has not sent a whole request (headers and body) by then is disconnected (408). */
  requestTimeoutMs: number;
  /** The same for the headers alone. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
}

/** The server's limits; only the connection cap is a variable (HTTP_MAX_CONNECTIONS). */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  maxConnections: 1024,
  requestTimeoutMs: 15_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
};

/** The TRON nodes and their keys as the chain provider takes them (the core's `nodeApiKeys` says which key goes where). */
export const tronNodes = (config: HostConfig) => ({
  fullNodeUrl: config.tronFullNodeUrl,
  solidityNodeUrl: config.tronSolidityUrl,
  ...(config.tronApiKey ? { apiKey: config.tronApiKey } : {}),
  ...(config.tronSolidityApiKey ? { solidityApiKey: config.tronSolidityApiKey } : {}),
});

/**
 * The shortest IDEMPOTENCY_RETENTION_SECONDS: a completed key replays for as long as a client may
 * still retry it (backoff capped in attempts and duration, spec Errors rule 1), and is never free
 * sooner than an abandoned claim, whose lease runs up to REQUEST_DEADLINE_MS + 30 s (630 s). A
 * retention of seconds made a retry after a lost answer run, and bill, again.
 */
const MIN_IDEMPOTENCY_RETENTION_SECONDS = 3600;

/** A refused configuration names the variable (or seed field) that is wrong. */
export interface ConfigError {
  field: string;
  message: string;
}

type Env = Record<string, string | undefined>;

/**
 * Why an http(s) URL is no origin browsers may be sent to, or null: `https://host[:port]` with nothing after
 * it, plain `http` only for a loopback host (elsewhere passwords and sessions would cross in the clear).
 */
export function publicOriginProblem(url: URL): string | null {
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/')
    return 'must be an origin such as https://safety.example.com, without path or query';
  if (url.protocol !== 'https:' && !isLoopback(url.hostname))
    return 'must be an https URL (plain http only for localhost, 127.x.x.x or [::1])';
  return null;
}

/** Loopback hosts: plain HTTP on the machine itself. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Reads the environment; the first invalid variable refuses the whole configuration, and so does one under
 * the host's own prefixes that it does not read (a misspelled name, see `unknownVariable`).
 */
export function parseConfig(env: Env): Result<HostConfig, ConfigError> {
  const names = new Set<string>();
  const read = new Reader(recordingReads(env, names));
  const fullNode = read.url('TRON_FULLNODE_URL', 'https://api.trongrid.io');
  const config: HostConfig = {
    port: read.integer('PORT', 8080, 0, 65535),
    host: read.text('HOST', '127.0.0.1'),
    databaseUrl: read.optionalUrl('DATABASE_URL'),
    seedFile: read.optionalText('SAFETY_SEED_FILE'),
    tronFullNodeUrl: fullNode,
    tronSolidityUrl: read.url('TRON_SOLIDITY_URL', fullNode),
    tronApiKey: read.optionalText('TRON_API_KEY'),
    tronSolidityApiKey: read.optionalText('TRON_SOLIDITY_API_KEY'),
    risk: read.risk(),
    ofac: readOfacConfig(read),
    requestDeadlineMs: read.integer('REQUEST_DEADLINE_MS', 12_000, 100, 600_000),
    idempotencyRetentionSeconds: read.integer(
      'IDEMPOTENCY_RETENTION_SECONDS',
      86_400,
      MIN_IDEMPOTENCY_RETENTION_SECONDS,
      366 * 86_400,
    ),
    maxTransfers: read.optionalInteger('MAX_TRANSFERS', 1, 100_000),
    apiDisabled: read.boolean('API_DISABLED', false),
    framework: read.oneOf('HOST_FRAMEWORK', ['express', 'koa'] as const, 'express'),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    shutdownGraceMs: read.integer('SHUTDOWN_GRACE_MS', 15_000, 0, 600_000),
    ops: { port: read.optionalInteger('OPS_PORT', 0, 65535), host: read.text('OPS_HOST', '127.0.0.1') },
    http: {
      ...DEFAULT_HTTP_LIMITS,
      maxConnections: read.integer('HTTP_MAX_CONNECTIONS', DEFAULT_HTTP_LIMITS.maxConnections, 1, 1_000_000),
    },
    portalTrustProxy: read.boolean('PORTAL_TRUST_PROXY', false),
    portalPublicUrl: read.publicOrigin('PORTAL_PUBLIC_URL'),
  };
  const unknown = unknownVariable(env, names);
  if (unknown) {
    const { name, closest } = unknown;
    read.fail(name, `the host reads no such variable (did you mean ${closest}?): its setting would be ignored`, null);
  }
  return read.error ? err(read.error) : ok(config);
}

/** Collects the first error and returns a placeholder meanwhile, so `parseConfig` reads as a table. */
class Reader {
  error: ConfigError | null = null;
  constructor(private readonly env: Env) {}

  private value(name: string): string | undefined {
    const raw = this.env[name];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  }

  fail<T>(field: string, message: string, placeholder: T): T {
    this.error ??= { field, message: `${field}: ${message}` };
    return placeholder;
  }

  text(name: string, fallback: string): string {
    return this.value(name) ?? fallback;
  }

  optionalText(name: string): string | null {
    return this.value(name) ?? null;
  }

  /** The risk variables as the core reads them (its error names the variable). */
  risk(): RiskConfig {
    const risk = riskConfigFromEnv(this.env);
    return risk.isOk() ? risk.value : this.fail(risk.error.variable ?? risk.error.option, risk.error.message, {});
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    return this.optionalInteger(name, min, max) ?? fallback;
  }

  optionalInteger(name: string, min: number, max: number): number | null {
    const raw = this.value(name);
    if (raw === undefined) return null;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < min || n > max)
      return this.fail(name, `must be an integer from ${min} to ${max}, got '${raw}'`, min);
    return n;
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.value(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    return this.fail(name, `must be true or false, got '${raw}'`, fallback);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.value(name);
    if (raw === undefined) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    return this.fail(name, `must be one of ${allowed.join(', ')}, got '${raw}'`, fallback);
  }

  url(name: string, fallback: string): string {
    return this.optionalUrl(name) ?? fallback;
  }

  /**
   * An origin browsers use: `https://host[:port]` with nothing after it (plain `http` only for a loopback
   * host, a developer's machine: elsewhere it would send passwords and sessions in the clear).
   */
  publicOrigin(name: string): string | null {
    const raw = this.optionalUrl(name);
    if (raw === null || this.error) return null;
    const url = new URL(raw);
    const problem = publicOriginProblem(url);
    return problem === null ? url.origin : this.fail(name, problem, null);
  }

  optionalUrl(name: string): string | null {
    const raw = this.value(name);
    if (raw === undefined) return null;
    try {
      const url = new URL(raw);
      const schemes = name === 'DATABASE_URL' ? ['postgres:', 'postgresql:'] : ['http:', 'https:'];
      if (!schemes.includes(url.protocol)) return this.fail(name, `must be a ${schemes.join(' or ')} URL`, raw);
      return raw.replace(/\/+$/, '');
    } catch {
      // never echo the value: a database URL may carry a password
      return this.fail(name, 'is not a valid URL', raw);
    }
  }
}
