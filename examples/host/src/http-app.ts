import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { safetyRouter } from '@tron-safety/adapters-express';
import { safetyMiddleware } from '@tron-safety/adapters-koa';
import express from 'express';
import Koa from 'koa';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './config.js';
import type { Handler } from './log.js';
import { expressPortal, koaPortal, type PortalMount } from './portal-mount.js';

export type Framework = 'express' | 'koa';

const everything = () => true;

/**
 * An HTTP server serving `handler` through the chosen framework's adapter. The host gives every
 * path to the service, so unknown paths also answer in the spec's JSON envelope. `limits` cut off
 * clients that send too slowly (a socket held for minutes by a trickle of bytes) and cap connections.
 */
export function createHttpServer(
  handler: Handler,
  framework: Framework,
  limits: HttpLimits = DEFAULT_HTTP_LIMITS,
  portal?: PortalMount,
): Server {
  let listener: Parameters<typeof createServer>[1];
  if (framework === 'koa') {
    const app = new Koa();
    if (portal) app.use(koaPortal(portal));
    app.use(safetyMiddleware(handler, { matches: everything }));
    listener = app.callback();
  } else {
    const app = express();
    app.disable('x-powered-by');
    if (portal) app.use(expressPortal(portal));
    app.use(safetyRouter(handler, { matches: everything }));
    listener = app;
  }
  const server = createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node checks the two timeouts above on this interval (default 30 s): a slow client would outlive its limit by up to that.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.requestTimeoutMs / 10))),
    },
    listener,
  );
  server.maxConnections = limits.maxConnections;
  return server;
}

export interface Listening {
  server: Server;
  url: string;
}

export function listen(server: Server, port: number, host: string): Promise<Listening> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({ server, url: `http://${shownHost}:${address.port}` });
    });
  });
}

/** Tracks the responses still being written, so a stop can let them reach the client before it cuts connections. */
export interface ResponseTracker {
  /** Resolves when no response is open, or after `timeoutMs` at the latest. */
  settled(timeoutMs: number): Promise<void>;
}

export function trackResponses(server: Server): ResponseTracker {
  let open = 0;
  const waiters = new Set<() => void>();
  server.on('request', (_request, response) => {
    open++;
    // 'close' follows 'finish', or a connection lost before the end: either way the response is done.
    response.once('close', () => {
      if (--open === 0) for (const wake of waiters) wake();
    });
  });
  return {
    settled(timeoutMs) {
      if (open === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        waiters.add(done);
      });
    },
  };
}

/**
 * Stops accepting connections and closes idle keep-alive ones; resolves when every open
 * request has been answered (the caller bounds the wait with its own deadline).
 */
export function stopAccepting(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  return closed;
}
