// The OFAC refresher's never-worse rules and its races with the shared store: no host screens with a
// list older than the one the store holds, or calls a list current that no one confirmed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryStores } from '@tron-safety/store-memory';
import { OfacRefresher } from '../src/risk/ofac/refresh.js';
import { parseOfacXml } from '../src/risk/ofac/sdn-xml.js';
import { createRiskProviders } from '../src/risk/providers.js';
import type { SanctionsListStore } from '../src/stores/sanctions-lists.js';
import { bundledSdnEntries, renderSdnXml, type FakeSdnEntry, type FakeSdnList } from '../src/testing/fake-ofac.js';

const ADDED_LATER = 'TWd4WrZ9wn84f5x1hZhL4DHvk738ns5jwb';
const ADDED = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const CLEAN = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';
const ctx = { signal: new AbortController().signal };
const entry = (uid: number, address: string, name: string): FakeSdnEntry => ({
  uid,
  lastName: name,
  ids: [{ type: 'Digital Currency Address - TRX', number: address }],
});
const list = (published: Date, extra: FakeSdnEntry[] = []): FakeSdnList => ({
  published,
  entries: [...bundledSdnEntries(), ...extra],
});

async function scripted(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sdn.xml`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('Sanctions refresh: publication dates are days', () => {
  test("OFAC's list of the day an operator's plain list is dated (with a time of day) is not older: it replaces it, and its new address is a hit", async () => {
    const day = new Date('2026-11-21T00:00:00Z');
    let serving = {
      body: renderSdnXml(list(day)),
      etag: '"a"',
      modified: 'Sat, 21 Nov 2026 08:00:00 GMT',
    };
    const ofac = await scripted((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/xml', etag: serving.etag, 'last-modified': serving.modified })
        .end(serving.body),
    );
    try {
      let now = new Date('2026-11-21T09:00:00Z');
      const store = createMemoryStores().sanctionsLists;
      const host = new OfacRefresher({ store, url: ofac.url, now: () => now });
      const risk = createRiskProviders({ ofacList: host, now: () => now.getTime() })._unsafeUnwrap();
      assert.equal((await host.refresh())._unsafeUnwrap().kind, 'replaced');

      // 10:00 an operator loads a plain list (e.g. OFAC's addresses plus one from an internal notice)
      // with `# as-of: 2026-11-21T10:00:00Z`: exactly the candidate admin-sanctions.ts readListFile builds.
      now = new Date('2026-11-21T10:00:00Z');
      const asOf = new Date('2026-11-21T10:00:00Z');
      const operator = new OfacRefresher({ store, url: null, now: () => now });
      const plainEntries = [...bundledSdnEntries().map((e) => e.ids[0]!.number), ADDED].map((address) => ({
        address,
        tag: 'list',
        name: null,
      }));
      const loaded = await operator.apply({
        source: '/etc/tron-safety/extra.txt',
        format: 'plain',
        publishedAt: asOf,
        confirmedAt: asOf,
        entries: plainEntries,
        validators: null,
      });
      assert.equal(loaded._unsafeUnwrap().kind, 'replaced');

      // 16:00 OFAC publishes a second action of the same day adding ADDED_LATER (Publish_Date is still 11/21).
      serving = {
        body: renderSdnXml(list(day, [entry(7, ADDED_LATER, 'ADDED LATER THAT DAY')])),
        etag: '"b"',
        modified: 'Sat, 21 Nov 2026 16:00:00 GMT',
      };
      now = new Date('2026-11-21T17:00:00Z');
      const refreshed = await host.refresh();
      const screened = await risk.sanctions.screen([ADDED_LATER], ctx);
      assert.deepEqual(
        screened.status === 'answered' ? screened.hits.map((h) => h.address) : screened.status,
        [ADDED_LATER],
        `OFAC's same-day addition screened: ${JSON.stringify(screened)}; refresh: ${JSON.stringify(refreshed)}`,
      );
      assert.equal(
        refreshed.isOk(),
        true,
        `refresh refused: ${refreshed.isErr() ? refreshed.error.kind + ': ' + refreshed.error.reason : ''}`,
      );
      assert.equal(screened.status === 'answered' && screened.hits.length, 1, JSON.stringify(screened));
    } finally {
      await ofac.close();
    }
  });

  test("a plain list dated in the future (clamped to now, a time of day) does not make the day's OFAC list older", async () => {
    const day = new Date('2026-11-21T00:00:00Z');
    let now = new Date('2026-11-21T10:00:00Z');
    const store = createMemoryStores().sanctionsLists;
    const operator = new OfacRefresher({ store, url: null, now: () => now });
    const parsed = (await parseOfacXml([renderSdnXml(list(day))], { maxAddresses: 1000 }))._unsafeUnwrap();
    const typo = new Date('2027-11-21T00:00:00Z');
    const plain = parsed.entries.map((e) => ({ address: e.address, tag: 'list', name: null }));
    await operator.apply(
      { source: '/x.txt', format: 'plain', publishedAt: typo, confirmedAt: typo, entries: plain, validators: null },
      { force: true },
    );
    now = new Date('2026-11-21T17:00:00Z');
    const next = (
      await parseOfacXml([renderSdnXml(list(day, [entry(7, ADDED_LATER, 'LATER')]))], { maxAddresses: 1000 })
    )._unsafeUnwrap();
    const applied = await operator.apply({
      ...next,
      source: 'https://ofac.example/sdn.xml',
      confirmedAt: now,
      validators: { etag: '"b"', lastModified: 'Sat, 21 Nov 2026 16:00:00 GMT' },
    });
    assert.equal(applied.isOk(), true, applied.isErr() ? applied.error.reason : '');
  });
});

