import type { IncomingMessage } from 'node:http';
import { safetyRouter } from '@tron-safety/adapters-express';
import { safetyMiddleware } from '@tron-safety/adapters-koa';
import type { CoreHttpRequest, CoreHttpResponse, SafetyService, SafetyStores } from '@tron-safety/core';
import { createPortal, isPortalPath, type PortalRequest } from '@tron-safety/portal';
import type { RequestHandler } from 'express';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { isLoopback, type HostConfig } from './config.js';
import { hostRule, MISDIRECTED_TEXT, type HostRule } from './host-names.js';
import { withRequestLog } from './log.js';
import { NOT_SAVED_MESSAGE, SeedFileNotUpdated } from './seed-write-back.js';

/** The portal as the host serves it: its handler (logged) and whether a proxy's forwarded headers are trusted. */
export interface PortalMount {
  handle(request: PortalRequest): Promise<CoreHttpResponse>;
  trustProxy: boolean;
}

const last = (value: string | string[] | undefined) =>
  (Array.isArray(value) ? value.join(',') : value)?.split(',').at(-1)?.trim() || undefined;

/**
 * Who the client is (throttling counts sign-in failures per client): the socket's address, or behind a
 * trusted proxy what that proxy appended (the last `X-Forwarded-For` entry; a client can forge the ones
 * before it). Nothing else of the request is trusted: links are built on the configured origin.
 */
export function clientOf(req: IncomingMessage, trustProxy: boolean): Pick<PortalRequest, 'clientAddress'> {
  const direct = req.socket.remoteAddress ?? 'unknown';
  return { clientAddress: (trustProxy ? last(req.headers['x-forwarded-for']) : undefined) ?? direct };
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

type PortalConfig = Pick<HostConfig, 'host' | 'portalTrustProxy' | 'portalPublicUrl'>;

/**
 * Whether browsers reach the portal over HTTPS, so its cookies are `__Host-` cookies (`Secure`, `Path=/`):
 * as PORTAL_PUBLIC_URL says when it is set; otherwise everywhere but on a loopback host that no proxy
 * fronts (a developer's machine, plain HTTP): behind a trusted proxy (`PORTAL_TRUST_PROXY`) browsers use the
 * proxy's HTTPS, even when the host itself listens on loopback.
 */
export function secureCookies(config: PortalConfig): boolean {
  if (config.portalPublicUrl !== null) return config.portalPublicUrl.startsWith('https:');
  return !isLoopback(config.host) || config.portalTrustProxy;
}

/**
 * The origin of the portal's absolute links (invitations): PORTAL_PUBLIC_URL; unset, the address the host
 * listens on when browsers reach it there (loopback, plain HTTP), else null (links shown as a path, and a
 * start-up warning): never a request's Host or X-Forwarded-Host, which a client chooses.
 */
export function portalLinkOrigin(config: PortalConfig, listeningUrl: string | null): string | null {
  return portalOriginKnown(config) ? (config.portalPublicUrl ?? listeningUrl) : null;
}

/** Whether the host knows the origin browsers reach its portal at (see `portalLinkOrigin`). */
export function portalOriginKnown(config: PortalConfig): boolean {
  return config.portalPublicUrl !== null || !secureCookies(config);
}

/**
 * The portal on the service's admin API and stores, its requests logged like the API's; `listeningUrl`
 * is the host's address once it listens (see `portalLinkOrigin`).
 */
export function mountPortal(
  service: SafetyService,
  stores: SafetyStores,
  logger: Logger,
  served: { config: PortalConfig; listeningUrl: () => string | null },
): PortalMount {
  const { config, listeningUrl } = served;
  const portal = guardedByHost(
    hostRule(config.host, config.portalPublicUrl),
    createPortal({
      service,
      stores,
      secureCookies: secureCookies(config),
      publicUrl: () => portalLinkOrigin(config, listeningUrl()),
      onError: (error) => logger.error({ err: error }, 'portal request failed'),
      explainError: (error) => (error instanceof SeedFileNotUpdated ? NOT_SAVED_MESSAGE : null),
    }),
  );
  return { ...withRequestLog(portal, logger), trustProxy: config.portalTrustProxy };
}

const MISDIRECTED_HEADERS = {
  'content-type': 'text/plain; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** The portal answering 421 to a request whose `Host` the rule refuses (see `hostRule`); null: no rule. */
function guardedByHost(accepts: HostRule | null, portal: Pick<PortalMount, 'handle'>): Pick<PortalMount, 'handle'> {
  if (accepts === null) return portal;
  return {
    handle(request) {
      const host = request.headers.host;
      if (accepts(Array.isArray(host) ? host.join(',') : host)) return portal.handle(request);
      return Promise.resolve({ status: 421, headers: MISDIRECTED_HEADERS, body: MISDIRECTED_TEXT });
    },
  };
}
