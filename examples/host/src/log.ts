import type { CoreHttpHandler, CoreHttpRequest, CoreHttpResponse } from '@tron-safety/core';
import { pino, type DestinationStream, type Logger } from 'pino';

/** Secrets never written to a log line, whatever object carries them. */
export const REDACTED_PATHS = [
  'headers["x-api-key"]',
  'headers["idempotency-key"]',
  'headers.authorization',
  '*.headers["x-api-key"]',
  '*.headers["idempotency-key"]',
  '*.headers.authorization',
  'apiKey',
  'key',
  '*.apiKey',
  '*.key',
];

/** Where a provider URL points, for a log line: providers put API keys in user-info, paths and queries. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'tron-safety-host' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    destination,
  );
}

/** The HTTP-shaped entry point the host serves (the safety service, or a wrapper of it). */
export type Handler = CoreHttpHandler;

/** A request's observer adds fields to its log line (see `ops/observability.ts`); none by default. */
export interface RequestObserver {
  observe(
    request: CoreHttpRequest,
    handle: () => Promise<CoreHttpResponse>,
  ): Promise<{ response: CoreHttpResponse; fields: Record<string, unknown> }>;
}

const unobserved: RequestObserver = {
  observe: async (_request, handle) => ({ response: await handle(), fields: {} }),
};

/**
 * One log line per request, carrying the request id the core chose (the caller's valid
 * `X-Request-ID` or a new one): status, error code, duration, what the observer adds (organization,
 * key id and prefix, overall state and coverage, the provider calls behind a 503/504), and the
 * headers that matter with their secrets redacted by the logger.
 */
export function withRequestLog(handler: Handler, logger: Logger, observer: RequestObserver = unobserved): Handler {
  return {
    async handle(request) {
      const started = performance.now();
      const { response, fields } = await observer.observe(request, () => handler.handle(request));
      const headers = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v]));
      const line = {
        request_id: headers['x-request-id'] ?? null,
        method: request.method,
        path: request.path,
        status: response.status,
        error_code: response.status >= 400 ? errorCode(response.body) : undefined,
        replayed: headers['idempotent-replayed'] === 'true' || undefined,
        duration_ms: Math.round(performance.now() - started),
        ...fields,
        headers: pick(request.headers, ['x-api-key', 'idempotency-key', 'user-agent']),
      };
      const level = response.status >= 500 ? 'error' : response.status >= 400 ? 'warn' : 'info';
      logger[level](line, 'request');
      return response;
    },
  };
}

function errorCode(body: string): string | undefined {
  try {
    return (JSON.parse(body) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

function pick(headers: CoreHttpRequest['headers'], names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) if (headers[name] !== undefined) out[name] = headers[name];
  return out;
}
