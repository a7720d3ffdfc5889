import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { safetyRouter } from '@tron-safety/adapters-express';
import { safetyMiddleware } from '@tron-safety/adapters-koa';
import type { CoreHttpRequest, CoreHttpResponse, SafetyService, SafetyStores } from '@tron-safety/core';
import { createPortal, isPortalPath, type PortalRequest } from '@tron-safety/portal';
import type { RequestHandler } from 'express';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { HostConfig } from './config.js';
import { withRequestLog } from './log.js';
import { NOT_SAVED_MESSAGE, SeedFileNotUpdated } from './seed-write-back.js';

/** The portal as the host serves it: its handler (logged) and whether a proxy's forwarded headers are trusted. */
export interface PortalMount {
  handle(request: PortalRequest): Promise<CoreHttpResponse>;
  trustProxy: boolean;
}

/** Loopback hosts: plain HTTP on the machine itself. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const first = (value: string | string[] | undefined) =>
  (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();
const last = (value: string | string[] | undefined) =>
  (Array.isArray(value) ? value.join(',') : value)?.split(',').at(-1)?.trim() || undefined;

/**
 * Who the client is (throttling counts sign-in failures per client) and how it reached the host
 * (invitation links): from the socket, or behind a trusted proxy from what that proxy appended
 * (the last `X-Forwarded-For` entry; a client can forge the ones before it).
 */
export function clientOf(req: IncomingMessage, trustProxy: boolean): Pick<PortalRequest, 'clientAddress' | 'origin'> {
  const direct = req.socket.remoteAddress ?? 'unknown';
  const forwardedProto = trustProxy ? first(req.headers['x-forwarded-proto']) : undefined;
  const scheme =
    forwardedProto === 'https' || forwardedProto === 'http'
      ? forwardedProto
      : (req.socket as TLSSocket).encrypted
        ? 'https'
        : 'http';
  const host = (trustProxy ? first(req.headers['x-forwarded-host']) : undefined) ?? req.headers.host;
  return {
    clientAddress: (trustProxy ? last(req.headers['x-forwarded-for']) : undefined) ?? direct,
    ...(host ? { origin: `${scheme}://${host}` } : {}),
  };
}

/** The portal's view of one request: the adapters' request plus the client. */
function viewOf(mount: PortalMount, req: IncomingMessage) {
  return {
    handle(request: CoreHttpRequest) {
      const portalRequest: PortalRequest = { ...request, ...clientOf(req, mount.trustProxy) };
      return mount.handle(portalRequest);
    },
  };
}

/**
 * Express middleware serving `/portal/…` before the API: the same adapter as `/v1` (body under the
 * limit, headers kept apart), given the client of the request.
 */
export function expressPortal(mount: PortalMount): RequestHandler {
  return (req, res, next) =>
    isPortalPath(req.path) ? safetyRouter(viewOf(mount, req), { matches: isPortalPath })(req, res, next) : next();
}

/** Koa middleware serving `/portal/…` before the API. */
export function koaPortal(mount: PortalMount): Middleware {
  return (ctx, next) =>
    isPortalPath(ctx.path) ? safetyMiddleware(viewOf(mount, ctx.req), { matches: isPortalPath })(ctx, next) : next();
}

/**
 * Cookies go without `Secure` only to a host on loopback that no proxy fronts (a developer's own
 * machine): behind a trusted proxy (`PORTAL_TRUST_PROXY`) browsers reach it over the proxy's HTTPS, even
 * when the host itself listens on loopback.
 */
export function secureCookies(config: Pick<HostConfig, 'host' | 'portalTrustProxy'>): boolean {
  return !isLoopback(config.host) || config.portalTrustProxy;
}

/** The portal on the service's admin API and stores, its requests logged like the API's. */
export function mountPortal(
  service: SafetyService,
  stores: SafetyStores,
  config: Pick<HostConfig, 'host' | 'portalTrustProxy'>,
  logger: Logger,
): PortalMount {
  const portal = createPortal({
    service,
    stores,
    secureCookies: secureCookies(config),
    onError: (error) => logger.error({ err: error }, 'portal request failed'),
    explainError: (error) => (error instanceof SeedFileNotUpdated ? NOT_SAVED_MESSAGE : null),
  });
  return { ...withRequestLog(portal, logger), trustProxy: config.portalTrustProxy };
}
