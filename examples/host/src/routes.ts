import { renderOpenApiJson, type CoreHttpRequest, type CoreHttpResponse } from '@tron-safety/core';
import { requestIdFrom, withApiHeaders } from '@tron-safety/core/internal';
import { homePage } from './home-page.js';
import type { Handler } from './log.js';

export const OPENAPI_PATH = '/v1/openapi.json';
export const STATUS_PATH = '/v1/status';

/** The service's controls the public routes read. */
export interface HostRoutesTarget extends Handler {
  readonly apiDisabled: boolean;
}

/**
 * The host's unauthenticated routes in front of the service: a short page at `/`, the generated
 * contract and the public status indicator, which says only whether business access is enabled (no
 * provider check, no uptime claim). Everything else goes to the service.
 */
export function withHostRoutes(service: HostRoutesTarget): Handler {
  const openapi = renderOpenApiJson();
  return {
    handle(request) {
      if (request.method === 'GET' || request.method === 'HEAD') {
        if (request.path === '/') return Promise.resolve(homePage(requestIdFrom(request.headers['x-request-id'])));
        if (request.path === OPENAPI_PATH) return Promise.resolve(json(request, openapi));
        if (request.path === STATUS_PATH) {
          const body = JSON.stringify({ business_access: service.apiDisabled ? 'disabled' : 'enabled' });
          return Promise.resolve(json(request, body));
        }
      }
      return service.handle(request);
    },
  };
}

/** A caller's valid X-Request-ID is kept, as on the service's own routes. */
function json(request: CoreHttpRequest, body: string): CoreHttpResponse {
  return withApiHeaders({
    status: 200,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': requestIdFrom(request.headers['x-request-id']),
    },
    body,
  });
}
