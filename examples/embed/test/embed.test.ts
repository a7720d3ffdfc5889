import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { createRiskProviders, createSafetyService } from '@tron-safety/core';
import {
  bundledSdnEntries,
  checkBody,
  instantChain,
  instantRisk,
  listenOnLoopback,
  seedTenant,
  startFakeOfac,
} from '@tron-safety/core/testing';
import { createMemoryStores } from '@tron-safety/store-memory';
import { request } from 'undici';
import { createExpressApp } from '../src/express-server.js';
import { createKoaApp } from '../src/koa-server.js';
import { createFirstKey } from '../src/first-key.js';
import { keepOfacListCurrent } from '../src/ofac-list.js';
import { createService } from '../src/service.js';

// The README's embedding examples: compiled by the root typecheck and exercised here, so they cannot rot.

const ctx = { signal: new AbortController().signal };
/** Listed by OFAC after the bundled snapshot was made (the fake's publication). */
const ADDED = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const CLEAN = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';
const publication = () => ({
  published: new Date(new Date().toISOString().slice(0, 10)),
  entries: [
    ...bundledSdnEntries(),
    { uid: 1, lastName: 'NEW EXCHANGE LLC', ids: [{ type: 'Digital Currency Address - TRX', number: ADDED }] },
  ],
});

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

  test('createService builds a service from the README without any call but its OFAC download, which replaces the bundled snapshot', async () => {
    const ofacServer = await startFakeOfac(publication());
    process.env.OFAC_SDN_URL = ofacServer.url;
    const { service, ofac } = createService();
    try {
      assert.equal(service.apiDisabled, false);
      assert.equal(ofac.list.status().format, 'bundled', 'the snapshot screens until the first download');
      await ofac.firstRefresh;
      assert.equal(ofac.list.status().source, ofacServer.url);
      assert.ok(ofac.list.current().addresses.has(ADDED));
    } finally {
      delete process.env.OFAC_SDN_URL;
      ofac.stop();
      await service.close({ timeoutMs: 10 });
      await ofacServer.close();
    }
    assert.ok(createRiskProviders().isOk());
  });

  test('Sanctions freshness when embedding: keepOfacListCurrent keeps the screen current and finds what OFAC added; a failed download keeps the list', async (t) => {
    const ofacServer = await startFakeOfac(publication());
    const stores = createMemoryStores();
    const stale = createRiskProviders()._unsafeUnwrap();
    assert.equal(
      (await stale.sanctions.screen([CLEAN], ctx)).status,
      'unavailable',
      'the bundled snapshot alone is stale',
    );
    const ofac = keepOfacListCurrent(stores.sanctionsLists, ofacServer.url, 50);
    const { sanctions } = createRiskProviders({ ofacList: ofac.list })._unsafeUnwrap();
    const warned = t.mock.method(console, 'warn', () => {});
    try {
      await ofac.firstRefresh;
      assert.deepEqual(await sanctions.screen([CLEAN], ctx), {
        status: 'answered',
        hits: [],
        asOf: ofac.list.status().confirmedAt,
      });
      const hit = await sanctions.screen([ADDED], ctx);
      assert.deepEqual(hit.status === 'answered' && hit.hits.map((h) => [h.address, h.name]), [
        [ADDED, 'NEW EXCHANGE LLC'],
      ]);
      ofacServer.setFault({ kind: 'status', status: 503 });
      for (let i = 0; i < 250 && warned.mock.callCount() === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.match(String(warned.mock.calls[0]!.arguments[0]), /^OFAC list kept \(download\): /);
      assert.equal(ofac.list.status().source, ofacServer.url, 'the last good list stays in use');
      assert.equal((await sanctions.screen([ADDED], ctx)).status, 'answered');
    } finally {
      ofac.stop();
      warned.mock.restore();
      await ofacServer.close();
    }
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
