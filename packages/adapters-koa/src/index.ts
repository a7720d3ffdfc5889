import { answerNodeRequest, type CoreHttpHandler, isV1Path } from '@tron-safety/core';
import type { Context, Middleware, Next } from 'koa';

/** What the adapter needs of the safety service: its HTTP-shaped entry point. */
export type SafetyHandler = CoreHttpHandler;

export interface SafetyMiddlewareOptions {
  /** Which paths go to the service; others go on to the next middleware. Default: everything under `/v1/`. */
  matches?: (path: string) => boolean;
}

/**
 * Koa 3 middleware serving the safety service's `/v1` API. Put it before a body parser such as
 * `@koa/bodyparser` so it reads the raw bytes under the 4 KiB limit itself; behind one it uses
 * `ctx.request.rawBody` (or re-serializes `ctx.request.body`). It sets `ctx.status`, headers and
 * `ctx.body` and never throws: Koa's error handler would drop the rate-limit and request-id headers.
 */
export function safetyMiddleware(service: SafetyHandler, options: SafetyMiddlewareOptions = {}): Middleware {
  const matches = options.matches ?? isV1Path;
  return async (ctx: Context, next: Next) => {
    if (!matches(ctx.path)) return next();
    const request = ctx.request as Context['request'] & { rawBody?: unknown; body?: unknown };
    const { response, closeConnection } = await answerNodeRequest(service, {
      req: ctx.req,
      method: ctx.method,
      path: ctx.path,
      // A check has no query string: not parsed for nothing.
      query: ctx.querystring ? ctx.query : {},
      parsed: { raw: request.rawBody, body: request.body },
    });
    ctx.status = response.status;
    // Headers before the body: Koa guesses a content type (text/plain) only for a body without one.
    // Set on Node's response, where Koa keeps them (`ctx.response.headers` and `ctx.response.get` read them there):
    // `ctx.set` would copy the dozen into two arrays first, and `ctx.response.get` copies them all.
    if (!ctx.headerSent) {
      const { res } = ctx;
      const { headers } = response;
      for (const name in headers) res.setHeader(name, headers[name]!);
      if (!res.hasHeader('content-type')) res.setHeader('content-type', 'application/json; charset=utf-8');
      if (closeConnection) res.setHeader('connection', 'close');
    }
    ctx.body = response.body;
  };
}
