import {
  answerNodeRequest,
  type CoreHttpHandler,
  type CoreHttpRequest,
  type CoreHttpResponse,
  isV1Path,
} from '@tron-safety/core';
import { parserErrorResponse } from '@tron-safety/core/internal';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';

/** What the adapter needs of the safety service: its HTTP-shaped entry point. */
export type SafetyHandler = CoreHttpHandler;

export interface SafetyRouterOptions {
  /**
   * Which paths (relative to where the middleware is mounted) go to the service; others fall
   * through to the host's next handler. Default: everything under `/v1/`.
   */
  matches?: (path: string) => boolean;
}

/**
 * `express.json({ verify: keepRawBody })`: lets a host that parses JSON before the service keep the
 * exact request bytes for it (otherwise the adapter re-serializes `req.body`).
 */
export function keepRawBody(req: IncomingMessage, _res: ServerResponse, buf: Buffer): void {
  (req as IncomingMessage & { rawBody?: Buffer }).rawBody = buf;
}

/**
 * Express 5 middleware serving the safety service's `/v1` API. Mount it before `express.json()`
 * (`app.use(safetyRouter(service)); app.use(express.json())`) so it reads the raw bytes under the
 * 4 KiB limit itself: that order is exact. Mounted after a body parser it still works, from
 * `req.rawBody` (see `keepRawBody`), a Buffer or string body (`express.raw()`, `express.text()`), or
 * by re-serializing a parsed `req.body`, with what a parser cannot give back:
 * - the parser answers its own errors (HTML 400/413) unless `safetyParserErrors()` is mounted after it;
 * - the 4 KiB limit reads the declared Content-Length; a chunked body has none, and is measured on
 *   what the parser left (re-serialized JSON differs from what was sent: whitespace, escapes);
 * - a repeated key (`{"tx_hash":"bad","tx_hash":"<valid>"}`) is 422 with the adapter first, but
 *   `JSON.parse` has kept the last one, so it is accepted (even with `keepRawBody` the core checks
 *   the kept bytes, so that case is 422 again).
 */
export function safetyRouter(service: SafetyHandler, options: SafetyRouterOptions = {}): RequestHandler {
  const matches = options.matches ?? isV1Path;
  return async (req: Request & { rawBody?: unknown }, res: Response, next: NextFunction) => {
    if (!matches(req.path)) return next();
    const { response, closeConnection } = await answerNodeRequest(service, {
      req,
      method: req.method,
      path: req.path,
      // A check has no query string: not parsed for nothing (Express parses `req.query` on every read).
      query: req.url.includes('?') ? (req.query as CoreHttpRequest['query']) : {},
      parsed: { raw: req.rawBody, body: req.body },
    });
    writeAnswer(res, response, closeConnection);
  };
}

/**
 * Express error handler for a host whose body parser runs before `safetyRouter`: the parser's
 * refusals on the service's paths (malformed JSON, a body over the parser's limit, an unsupported
 * charset or encoding) are answered as the service answers them, 422 `validation_error` or
 * `payload_too_large` in the spec's envelope with X-Request-ID and `Cache-Control: no-store`, instead
 * of Express's HTML page. Any other error, or any other path, goes on to the host's handlers. Mount it
 * after the router, with the same `matches`:
 * `app.use(express.json()); app.use(safetyRouter(service)); app.use(safetyParserErrors())`.
 */
export function safetyParserErrors(options: SafetyRouterOptions = {}): ErrorRequestHandler {
  const matches = options.matches ?? isV1Path;
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    const response = matches(req.path) && !res.headersSent ? parserErrorResponse(req, error) : undefined;
    if (!response) return next(error);
    writeAnswer(res, response, false);
  };
}

function writeAnswer(res: Response, response: CoreHttpResponse, closeConnection: boolean): void {
  res.status(response.status);
  const { headers } = response;
  for (const name in headers) res.setHeader(name, headers[name]!);
  if (!res.hasHeader('content-type')) res.setHeader('content-type', 'application/json; charset=utf-8');
  if (closeConnection) res.setHeader('connection', 'close');
  res.end(response.body);
}
