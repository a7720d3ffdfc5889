import { API_RESPONSE_HEADERS, type CoreHttpResponse } from '@tron-safety/core';

/** Where a reader finds the documentation (the repository's README and spec). */
export const DOCS_URL = 'https://github.com/tron-safety/tron-safety#readme';

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>TRON transaction safety API</title></head>
<body>
<h1>TRON transaction safety API</h1>
<p>This host serves the <code>/v1</code> API: <code>POST /v1/transaction/check</code> checks one TRON
transaction before a payment is recorded as received; <code>GET /v1/usage</code> reports the
organization's quota and usage. Both need an <code>X-API-Key</code> header.</p>
<ul>
<li><a href="/v1/openapi.json">OpenAPI document</a> (the v1 contract)</li>
<li><a href="/v1/status">Status</a> (whether business access is enabled)</li>
<li><a href="/portal/">Developer portal</a> (sign in to manage your organization's API keys and see its usage)</li>
<li><a href="${DOCS_URL}">Documentation</a>: the README, and <code>docs/SPEC.md</code> for the interface</li>
</ul>
</body>
</html>
`;

/** `GET /`: a short page pointing to the contract and the docs, instead of an error. */
export function homePage(requestId: string): CoreHttpResponse {
  return {
    status: 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'X-Request-ID': requestId,
      'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
      ...API_RESPONSE_HEADERS,
    },
    body: PAGE,
  };
}
