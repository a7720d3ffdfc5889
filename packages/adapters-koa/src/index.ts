import { answerNodeRequest, type CoreHttpHandler, type CoreHttpResponse, isV1Path } from '@tron-safety/core';
import { parserErrorResponse } from '@tron-safety/core/internal';
import type { Context, Middleware, Next } from 'koa';

/** What the adapter needs of the safety service: its HTTP-shaped entry point. */
export type SafetyHandler = CoreHttpHandler;

export interface SafetyMiddlewareOptions {
  /** Which paths go to the service; others go on to the next middleware. Default: everything under `/v1/`. */
  matches?: (path: string) => boolean;
}

/**
 * Koa 3 middleware serving the safety service's `/v1` API. Put it before a body parser such as
 * `@koa/bodyparser` so it reads the raw bytes under the 4 KiB limit itself. Behind one it uses
 * `ctx.request.rawBody`, which `@koa/bodyparser` keeps, so the bytes are exact; a parser that keeps
 * none (koa-body without `includeUnparsed`) leaves a Buffer or string body used as the bytes, or a
 * parsed body it re-serializes: then the 4 KiB limit reads the declared Content-Length (a chunked
 * body has none, and is measured on the re-serialized JSON), and a repeated key
 * (`{"tx_hash":"bad","tx_hash":"<valid>"}`, 422 with the middleware first) is accepted, since
 * `JSON.parse` kept the last one. A parser's own errors are Koa's text/plain unless
 * `safetyParserErrors()` is mounted before the parser. It sets `ctx.status`, headers and `ctx.body`
 * and never throws: Koa's error handler would drop the rate-limit and request-id headers.
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
    setAnswer(ctx, response, closeConnection);
  };
}

/**
 * For a host whose body parser runs before `safetyMiddleware`: the parser's refusals on the
 * service's paths (malformed JSON, a body over the parser's limit, an unsupported charset) are
 * answered as the service answers them, 422 `validation_error` or `payload_too_large` in the spec's
 * envelope with X-Request-ID and `Cache-Control: no-store`, instead of Koa's text/plain. Any other
 * error, or any other path, is rethrown to the host's handling. Mount it before the parser, with the
 * same `matches`:
 * `app.use(safetyParserErrors()); app.use(bodyParser()); app.use(safetyMiddleware(service))`.
 */
export function safetyParserErrors(options: SafetyMiddlewareOptions = {}): Middleware {
  const matches = options.matches ?? isV1Path;
  return async (ctx: Context, next: Next) => {
    if (!matches(ctx.path)) return next();
    try {
      await next();
    } catch (error) {
      const response = ctx.headerSent ? undefined : parserErrorResponse(ctx.req, error);
      if (!response) throw error;
      setAnswer(ctx, response, false);
    }
  };
}

function setAnswer(ctx: Context, response: CoreHttpResponse, closeConnection: boolean): void {
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
}
