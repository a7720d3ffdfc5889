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

// KNOWN BUG (found by the docs audit, same file to fix): GET /v1/usage's 422 description is the check's
// precedence text (`invalid_idempotency_key`, `payload_too_large`, tx_hash ... expected_amount) while its only
// code is `validation_error`, for a bad `days`. Proposed fix: each operation its own 422 description (usage:
// "`days` must be an integer from 1 to 90 in plain digits"). Marked todo; drop `todo` with the fix.
test(
  "each response's description names only codes its operation answers",
  { todo: "usage's 422 description is the check's" },
  () => {
    const paths = (buildOpenApiDocument() as { paths: Record<string, Record<string, { responses: object }>> }).paths;
    for (const [path, operations] of Object.entries(paths)) {
      for (const { responses } of Object.values(operations)) {
        for (const [status, { description }] of Object.entries(responses as Record<string, { description: string }>)) {
          const [text, codes = ''] = description.split('Codes: ');
          const named = [...text!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
          const answered = [...codes.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
          const foreign = named.filter((code) => !answered.includes(code));
          assert.deepEqual(foreign, [], `${path} ${status}`);
        }
      }
    }
  },
);
