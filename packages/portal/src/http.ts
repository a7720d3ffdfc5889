import type { CoreHttpRequest, CoreHttpResponse } from '@tron-safety/core';
import type { Html } from './html.js';

/** The portal's requests: the core's HTTP shape plus the client's address (for sign-in throttling). */
export interface PortalRequest extends CoreHttpRequest {
  /** The client as the host sees it (the socket's address, or the trusted proxy's forwarded one). */
  clientAddress?: string;
}

export const PORTAL_PATH = '/portal';
export const isPortalPath = (path: string) => path === PORTAL_PATH || path.startsWith(`${PORTAL_PATH}/`);

/**
 * On every portal answer. Scripts and styles only from the portal's own files (no inline code),
 * forms post only to the portal, no framing, no Referer (an invitation link carries its token in
 * the query), nothing cached (pages show keys and invitation links).
 */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

export function page(status: number, body: Html, headers: Record<string, string> = {}): CoreHttpResponse {
  return {
    status,
    headers: { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', ...headers },
    body: `<!doctype html>\n${body.text}`,
  };
}

/** 303 See Other: after a form, the browser GETs the next page (a reload does not post again). */
export function redirect(location: string, headers: Record<string, string> = {}): CoreHttpResponse {
  return { status: 303, headers: { ...SECURITY_HEADERS, location, ...headers }, body: '' };
}

/** A form body: the last value of each field; a field sent twice is refused by `field` (null). */
export class Form {
  readonly #params: URLSearchParams;
  constructor(body: Uint8Array) {
    this.#params = new URLSearchParams(Buffer.from(body).toString('utf8'));
  }

  field(name: string): string | null {
    const values = this.#params.getAll(name);
    return values.length === 1 ? values[0]! : null;
  }
}

export function queryValue(request: CoreHttpRequest, name: string): string | undefined {
  const value = request.query[name];
  return typeof value === 'string' ? value : undefined;
}
