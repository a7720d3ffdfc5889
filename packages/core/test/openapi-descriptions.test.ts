import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildOpenApiDocument } from '../src/contract/openapi.js';
import { rateLimitHeaders } from '../src/runtime/limit-headers.js';

// The document's examples of the IETF rate headers name the policy the service sends (they said "default").
test('the OpenAPI examples of RateLimit-Policy and RateLimit name the policy the service sends', () => {
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
});

// GET /v1/usage's 422 described the check's precedence (`invalid_idempotency_key`, `payload_too_large`, …).
test("each response's description names only codes its operation answers", () => {
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
});
