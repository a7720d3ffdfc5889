import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { err, ok, type Result } from 'neverthrow';
import type { Registry } from 'prom-client';
import type { ConfigError } from '../config.js';
import { MISDIRECTED_TEXT, type HostRule } from '../host-names.js';
import { listen } from '../http-app.js';

/** One thing readiness depends on, and what is wrong with it (null = fine). */
export interface ReadinessCheck {
  component: string;
  check(): Promise<string | null>;
}

export interface OpsServerOptions {
  registry: Registry;
  readiness: ReadinessCheck[];
  /**
   * What weakens answers without a readiness failure fixing it (stale data): named in `/readyz`'s body as
   * `degraded`, never a 503.
   */
  degraded?: ReadinessCheck[];
  /** The `Host` names it answers (see `hostRule`: a loopback listener refuses other sites' names); absent: any. */
  acceptsHost?: HostRule | null;
}

/** How long one readiness check may take before it counts as failed. */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * The operations listener, apart from the API (its own port, loopback by default): `/metrics` in
 * Prometheus format, `/healthz` (the process answers) and `/readyz` (every component ready: 200,
 * else 503 naming the failing ones; either way the degraded ones). Nothing on it needs or accepts an API key.
 * A request naming a `Host` that `acceptsHost` refuses is answered 421 (DNS rebinding, see `hostRule`).
 */
export function createOpsServer(options: OpsServerOptions): Server {
  const server = createServer({ requestTimeout: 10_000, headersTimeout: 5_000 }, (req, res) => {
    answer(req, options).then(
      ({ status, type, body }) => send(res, status, type, body),
      (error: unknown) => send(res, 500, 'text/plain; charset=utf-8', `ops error: ${(error as Error).message}\n`),
    );
  });
  server.maxConnections = 64;
  return server;
}

async function answer(
  req: IncomingMessage,
  { registry, readiness, degraded = [], acceptsHost }: OpsServerOptions,
): Promise<{ status: number; type: string; body: string }> {
  if (acceptsHost && !acceptsHost(req.headers.host))
    return { status: 421, type: 'text/plain; charset=utf-8', body: MISDIRECTED_TEXT };
  const path = new URL(req.url ?? '/', 'http://ops').pathname;
  const json = (status: number, value: unknown) => ({ status, type: 'application/json', body: JSON.stringify(value) });
  if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: 'method not allowed' });
  switch (path) {
    case '/metrics':
      return { status: 200, type: registry.contentType, body: await registry.metrics() };
    case '/healthz':
      return json(200, { status: 'ok' });
    case '/readyz': {
      const [failing, weak] = await Promise.all([problems(readiness), problems(degraded)]);
      const notes = weak.length > 0 ? { degraded: weak } : {};
      return failing.length === 0
        ? json(200, { status: 'ready', ...notes })
        : json(503, { status: 'not_ready', failing, ...notes });
    }
    default:
      return json(404, { error: 'not found: /metrics, /healthz, /readyz' });
  }
}

async function problems(checks: readonly ReadinessCheck[]): Promise<{ component: string; problem: string }[]> {
  const results = await Promise.all(checks.map(runCheck));
  return results.flatMap(({ component, problem }) => (problem === null ? [] : [{ component, problem }]));
}

async function runCheck({ component, check }: ReadinessCheck): Promise<{ component: string; problem: string | null }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${CHECK_TIMEOUT_MS} ms`), CHECK_TIMEOUT_MS);
  });
  try {
    const problem = await Promise.race([check().catch((e: unknown) => (e as Error).message || String(e)), timeout]);
    return { component, problem };
  } finally {
    clearTimeout(timer);
  }
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/** The operations listener when `port` is set: listening, with its URL and a close; a port it cannot take is a start error. */
export async function startOpsListener(
  where: { port: number | null; host: string },
  options: OpsServerOptions,
): Promise<Result<{ url: string; close(): Promise<void> } | null, ConfigError>> {
  if (where.port === null) return ok(null);
  const server = createOpsServer(options);
  try {
    const { url } = await listen(server, where.port, where.host);
    return ok({ url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  } catch (e) {
    return err({
      field: 'OPS_PORT',
      message: `OPS_PORT/OPS_HOST: cannot listen on ${where.host}:${where.port} (${(e as Error).message})`,
    });
  }
}
