import type { CoreHttpResponse } from './http.js';

/**
 * Headers every API answer carries, whoever serves it (the host, or an app embedding the core):
 * answers are per-tenant and per-moment, so no cache may keep them, and a browser must never
 * sniff a JSON body into something it would render or run.
 */
export const API_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/** Adds `API_RESPONSE_HEADERS` to an answer the core built (its headers object is its own). */
export function withApiHeaders(response: CoreHttpResponse): CoreHttpResponse {
  Object.assign(response.headers, API_RESPONSE_HEADERS);
  return response;
}
