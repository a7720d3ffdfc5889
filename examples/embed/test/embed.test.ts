import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRiskProviders, createSafetyService } from '@tron-safety/core';
import { checkBody, instantChain, instantRisk, listenOnLoopback, seedTenant } from '@tron-safety/core/testing';
import { createMemoryStores } from '@tron-safety/store-memory';
import { request } from 'undici';
import { createExpressApp } from '../src/express-server.js';
import { createKoaApp } from '../src/koa-server.js';
import { createService } from '../src/service.js';

// The README's embedding examples: compiled by the root typecheck and exercised here, so they cannot rot.

describe('embedding the service in an existing server', () => {
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
