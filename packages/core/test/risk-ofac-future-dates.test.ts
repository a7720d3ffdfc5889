// Sanctions age: a date from outside (a file's modification time, an operator's --as-of, OFAC's Publish_Date, a
// server's Last-Modified, a stored confirmation) that lies in the future never makes the OFAC list current.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { OfacRefresher, type CandidateList } from '../src/risk/ofac/refresh.js';
import { parseOfacXml } from '../src/risk/ofac/sdn-xml.js';
import { createRiskProviders } from '../src/risk/providers.js';
import { OFAC_TRON_LIST } from '../src/risk/sanctions-list.js';
import { bundledSdnEntries, renderSdnXml, type FakeSdnList } from '../src/testing/fake-ofac.js';

const ADDED = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const CLEAN = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';
const ctx = { signal: new AbortController().signal };
const PUBLISHED = new Date('2026-11-20T00:00:00Z');
const NOW = new Date('2026-11-21T00:00:00Z');
const FUTURE = new Date('2030-01-01T00:00:00Z');

/** OFAC's list: the snapshot's addresses and one added since. */
const publication = (at = PUBLISHED): FakeSdnList => ({
  published: at,
  entries: [
    ...bundledSdnEntries(),
    { uid: 1, lastName: 'NEW LLC', ids: [{ type: 'Digital Currency Address - TRX', number: ADDED }] },
  ],
});

/** A refresher on memory stores at `now`, and the screen reading it. */
function setup(url: string | null, store = createMemoryStores().sanctionsLists) {
  const clock = { now: NOW };
  const refresher = new OfacRefresher({ store, url, now: () => clock.now });
  const risk = createRiskProviders({ ofacList: refresher, now: () => clock.now.getTime() })._unsafeUnwrap();
  return { refresher, clock, screen: (address: string) => risk.sanctions.screen([address], ctx) };
}

async function candidate(dates: { publishedAt: Date; confirmedAt: Date }): Promise<CandidateList> {
  const parsed = (await parseOfacXml([renderSdnXml(publication())], { maxAddresses: 1000 }))._unsafeUnwrap();
  return { ...parsed, ...dates, source: '/var/lib/ofac/sdn.xml', validators: null };
}