describe('Sanctions refresh: races with the shared store', () => {
  test('a sync that read the store before this host replaced its list does not adopt the older list it read', async () => {
    const day = new Date('2026-11-21T00:00:00Z');
    const older = renderSdnXml(list(new Date('2026-11-20T00:00:00Z')));
    const newer = renderSdnXml(list(day, [entry(8, ADDED, 'NEW')]));
    let body = older;
    let etag = '"old"';
    const ofac = await scripted((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/xml', etag }).end(body),
    );
    try {
      const now = new Date('2026-11-21T09:00:00Z');
      const memory = createMemoryStores().sanctionsLists;
      // Another host stores the older list.
      const other = new OfacRefresher({ store: memory, url: ofac.url, now: () => now });
      assert.equal((await other.refresh())._unsafeUnwrap().kind, 'replaced');

      // This host's store: like PostgreSQL's REPEATABLE READ read, a currentList() returns the snapshot taken when
      // it began; here the first one is slow (many entries).
      let slowNext = true;
      const store: SanctionsListStore = {
        currentHeader: () => memory.currentHeader(),
        currentList: async () => {
          const snapshot = await memory.currentList();
          if (slowNext) {
            slowNext = false;
            await new Promise((r) => setTimeout(r, 300));
          }
          return snapshot;
        },
        replaceList: (p) => memory.replaceList(p),
        confirmList: (p) => memory.confirmList(p),
        recordFailure: (f) => memory.recordFailure(f),
        lastFailure: () => memory.lastFailure(),
      };
      const host = new OfacRefresher({ store, url: ofac.url, now: () => now });
      const risk = createRiskProviders({ ofacList: host, now: () => now.getTime() })._unsafeUnwrap();
      body = newer;
      etag = '"new"';
      const timerSync = host.sync(); // the host's 60 s timer fires
      const refreshed = await host.refresh(); // the hourly refresh at the same time
      assert.equal(refreshed._unsafeUnwrap().kind, 'replaced');
      await timerSync;
      const stored = await memory.currentHeader();
      assert.equal(
        host.inUse().id,
        stored?.id,
        `host screens with ${host.inUse().publishedAt.toISOString()} while the store holds ${stored?.publishedAt.toISOString()}`,
      );
      const screened = await risk.sanctions.screen([ADDED], ctx);
      assert.equal(screened.status === 'answered' && screened.hits.length, 1, 'the newly listed address is a hit');
    } finally {
      await ofac.close();
    }
  });

  test('a 304 confirms only the list it was about: one adopted while the store confirmed stays as old as the store says', async () => {
    const start = new Date('2026-11-21T00:00:00Z');
    const body = renderSdnXml(list(start, [entry(9, ADDED, 'NEW')]));
    const mirror = await scripted((req, res) => {
      if (req.headers['if-none-match'] === '"v1"') res.writeHead(304, { etag: '"v1"' }).end();
      else res.writeHead(200, { 'content-type': 'application/xml', etag: '"v1"' }).end(body);
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let holdConfirm = false;
    let confirmWritten: () => void = () => {};
    const written = new Promise<void>((resolve) => (confirmWritten = resolve));
    try {
      let now = start;
      const memory = createMemoryStores().sanctionsLists;
      // PostgreSQL's UPDATE has committed; its reply is still on the way back to this host.
      const store: SanctionsListStore = {
        currentHeader: () => memory.currentHeader(),
        currentList: () => memory.currentList(),
        replaceList: (p) => memory.replaceList(p),
        confirmList: async (p) => {
          const ok = await memory.confirmList(p);
          if (holdConfirm) {
            confirmWritten();
            await gate;
          }
          return ok;
        },
        recordFailure: (f) => memory.recordFailure(f),
        lastFailure: () => memory.lastFailure(),
      };
      const host = new OfacRefresher({ store, url: mirror.url, now: () => now });
      const risk = createRiskProviders({ ofacList: host, now: () => now.getTime() })._unsafeUnwrap();
      assert.equal((await host.refresh())._unsafeUnwrap().kind, 'replaced');

      now = new Date(start.getTime() + 3_600_000);
      holdConfirm = true;
      const refreshing = host.refresh(); // 304 -> confirmList(X) committed, reply held
      await written;
      // An operator loads another list, known current a week ago; the host's 60 s sync adopts it.
      const operator = new OfacRefresher({ store: memory, url: null, now: () => now });
      const week = new Date(start.getTime() - 7 * 86_400_000);
      const parsed = (await parseOfacXml([body], { maxAddresses: 1000 }))._unsafeUnwrap();
      const loaded = { ...parsed, source: '/var/lib/ofac/old.xml', confirmedAt: week, validators: null };
      assert.equal(
        (await operator.apply({ ...loaded, entries: parsed.entries.slice(1) }))._unsafeUnwrap().kind,
        'replaced',
      );
      assert.equal(await host.sync(), 'adopted');
      release();
      await refreshing;
      assert.equal(host.status().source, '/var/lib/ofac/old.xml');
      assert.equal((await memory.currentHeader())?.confirmedAt.toISOString(), week.toISOString(), 'store: a week old');
      const screened = await risk.sanctions.screen([CLEAN], ctx);
      const resynced = await host.sync();
      assert.equal(
        `${host.status().confirmedAt.toISOString()} (after a sync: ${resynced})`,
        `${week.toISOString()} (after a sync: unchanged)`,
        `the 304 was about the other list; a clean address screens ${JSON.stringify(screened)}`,
      );
    } finally {
      release();
      await mirror.close();
    }
  });
});
