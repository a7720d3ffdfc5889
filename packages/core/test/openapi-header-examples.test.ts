import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildOpenApiDocument } from '../src/contract/openapi.js';
import { rateLimitHeaders } from '../src/runtime/limit-headers.js';

// KNOWN BUG (found by the docs audit, not fixed: a change to src/contract/openapi.ts and a regenerated
// openapi.json). The document's examples of the IETF rate headers name the policy "default"; the service
// sends "minute" (`"minute";q=600;w=60`), so a client written from the document parses for a policy that
// never comes. Proposed fix: the examples `"minute";q=60;w=60` and `"minute";r=59;t=42`, then
// `npm run openapi`. Marked todo so the lead's CI stays green; drop `todo` with the fix.
test(
  'the OpenAPI examples of RateLimit-Policy and RateLimit name the policy the service sends',
  { todo: 'the examples say "default", the service sends "minute"' },
  () => {
    const headers = (buildOpenApiDocument() as { components: { headers: Record<string, { description: string }> } })
      .components.headers;
    const sent = rateLimitHeaders(60, 1, new Date(42_000), new Date(0));
    for (const name of ['RateLimit-Policy', 'RateLimit'] as const) {
      const policy = /^("[a-z]+");/.exec(sent[name]!)![1]!;
      const example = /e\.g\. `([^`]*)`/.exec(headers[name]!.description)![1]!;
      assert.ok(
        example.startsWith(`${policy};`),
        `${name}: the document's example ${example}, the service's ${sent[name]}`,
      );
    }
  },
);