describe('Sanctions age: a date in the future never makes the OFAC list current', () => {
  test("an air-gapped copy (file: URL) modified in the future is a failed refresh ('file modified in the future'), never confirmed at now", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ofac-future-'));
    try {
      const path = join(dir, 'sdn.xml');
      writeFileSync(path, renderSdnXml(publication(new Date('2025-11-27T00:00:00Z'))));
      utimesSync(path, FUTURE, FUTURE);
      const { refresher, screen, clock } = setup(pathToFileURL(path).href);
      for (let i = 0; i < 2; i++) {
        const failure = (await refresher.refresh())._unsafeUnwrapErr();
        assert.deepEqual(failure, {
          kind: 'download',
          reason: `file modified 2030-01-01T00:00:00.000Z is in the future (this host's clock reads ${clock.now.toISOString()}): no list is known current beyond now`,
        });
        assert.equal(refresher.status().format, 'bundled', 'the list in use is kept');
        assert.equal((await screen(CLEAN)).status, 'unavailable');
        clock.now = new Date(clock.now.getTime() + 3_600_000);
      }
      // A list in use from that file, then the file touched into the future: not confirmed either.
      const copied = new Date(clock.now.getTime() - 3_600_000);
      utimesSync(path, copied, copied);
      assert.equal((await refresher.refresh())._unsafeUnwrap().kind, 'replaced');
      utimesSync(path, FUTURE, FUTURE);
      clock.now = new Date(clock.now.getTime() + 3 * 86_400_000);
      assert.equal((await refresher.refresh())._unsafeUnwrapErr().kind, 'download');
      assert.equal(refresher.status().confirmedAt.toISOString(), copied.toISOString());
      assert.equal((await screen(CLEAN)).status, 'unavailable', 'three days old: past the limit');
      // Within a minute of clock skew a copy counts as written now.
      const skewed = new Date(clock.now.getTime() + 30_000);
      utimesSync(path, skewed, skewed);
      assert.equal((await refresher.refresh())._unsafeUnwrap().kind, 'confirmed');
      assert.equal(refresher.status().confirmedAt.toISOString(), clock.now.toISOString());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a list loaded with a date in the future (an operator typo in --as-of or Publish_Date) is refused, even forced; the list in use is kept', async () => {
    const { refresher, screen } = setup(null);
    const typo = new Date('3024-11-21T00:00:00Z');
    for (const dates of [
      { publishedAt: PUBLISHED, confirmedAt: typo },
      { publishedAt: typo, confirmedAt: NOW },
    ]) {
      const refused = (await refresher.apply(await candidate(dates), { force: true }))._unsafeUnwrapErr();
      assert.equal(refused.kind, 'future');
      assert.match(refused.reason, /3024-11-21T00:00:00.000Z is in the future/);
    }
    assert.equal(refresher.status().counts.future, 2);
    assert.equal(refresher.status().format, 'bundled');
    assert.equal((await screen(ADDED)).status, 'unavailable');
    // Within the skew: as of now.
    const skewed = new Date(NOW.getTime() + 30_000);
    const applied = await refresher.apply(await candidate({ publishedAt: PUBLISHED, confirmedAt: skewed }));
    assert.equal(applied._unsafeUnwrap().kind, 'replaced');
    assert.equal(refresher.status().confirmedAt.toISOString(), NOW.toISOString());
  });

  test('a stored list confirmed in the future (a host whose clock was ahead) is as of its publication; a stored confirmation in the future confirms nothing', async () => {
    const store = createMemoryStores().sanctionsLists;
    const entries = [...OFAC_TRON_LIST.addresses.keys()].map((address) => ({ address, tag: 'TRX', name: null }));
    const stored = {
      id: 'a1',
      source: 'https://ofac.example/sdn.xml',
      format: 'sdn' as const,
      publishedAt: new Date('2026-11-10T00:00:00Z'),
      confirmedAt: FUTURE,
      savedAt: FUTURE,
      addressCount: entries.length,
      etag: null,
      lastModified: FUTURE.toUTCString(),
      entries,
    };
    assert.equal(await store.replaceList({ replaces: null, list: stored }), true);
    const { refresher, screen } = setup(null, store);
    assert.equal(await refresher.sync(), 'adopted');
    assert.equal(refresher.status().confirmedAt.toISOString(), '2026-11-10T00:00:00.000Z');
    assert.equal(refresher.inUse().validators?.lastModified, null, 'nor is its Last-Modified sent back');
    assert.equal((await screen(CLEAN)).status, 'unavailable');

    // The list in use, confirmed in the store by a host whose clock is ahead.
    const second = setup(null, store);
    await second.refresher.apply(
      await candidate({ publishedAt: PUBLISHED, confirmedAt: new Date('2026-11-15T00:00:00Z') }),
    );
    const id = second.refresher.inUse().id!;
    assert.equal(
      await store.confirmList({
        id,
        confirmedAt: FUTURE,
        source: 'https://ofac.example/sdn.xml',
        etag: null,
        lastModified: null,
      }),
      true,
    );
    assert.equal(await second.refresher.sync(), 'unchanged');
    assert.equal(second.refresher.status().confirmedAt.toISOString(), '2026-11-15T00:00:00.000Z');
    assert.equal((await second.screen(CLEAN)).status, 'unavailable');
  });

  test('a Last-Modified in the future is not sent back as If-Modified-Since (a server would then answer 304 to every later version)', async () => {
    // A server that compares dates, as HTTP caches do: not modified since a date at or after its own.
    let serving = { body: renderSdnXml({ ...publication(), entries: bundledSdnEntries() }), modified: FUTURE };
    const asked: (string | null)[] = [];
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const since = req.headers['if-modified-since'] ?? null;
      asked.push(since);
      if (since !== null && Date.parse(since) >= serving.modified.getTime()) return void res.writeHead(304).end();
      res.writeHead(200, { 'last-modified': serving.modified.toUTCString() }).end(serving.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { refresher, screen, clock } = setup(`http://127.0.0.1:${(server.address() as AddressInfo).port}/sdn.xml`);
      assert.equal((await refresher.refresh())._unsafeUnwrap().kind, 'replaced');
      // OFAC's next list, its clock put right: ADDED is listed.
      serving = { body: renderSdnXml(publication(NOW)), modified: NOW };
      clock.now = new Date(NOW.getTime() + 3_600_000);
      assert.equal((await refresher.refresh())._unsafeUnwrap().kind, 'replaced');
      assert.deepEqual(asked, [null, null]);
      const hit = await screen(ADDED);
      assert.equal(hit.status === 'answered' && hit.hits.length, 1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
