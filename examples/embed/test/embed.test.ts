import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { createRiskProviders, createSafetyService } from '@tron-safety/core';
import { checkBody, instantChain, instantRisk, listenOnLoopback, seedTenant } from '@tron-safety/core/testing';
import { createMemoryStores } from '@tron-safety/store-memory';
import { request } from 'undici';
import { createExpressApp } from '../src/express-server.js';
import { createKoaApp } from '../src/koa-server.js';
import { createFirstKey } from '../src/first-key.js';
import { createService } from '../src/service.js';

// The README's embedding examples: compiled by the root typecheck and exercised here, so they cannot rot.

describe('embedding the service in an existing server', () => {
  test("the README's embedding snippets are these files, word for word", () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n(\/\/ ([\w-]+\.ts)\n[\s\S]*?)```/g)].map((m) => [m[2], m[1]]);
    const sources = new URL('../src/', import.meta.url);
    for (const file of readdirSync(sources)) {
      const shown = blocks.find(([name]) => name === file);
      assert.ok(shown, `README shows examples/embed/src/${file}`);
      assert.equal(shown[1], `// ${file}\n${readFileSync(new URL(file, sources), 'utf8')}`, `README block of ${file}`);
    }
  });

  test('createFirstKey: the first organization and key through service.admin, and the key works', async () => {
    const service = createSafetyService(createMemoryStores(), { chain: instantChain(), risk: instantRisk() });
    const key = await createFirstKey(service);
    const usage = await service.usage({ apiKey: key });
    assert.equal(usage.status, 200);
    await service.close({ timeoutMs: 10 });
  });

  test('createService builds a service from the README without any network call', async () => {
    const service = createService();
    assert.equal(service.apiDisabled, false);
    await service.close({ timeoutMs: 10 });
    assert.ok(createRiskProviders().isOk());
  });

  for (const [name, make] of [
    ['express', (s: Parameters<typeof createExpressApp>[0]) => createExpressApp(s)],
    ['koa', (s: Parameters<typeof createKoaApp>[0]) => createKoaApp(s)],
  ] as const) {
    test(`${name}: the host's own route and the safety API side by side`, async () => {
      const service = createSafetyService(createMemoryStores(), { chain: instantChain(), risk: instantRisk() });
      const { apiKey } = await seedTenant(service);
      const app = make(service);
      const server = await listenOnLoopback((port, host) => app.listen(port, host));
      try {
        const check = await request(`${server.url}/v1/transaction/check`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: checkBody('11'.repeat(32)),
        });
        const result = (await check.body.json()) as { overall_state: string; request_id: string };
        assert.equal(check.statusCode, 200);
        assert.equal(check.headers['x-request-id'], result.request_id);
        const own =
          name === 'express'
            ? await request(`${server.url}/orders`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: '{"id":7}',
              })
            : await request(`${server.url}/health`);
        assert.ok(own.statusCode < 300);
        await own.body.dump();
      } finally {
        await server.close();
        await service.close({ timeoutMs: 10 });
      }
    });
  }
});
