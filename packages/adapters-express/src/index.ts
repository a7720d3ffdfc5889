import { answerNodeRequest, type CoreHttpHandler, type CoreHttpRequest, isV1Path } from '@tron-safety/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

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
 * 4 KiB limit itself. Mounted after a JSON parser it still works, from `req.rawBody` (see
 * `keepRawBody`) or by re-serializing `req.body`; but then that parser's errors (HTML 400/413) come
 * first for bodies it rejects, so the order above is the one to use.
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
    res.status(response.status);
    const { headers } = response;
    for (const name in headers) res.setHeader(name, headers[name]!);
    if (!res.hasHeader('content-type')) res.setHeader('content-type', 'application/json; charset=utf-8');
    if (closeConnection) res.setHeader('connection', 'close');
    res.end(response.body);
  };
}
