import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { downloadOfacList } from '../src/risk/ofac/download.js';
import { OFAC_TRON_AS_OF } from '../src/risk/data/ofac-tron.js';
import { OfacRefresher } from '../src/risk/ofac/refresh.js';
import { parseOfacXml } from '../src/risk/ofac/sdn-xml.js';
import { createRiskProviders } from '../src/risk/providers.js';
import { OFAC_TRON_LIST } from '../src/risk/sanctions-list.js';
import { encodeBase58Address, isTronAddress } from '../src/tron/address.js';
import type { SanctionsAnswer } from '../src/risk/signals.js';
import type { SanctionsListStore } from '../src/stores/sanctions-lists.js';
import {
  bundledSdnEntries,
  renderSdnAdvancedXml,
  renderSdnXml,
  startFakeOfac,
  type FakeOfac,
  type FakeSdnEntry,
  type FakeSdnList,
} from '../src/testing/fake-ofac.js';

// Valid TRON addresses that are not in the bundled snapshot (the recorded fixtures' parties).
const ADDED = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const UNDER_XBT = 'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B';
const CLEAN = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';
const ADDED_LATER = 'TWd4WrZ9wn84f5x1hZhL4DHvk738ns5jwb';
const ctx = { signal: new AbortController().signal };
const PUBLISHED = new Date('2026-11-20T00:00:00Z');
/** An answer's hits as [address, source, name], or why it is unavailable. */
const hits = (answer: SanctionsAnswer) =>
  answer.status === 'answered' ? answer.hits.map((h) => [h.address, h.source, h.name]) : answer.reason;

const entry = (uid: number, address: string, tag: string, lastName: string, firstName?: string): FakeSdnEntry => ({
  uid,
  lastName,
  ...(firstName ? { firstName } : {}),
  ids: [{ type: `Digital Currency Address - ${tag}`, number: address }],
});

/** OFAC's list as a refresh finds it: the snapshot's addresses, one added, one TRON address under XBT, other chains, noise. */
function published(extra: FakeSdnEntry[] = [], at = PUBLISHED): FakeSdnList {
  return {
    published: at,
    entries: [
      ...bundledSdnEntries(),
      entry(1, ADDED, 'TRX', 'NEW EXCHANGE LLC'),
      entry(2, UNDER_XBT, 'XBT', 'Doe', 'John'),
      entry(3, '1KFHE7w8BhaENAswwryaoccDb6qcT6DbYY', 'XBT', 'BITCOIN ONLY'),
      entry(4, '0x098B716B8Aaf21512996dC57EB0615e2383E2f96', 'ETH', 'ETHER ONLY'),
      { uid: 5, lastName: 'NO IDS SHIPPING', ids: [{ type: 'IMO Number', number: '9123456' }] },
      entry(6, 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv9', 'USDT', 'TYPO IN ADDRESS'),
      ...extra,
    ],
  };
}

async function* chunks(text: string, size = 7): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}
const parse = (text: string, maxAddresses = 100_000) => parseOfacXml(chunks(text), { maxAddresses });

describe('OFAC list formats: sdn.xml and sdn_advanced.xml', () => {
  for (const [format, render] of [
    ['sdn', renderSdnXml],
    ['sdn_advanced', renderSdnAdvancedXml],
  ] as const) {
    test(`${format}: every TRON-format address of every Digital Currency Address tag, with tag, name and publish date`, async () => {
      const list = (await parse(render(published())))._unsafeUnwrap();
      assert.equal(list.format, format);
      assert.equal(list.publishedAt.toISOString(), PUBLISHED.toISOString());
      const byAddress = new Map(list.entries.map((e) => [e.address, e]));
      assert.equal(list.entries.length, OFAC_TRON_LIST.addresses.size + 2);
      assert.deepEqual(byAddress.get(ADDED), { address: ADDED, tag: 'TRX', name: 'NEW EXCHANGE LLC' });
      assert.deepEqual(byAddress.get(UNDER_XBT), { address: UNDER_XBT, tag: 'XBT', name: 'John Doe' });
      assert.equal(byAddress.get('TA3941uFAvmVibSkQ6fMJXxmaSNovX86mz')?.tag, 'USDT');
      assert.deepEqual(
        list.rejected,
        ['TJRabPrwbZy45sbavfcjinPJC18kjpRTv9'],
        'a TRON-shaped typo is reported, not listed',
      );
    });
  }

  test('garbage, truncated, foreign or undated files are errors, never an empty or partial list', async () => {
    const whole = renderSdnXml(published());
    assert.match((await parse(whole.slice(0, whole.length / 2)))._unsafeUnwrapErr(), /^malformed XML/);
    assert.match((await parse('{"error":"maintenance"}'))._unsafeUnwrapErr(), /^malformed XML/);
    assert.match(
      (await parse('<html><body>Service Unavailable</body></html>'))._unsafeUnwrapErr(),
      /root element <html>/,
    );
    assert.match(
      (await parse(whole.replace(/<Publish_Date>.*<\/Publish_Date>/, '')))._unsafeUnwrapErr(),
      /Publish_Date/,
    );
    assert.match((await parse(''))._unsafeUnwrapErr(), /root element/);
    const invalidUtf8 = (async function* () {
      yield Buffer.from([0x3c, 0x73, 0xff, 0xfe]);
    })();
    assert.match((await parseOfacXml(invalidUtf8, { maxAddresses: 10 }))._unsafeUnwrapErr(), /not UTF-8/);
  });

  test('bounded: more TRON addresses than the limit is refused', async () => {
    assert.match((await parse(renderSdnXml(published()), 100))._unsafeUnwrapErr(), /more than 100 TRON addresses/);
  });
});

describe('OFAC download over HTTP', () => {
  let ofac: FakeOfac;
  before(async () => (ofac = await startFakeOfac(published())));
  after(() => ofac.close());

  test('follows the redirect, keeps the validators; a conditional request gets 304', async () => {
    const first = (await downloadOfacList({ url: ofac.url }))._unsafeUnwrap();
    assert.equal(first.kind, 'downloaded');
    const validators = first.kind === 'downloaded' ? first.validators : null;
    assert.equal(validators?.etag, '"sdn-1"');
    assert.deepEqual((await downloadOfacList({ url: ofac.url, validators }))._unsafeUnwrap(), { kind: 'not_modified' });
    assert.equal(ofac.requests.at(-1)?.ifNoneMatch, '"sdn-1"');
  });

  test('size and time are bounded', async () => {
    const big = await downloadOfacList({ url: ofac.url, limits: { maxBytes: 1000 } });
    assert.deepEqual(big._unsafeUnwrapErr(), { kind: 'download', reason: 'larger than 1000 bytes' });
    ofac.setFault({ kind: 'hang' });
    try {
      const slow = await downloadOfacList({ url: ofac.url, limits: { timeoutMs: 200 } });
      assert.deepEqual(slow._unsafeUnwrapErr(), { kind: 'download', reason: 'timed out after 200 ms' });
    } finally {
      ofac.setFault(null);
    }
  });

  test('a file: URL (air-gapped): read like a download, unchanged while its size and time are', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ofac-file-'));
    try {
      const path = join(dir, 'sdn_advanced.xml');
      writeFileSync(path, renderSdnAdvancedXml(published()));
      utimesSync(path, PUBLISHED, PUBLISHED);
      const url = pathToFileURL(path).href;
      const first = (await downloadOfacList({ url }))._unsafeUnwrap();
      assert.ok(first.kind === 'downloaded' && first.list.format === 'sdn_advanced');
      const again = await downloadOfacList({ url, validators: first.kind === 'downloaded' ? first.validators : null });
      assert.deepEqual(again._unsafeUnwrap(), { kind: 'not_modified', writtenAt: PUBLISHED });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('A refresh never makes things worse', () => {
  let ofac: FakeOfac;
  before(async () => (ofac = await startFakeOfac(published())));
  after(() => ofac.close());

  const setup = (store: SanctionsListStore = createMemoryStores().sanctionsLists) => {
    let now = new Date('2026-11-21T00:00:00Z');
    const refresher = new OfacRefresher({ store, url: ofac.url, now: () => now });
    const risk = createRiskProviders({ ofacList: refresher, now: () => now.getTime() })._unsafeUnwrap();
    const screen = (address: string) => risk.sanctions.screen([address], ctx);
    return { refresher, screen, advance: (hours: number) => (now = new Date(now.getTime() + hours * 3_600_000)) };
  };

  test('an added address and a TRON address under XBT are found after a refresh; a clean one is clean', async () => {
    const { refresher, screen } = setup();
    assert.equal((await screen(ADDED)).status, 'unavailable', 'the bundled snapshot is stale and does not list it');
    assert.deepEqual((await refresher.refresh())._unsafeUnwrap(), {
      kind: 'replaced',
      addresses: OFAC_TRON_LIST.addresses.size + 2,
      previous: OFAC_TRON_LIST.addresses.size,
    });
    assert.deepEqual(hits(await screen(ADDED)), [
      [ADDED, 'OFAC SDN (Digital Currency Address - TRX)', 'NEW EXCHANGE LLC'],
    ]);
    assert.deepEqual(hits(await screen(UNDER_XBT)), [
      [UNDER_XBT, 'OFAC SDN (Digital Currency Address - XBT)', 'John Doe'],
    ]);
    assert.deepEqual(hits(await screen(CLEAN)), []);
  });

  const faults = [
    ['garbage', { kind: 'garbage' }, 'parse'],
    ['truncated', { kind: 'truncated', bytes: 5000 }, 'parse'],
    ['failed (HTTP 503)', { kind: 'status', status: 503 }, 'download'],
  ] as const;
  for (const [name, fault, kind] of faults) {
    test(`a ${name} download keeps the list in use: its hits found, a clean payment still clean; recorded and counted`, async () => {
      const { refresher, screen } = setup();
      await refresher.refresh();
      ofac.setFault(fault);
      try {
        const failure = (await refresher.refresh())._unsafeUnwrapErr();
        assert.equal(failure.kind, kind);
        assert.equal(hits(await screen(ADDED))[0]?.[0], ADDED);
        assert.deepEqual(hits(await screen(CLEAN)), []);
        const status = refresher.status();
        assert.equal(status.counts[kind], 1);
        assert.match(status.lastFailure?.reason ?? '', new RegExp(`^${kind}: `));
      } finally {
        ofac.setFault(null);
      }
    });
  }

  test('a list that shrank by more than 10% is refused; force applies it on purpose', async () => {
    const { refresher, screen } = setup();
    await refresher.refresh();
    const shrunk = published();
    shrunk.entries = shrunk.entries.slice(0, Math.floor(shrunk.entries.length * 0.85));
    ofac.publish({ ...shrunk, published: new Date('2026-11-21T00:00:00Z') });
    try {
      const failure = (await refresher.refresh())._unsafeUnwrapErr();
      assert.equal(failure.kind, 'shrunk');
      assert.match(failure.reason, /lacks 37 \(14%\) of the 264 TRON addresses in use/);
      assert.equal(hits(await screen(ADDED))[0]?.[0], ADDED);
      const parsed = (await downloadOfacList({ url: ofac.url }))._unsafeUnwrap();
      assert.ok(parsed.kind === 'downloaded');
      const forced = await refresher.apply(
        { ...parsed.list, source: 'operator', confirmedAt: new Date('2026-11-21T00:00:00Z'), validators: null },
        { force: true },
      );
      assert.equal(forced._unsafeUnwrap().kind, 'replaced');
    } finally {
      ofac.publish(published());
    }
  });

  test('a list without a TRON address (an empty file, an XML of other chains only) is refused even forced: the hits of the list in use are still found', async () => {
    const { refresher, screen } = setup();
    await refresher.refresh();
    const inUse = refresher.status().addresses;
    const day = new Date('2026-11-21T00:00:00Z');
    const empty = { source: 'empty.txt', format: 'plain', publishedAt: day, confirmedAt: day, entries: [] } as const;
    const forced = (await refresher.apply({ ...empty, validators: null }, { force: true }))._unsafeUnwrapErr();
    assert.deepEqual(forced, { kind: 'parse', reason: 'empty.txt holds no TRON address: not an OFAC list' });
    const others = published().entries.filter((e) => !e.ids.some((id) => isTronAddress(id.number)));
    ofac.publish({ published: day, entries: others });
    try {
      assert.equal((await refresher.refresh())._unsafeUnwrapErr().kind, 'parse');
    } finally {
      ofac.publish(published());
    }
    assert.equal(refresher.status().addresses, inUse);
    assert.equal(refresher.status().counts.parse, 2);
    assert.equal(hits(await screen(ADDED))[0]?.[0], ADDED);
  });

  /** What an earlier version stored from `sanctions load --force` of an empty file, dated `day`; its id. */
  const storeListWithoutTronAddress = async (store: SanctionsListStore, day = new Date('2026-11-21T00:00:00Z')) => {
    const empty = { source: 'empty.txt', format: 'plain', publishedAt: day, confirmedAt: day, savedAt: day } as const;
    const list = { ...empty, id: randomUUID(), addressCount: 0, etag: null, lastModified: null, entries: [] };
    assert.ok(await store.replaceList({ replaces: null, list }));
    return list.id;
  };

  test("a stored list without a TRON address (an earlier version took one forced) is not screened with: the snapshot is, and OFAC's next list replaces it", async () => {
    const store = createMemoryStores().sanctionsLists;
    await storeListWithoutTronAddress(store);
    const { refresher, screen } = setup(store);
    await refresher.sync();
    const listed = [...OFAC_TRON_LIST.addresses.keys()][0]!;
    assert.equal(hits(await screen(listed))[0]?.[0], listed, 'a listed address is a hit, never clean');
    assert.equal(refresher.status().addresses, OFAC_TRON_LIST.addresses.size);
    // Published the day before the empty list's date: not refused as older than it.
    assert.equal((await refresher.refresh())._unsafeUnwrap().kind, 'replaced');
    assert.equal(hits(await screen(ADDED))[0]?.[0], ADDED);
  });

  test("the snapshot screened in place of a stored list without a TRON address keeps its own date: no sync of that list's confirmation, nor a failed refresh, proves an address designated since clean", async () => {
    const store = createMemoryStores().sanctionsLists;
    const id = await storeListWithoutTronAddress(store);
    const { refresher, screen, advance } = setup(store);
    const snapshotDate = new Date(OFAC_TRON_AS_OF);
    const stale = async (when: string) => {
      const answer = await screen(ADDED);
      assert.deepEqual([answer.status, answer.asOf], ['unavailable', snapshotDate], when);
      assert.deepEqual(refresher.status().confirmedAt, snapshotDate, when);
    };
    assert.equal(await refresher.sync(), 'adopted');
    await stale('adopted');
    // Every host syncs every minute: the stored row's date (the day of the empty load) is not the snapshot's.
    assert.equal(await refresher.sync(), 'unchanged');
    await stale('synced again');
    // A host of the earlier version confirms the stored row later still.
    advance(1);
    assert.ok(
      await store.confirmList({
        id,
        confirmedAt: new Date('2026-11-21T00:30:00Z'),
        source: ofac.url,
        etag: '"e"',
        lastModified: null,
      }),
    );
    assert.equal(await refresher.sync(), 'unchanged');
    await stale('the stored row confirmed');
    ofac.setFault({ kind: 'status', status: 503 });
    try {
      const failed = await refresher.refresh();
      assert.equal(failed.isErr() && failed.error.kind, 'download');
    } finally {
      ofac.setFault(null);
    }
    assert.equal(await refresher.sync(), 'unchanged');
    await stale('a refresh failed');
  });

  test("an operator's load of the snapshot's own contents over a stored list without a TRON address is stored in its place and dated by the load, not taken as that list's confirmation", async () => {
    const store = createMemoryStores().sanctionsLists;
    await storeListWithoutTronAddress(store);
    const { refresher } = setup(store);
    await refresher.sync();
    const loadedAt = new Date('2026-11-20T12:00:00Z');
    const entries = [...OFAC_TRON_LIST.addresses].map(([address, { name }]) => ({ address, tag: 'TRX', name }));
    const candidate = {
      source: 'snapshot-copy.xml',
      format: 'sdn',
      publishedAt: new Date(OFAC_TRON_AS_OF),
      confirmedAt: loadedAt,
      entries,
      validators: null,
    } as const;
    assert.equal((await refresher.apply(candidate))._unsafeUnwrap().kind, 'replaced');
    const stored = await store.currentList();
    assert.deepEqual([stored?.source, stored?.entries.length], ['snapshot-copy.xml', entries.length]);
    assert.deepEqual([refresher.status().source, refresher.status().confirmedAt], ['snapshot-copy.xml', loadedAt]);
  });

  test('loss is counted by address: a list of the same size with the listed addresses swapped for others is refused as shrunk', async () => {
    const { refresher, screen } = setup();
    await refresher.refresh();
    const swapped = published();
    // Every bundled address replaced by another valid TRON address: the count is unchanged.
    let n = 0;
    const another = () =>
      encodeBase58Address(Uint8Array.of(0x41, ...new Array<number>(18).fill(7), n >> 8, n++ & 0xff));
    swapped.entries = swapped.entries.map((e) => ({
      ...e,
      ids: e.ids.map((id) => (isTronAddress(id.number) ? { ...id, number: another() } : id)),
    }));
    ofac.publish({ ...swapped, published: new Date('2026-11-21T00:00:00Z') });
    try {
      const failure = (await refresher.refresh())._unsafeUnwrapErr();
      assert.equal(failure.kind, 'shrunk');
      assert.match(failure.reason, /lacks 264 \(100%\) of the 264 TRON addresses in use/);
      assert.equal(hits(await screen(ADDED))[0]?.[0], ADDED, 'the list in use still screens');
    } finally {
      ofac.publish(published());
    }
  });

  test('a 304 refreshes the age: past the limit a clean payment is unavailable, a listed one still a hit; a 304 makes it current', async () => {
    const { refresher, screen, advance } = setup();
    await refresher.refresh();
    advance(49);
    const stale = await screen(CLEAN);
    assert.equal(stale.status, 'unavailable');
    assert.equal(stale.asOf?.toISOString(), '2026-11-21T00:00:00.000Z', 'it still says how old the list is');
    assert.deepEqual(hits(await screen(ADDED))[0]?.[0], ADDED);
    assert.deepEqual((await refresher.refresh())._unsafeUnwrap(), { kind: 'confirmed' });
    assert.equal(ofac.requests.at(-1)?.status, 304);
    assert.deepEqual(hits(await screen(CLEAN)), []);
    assert.equal(refresher.status().confirmedAt.toISOString(), '2026-11-23T01:00:00.000Z');
  });

  test("Secrets: OFAC_SDN_URL's query and user-info (a mirror's token) are never stored or shown; its refreshes stay conditional", async () => {
    const stores = createMemoryStores();
    for (const token of ['S3CRET-1', 'S3CRET-2']) {
      const url = `${ofac.url}?token=${token}#${token}`;
      const refresher = new OfacRefresher({ store: stores.sanctionsLists, url });
      await refresher.sync();
      assert.ok((await refresher.refresh()).isOk());
      assert.equal(refresher.status().source, ofac.url);
    }
    // The second token's request was conditional: the stored source matched without the token.
    assert.equal(ofac.requests.at(-1)?.status, 304);
    const stored = await stores.sanctionsLists.currentList();
    assert.equal(stored?.source, ofac.url);
    assert.doesNotMatch(JSON.stringify(stored), /S3CRET/);

    const withUser = new OfacRefresher({
      store: createMemoryStores().sanctionsLists,
      url: ofac.url.replace('http://', 'http://mirror:S3CRET@'),
    });
    assert.ok((await withUser.refresh()).isOk());
    assert.equal(withUser.status().source, ofac.url);

    // A list stored whole by an earlier version is shown, and matched for a conditional request, without it.
    const earlier = createMemoryStores().sanctionsLists;
    const list = (await stores.sanctionsLists.currentList())!;
    await earlier.replaceList({ replaces: null, list: { ...list, source: `${ofac.url}?token=S3CRET-0` } });
    const upgraded = new OfacRefresher({ store: earlier, url: `${ofac.url}?token=S3CRET-3` });
    await upgraded.sync();
    assert.equal(upgraded.status().source, ofac.url);
    // Confirmed by an earlier version's host, which leaves the row's whole URL in place: still shown without it.
    const header = (await earlier.currentHeader())!;
    const later = new Date(header.confirmedAt.getTime() + 1000);
    await earlier.confirmList({ ...header, confirmedAt: later });
    assert.equal(await upgraded.sync(), 'confirmed');
    assert.equal(upgraded.status().source, ofac.url);
    assert.deepEqual((await upgraded.refresh())._unsafeUnwrap(), { kind: 'confirmed' });
    assert.equal(ofac.requests.at(-1)?.status, 304);
  });

  test('Sanctions age: an air-gapped copy (file: URL) is as current as its modification time, never re-confirmed while unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ofac-age-'));
    try {
      const path = join(dir, 'sdn.xml');
      writeFileSync(path, renderSdnXml(published()));
      const copied = new Date('2026-11-01T00:00:00Z');
      utimesSync(path, copied, copied);
      let now = new Date('2026-11-21T00:00:00Z');
      const url = pathToFileURL(path).href;
      const refresher = new OfacRefresher({ store: createMemoryStores().sanctionsLists, url, now: () => now });
      const risk = createRiskProviders({ ofacList: refresher, now: () => now.getTime() })._unsafeUnwrap();
      const screen = (address: string) => risk.sanctions.screen([address], ctx);

      // A copy written 20 days ago proves nothing clean today, however often it is re-read.
      assert.equal((await refresher.refresh())._unsafeUnwrap().kind, 'replaced');
      assert.equal(refresher.status().confirmedAt.toISOString(), copied.toISOString());
      assert.equal((await screen(CLEAN)).status, 'unavailable');
      assert.equal(hits(await screen(ADDED))[0]?.[0], ADDED, 'its listings still count');
      now = new Date(now.getTime() + 3_600_000);
      await refresher.refresh();
      assert.equal(refresher.status().confirmedAt.toISOString(), copied.toISOString(), 'an unchanged file is no news');
      assert.equal((await screen(CLEAN)).status, 'unavailable');

      // An operator copies today's file: current from then, stale again two days after.
      const fresh = new Date(now.getTime() - 60_000);
      utimesSync(path, fresh, fresh);
      await refresher.refresh();
      assert.deepEqual(hits(await screen(CLEAN)), []);
      now = new Date(now.getTime() + 49 * 3_600_000);
      await refresher.refresh();
      assert.equal((await screen(CLEAN)).status, 'unavailable');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an older publication does not replace a newer list in use', async () => {
    const { refresher } = setup();
    await refresher.refresh();
    ofac.publish(published([], new Date('2026-11-01T00:00:00Z')));
    try {
      assert.equal((await refresher.refresh())._unsafeUnwrapErr().kind, 'older');
    } finally {
      ofac.publish(published());
    }
  });
});

/** An OFAC mirror whose answers a test scripts (a proxy that drops validators, a 304 that takes its time). */
async function scriptedOfac(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sdn.xml`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** `store` with some of its calls replaced (to hold or slow them, as a database round trip may be). */
function withStore(store: SanctionsListStore, replaced: Partial<SanctionsListStore>): SanctionsListStore {
  return {
    currentHeader: () => store.currentHeader(),
    currentList: () => store.currentList(),
    replaceList: (p) => store.replaceList(p),
    confirmList: (p) => store.confirmList(p),
    recordFailure: (f) => store.recordFailure(f),
    lastFailure: () => store.lastFailure(),
    ...replaced,
  };
}

describe('Sanctions age: a 304 confirms only the list it was asked about', () => {
  const start = new Date('2026-11-21T00:00:00Z');
  const body = renderSdnXml(published());

  test('a 304 to a request that carried no validators confirms nothing', async () => {
    // A mirror that sends neither ETag nor Last-Modified, then answers 304 whatever it is asked.
    let served = 0;
    const mirror = await scriptedOfac((_req, res) => {
      if (served++ === 0) res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
      else res.writeHead(304).end();
    });
    try {
      let now = start;
      const refresher = new OfacRefresher({
        store: createMemoryStores().sanctionsLists,
        url: mirror.url,
        now: () => now,
      });
      const risk = createRiskProviders({ ofacList: refresher, now: () => now.getTime() })._unsafeUnwrap();
      assert.equal((await refresher.refresh())._unsafeUnwrap().kind, 'replaced');
      now = new Date(start.getTime() + 49 * 3_600_000);
      assert.equal((await refresher.refresh())._unsafeUnwrapErr().kind, 'download');
      assert.equal(refresher.status().confirmedAt.toISOString(), start.toISOString());
      assert.equal((await risk.sanctions.screen([CLEAN], ctx)).status, 'unavailable');
    } finally {
      await mirror.close();
    }
  });

  // Held on its way: the mirror's 304, or the store's answer to the confirmation it wrote (a PostgreSQL
  // UPDATE committed, its reply still travelling). Meanwhile an operator loads another list, known
  // current a week ago, and the host adopts it.
  for (const held of ['the 304', "the store's answer to the confirmation"] as const) {
    test(`a 304 does not confirm another list adopted while ${held} was on its way`, async () => {
      let release: () => void = () => {};
      const releasing = new Promise<void>((resolve) => (release = resolve));
      let reached: () => void = () => {};
      const holding = new Promise<void>((resolve) => (reached = resolve));
      const hold = async () => (reached(), await releasing);
      const mirror = await scriptedOfac((req, res) => {
        if (req.headers['if-none-match'] !== '"v1"') {
          return void res.writeHead(200, { 'content-type': 'application/xml', etag: '"v1"' }).end(body);
        }
        void (held === 'the 304' ? hold() : Promise.resolve()).then(() => res.writeHead(304, { etag: '"v1"' }).end());
      });
      try {
        let now = start;
        const memory = createMemoryStores().sanctionsLists;
        const store: SanctionsListStore =
          held === 'the 304'
            ? memory
            : withStore(memory, { confirmList: async (p) => (await memory.confirmList(p)) && (await hold(), true) });
        const host = new OfacRefresher({ store, url: mirror.url, now: () => now });
        const risk = createRiskProviders({ ofacList: host, now: () => now.getTime() })._unsafeUnwrap();
        assert.equal((await host.refresh())._unsafeUnwrap().kind, 'replaced');
        now = new Date(start.getTime() + 3_600_000);
        const refreshing = host.refresh();
        await holding;
        const operator = new OfacRefresher({ store: memory, url: null, now: () => now });
        const week = new Date(start.getTime() - 7 * 86_400_000);
        const parsed = (await parseOfacXml([body], { maxAddresses: 1000 }))._unsafeUnwrap();
        const loaded = { ...parsed, source: '/var/lib/ofac/old.xml', confirmedAt: week, validators: null };
        assert.equal(
          (
            await operator.apply({
              ...loaded,
              entries: [...parsed.entries, { address: ADDED_LATER, tag: 'TRX', name: null }],
            })
          )._unsafeUnwrap().kind,
          'replaced',
        );
        assert.equal(await host.sync(), 'adopted');
        release();
        await refreshing;
        assert.equal(host.status().source, '/var/lib/ofac/old.xml');
        assert.equal(host.status().confirmedAt.toISOString(), week.toISOString(), 'the 304 was about the other list');
        assert.equal((await memory.currentHeader())?.confirmedAt.toISOString(), week.toISOString());
        assert.equal((await risk.sanctions.screen([CLEAN], ctx)).status, 'unavailable', 'a week old is stale');
      } finally {
        release();
        await mirror.close();
      }
    });
  }
});

describe('A refresh never makes things worse: the same publication day', () => {
  test('a same-day list older than the one in use (a mirror or cache edge lagging behind) does not replace it', async () => {
    // OFAC publishes by the day: a second action that day adds ADDED. A lagging edge then serves the
    // day's first version again, with its own (earlier) Last-Modified.
    const earlier = { body: renderSdnXml(published()), etag: '"first"', modified: 'Fri, 20 Nov 2026 10:00:00 GMT' };
    const later = {
      body: renderSdnXml(published([entry(7, ADDED_LATER, 'TRX', 'ADDED LATER THAT DAY')])),
      etag: '"second"',
      modified: 'Fri, 20 Nov 2026 16:00:00 GMT',
    };
    let serving = later;
    const mirror = await scriptedOfac((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/xml', etag: serving.etag, 'last-modified': serving.modified })
        .end(serving.body),
    );
    try {
      const now = new Date('2026-11-21T00:00:00Z');
      const refresher = new OfacRefresher({
        store: createMemoryStores().sanctionsLists,
        url: mirror.url,
        now: () => now,
      });
      const risk = createRiskProviders({ ofacList: refresher, now: () => now.getTime() })._unsafeUnwrap();
      assert.equal((await refresher.refresh())._unsafeUnwrap().kind, 'replaced');
      serving = earlier;
      assert.equal((await refresher.refresh())._unsafeUnwrapErr().kind, 'older');
      const screened = await risk.sanctions.screen(['TWd4WrZ9wn84f5x1hZhL4DHvk738ns5jwb'], ctx);
      assert.equal(screened.status === 'answered' && screened.hits.length, 1, 'the later listing stays');
    } finally {
      await mirror.close();
    }
  });
});

describe('Errors: a bug in storing a list is not the store failing', () => {
  test('a TypeError from the store rejects apply; a store that fails is a counted store failure, the list kept', async () => {
    const store = createMemoryStores().sanctionsLists;
    const refresher = new OfacRefresher({ store, url: null });
    const parsed = (await parseOfacXml([renderSdnXml(published())], { maxAddresses: 1000 }))._unsafeUnwrap();
    const loaded = { ...parsed, source: '/var/lib/ofac/sdn.xml', confirmedAt: new Date(), validators: null };
    const replaceList = store.replaceList.bind(store);
    store.replaceList = async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'id')");
    };
    await assert.rejects(refresher.apply(loaded), TypeError);
    store.replaceList = async () => {
      throw Object.assign(new Error('connection terminated'), { code: '57P01' });
    };
    assert.equal((await refresher.apply(loaded))._unsafeUnwrapErr().kind, 'store');
    assert.equal(refresher.status().format, 'bundled', 'the list in use is kept');
    store.replaceList = replaceList;
  });
});

describe('Sanctions refresh: publication dates are days', () => {
  test("OFAC's list of the day an operator's plain list is dated (with a time of day) is not older: it replaces it, and its new address is a hit", async () => {
    const day = new Date('2026-11-21T00:00:00Z');
    let serving = {
      body: renderSdnXml(published([], day)),
      etag: '"a"',
      modified: 'Sat, 21 Nov 2026 08:00:00 GMT',
    };
    const ofac = await scriptedOfac((_req, res) =>
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
      // It keeps every TRON address of the list in use (a same-day list from another source without one is older).
      const plainEntries = [...bundledSdnEntries().map((e) => e.ids[0]!.number), ADDED, UNDER_XBT].map((address) => ({
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
        body: renderSdnXml(published([entry(7, ADDED_LATER, 'TRX', 'ADDED LATER THAT DAY')], day)),
        etag: '"b"',
        modified: 'Sat, 21 Nov 2026 16:00:00 GMT',
      };
      now = new Date('2026-11-21T17:00:00Z');
      const refreshed = await host.refresh();
      assert.equal(refreshed._unsafeUnwrap().kind, 'replaced', "OFAC's list is of the same day, not older");
      assert.deepEqual(hits(await risk.sanctions.screen([ADDED_LATER], ctx)), [
        [ADDED_LATER, 'OFAC SDN (Digital Currency Address - TRX)', 'ADDED LATER THAT DAY'],
      ]);
    } finally {
      await ofac.close();
    }
  });

  test("a plain list dated in the future (clamped to now, a time of day) does not make the day's OFAC list older", async () => {
    const day = new Date('2026-11-21T00:00:00Z');
    let now = new Date('2026-11-21T10:00:00Z');
    const store = createMemoryStores().sanctionsLists;
    const operator = new OfacRefresher({ store, url: null, now: () => now });
    const parsed = (await parseOfacXml([renderSdnXml(published([], day))], { maxAddresses: 1000 }))._unsafeUnwrap();
    const typo = new Date('2027-11-21T00:00:00Z');
    const plain = parsed.entries.map((e) => ({ address: e.address, tag: 'list', name: null }));
    await operator.apply(
      { source: '/x.txt', format: 'plain', publishedAt: typo, confirmedAt: typo, entries: plain, validators: null },
      { force: true },
    );
    now = new Date('2026-11-21T17:00:00Z');
    const next = (
      await parseOfacXml([renderSdnXml(published([entry(7, ADDED_LATER, 'TRX', 'LATER')], day))], {
        maxAddresses: 1000,
      })
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

describe("Sanctions refresh: a sync racing this host's own refresh", () => {
  test('a sync that read the store before this host replaced its list does not adopt the older list it read', async () => {
    const day = new Date('2026-11-21T00:00:00Z');
    const older = renderSdnXml(published([], new Date('2026-11-20T00:00:00Z')));
    const newer = renderSdnXml(published([entry(8, ADDED_LATER, 'TRX', 'NEW')], day));
    let body = older;
    let etag = '"old"';
    const ofac = await scriptedOfac((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/xml', etag }).end(body),
    );
    try {
      const now = new Date('2026-11-21T09:00:00Z');
      const memory = createMemoryStores().sanctionsLists;
      // Another host stores the older list.
      const other = new OfacRefresher({ store: memory, url: ofac.url, now: () => now });
      assert.equal((await other.refresh())._unsafeUnwrap().kind, 'replaced');

      // This host's timer sync reads the store (one snapshot, as PostgreSQL's REPEATABLE READ gives) and
      // its answer arrives only after the hourly refresh, started at the same time, has replaced the list.
      let refreshed: () => void = () => {};
      const afterRefresh = new Promise<void>((resolve) => (refreshed = resolve));
      let first = true;
      const store = withStore(memory, {
        currentList: async () => {
          const snapshot = await memory.currentList();
          if (first) {
            first = false;
            await afterRefresh;
          }
          return snapshot;
        },
      });
      const host = new OfacRefresher({ store, url: ofac.url, now: () => now });
      const risk = createRiskProviders({ ofacList: host, now: () => now.getTime() })._unsafeUnwrap();
      body = newer;
      etag = '"new"';
      const timerSync = host.sync();
      assert.equal((await host.refresh())._unsafeUnwrap().kind, 'replaced');
      refreshed();
      await timerSync;
      const stored = await memory.currentHeader();
      assert.equal(
        host.inUse().id,
        stored?.id,
        `host screens with ${host.inUse().publishedAt.toISOString()} while the store holds ${stored?.publishedAt.toISOString()}`,
      );
      const screened = await risk.sanctions.screen([ADDED_LATER], ctx);
      assert.equal(screened.status === 'answered' && screened.hits.length, 1, 'the newly listed address is a hit');
    } finally {
      await ofac.close();
    }
  });
});

/**
 * Static-file mirrors as `python3 -m http.server` and many internal mirrors serve OFAC's file: Last-Modified
 * (the file's time, i.e. when the mirror copied it) and If-Modified-Since (304 when not modified after the
 * date), no ETag. Each host of a deployment may have its own mirror (`OFAC_SDN_URL`) and share one store.
 */
async function staticMirrors() {
  const files = new Map<string, { body: string; lastModified: Date }>();
  const requests: { path: string; ifModifiedSince: string | null; status: number }[] = [];
  const mirror = await scriptedOfac((req, res) => {
    const path = req.url ?? '';
    const file = files.get(path);
    const since = req.headers['if-modified-since'] ?? null;
    const unmodified =
      file && since !== null && Math.floor(file.lastModified.getTime() / 1000) * 1000 <= Date.parse(since);
    const status = !file ? 404 : unmodified ? 304 : 200;
    requests.push({ path, ifModifiedSince: since, status });
    if (!file) return void res.writeHead(404).end();
    const headers = { 'content-type': 'application/xml', 'last-modified': file.lastModified.toUTCString() };
    res.writeHead(status, headers).end(status === 200 ? file.body : undefined);
  });
  const base = mirror.url.replace(/\/sdn\.xml$/, '');
  return { url: (path: string) => `${base}${path}`, files, requests, close: mirror.close };
}

type Mirrors = Awaited<ReturnType<typeof staticMirrors>>;

/**
 * Runs `body` with two hosts, each refreshing from its own mirror (`/a/sdn.xml`, `/b/sdn.xml`), sharing one
 * store and a clock, and host A's screening.
 */
async function onTwoHosts(
  start: Date,
  body: (hosts: {
    mirrors: Mirrors;
    clock: { now: Date };
    hostA: OfacRefresher;
    hostB: OfacRefresher;
    hitsOnA: (address: string) => Promise<ReturnType<typeof hits>>;
  }) => Promise<void>,
) {
  const mirrors = await staticMirrors();
  try {
    const clock = { now: start };
    const store = createMemoryStores().sanctionsLists;
    const host = (path: string) => new OfacRefresher({ store, url: mirrors.url(path), now: () => clock.now });
    const hostA = host('/a/sdn.xml');
    const risk = createRiskProviders({ ofacList: hostA, now: () => clock.now.getTime() })._unsafeUnwrap();
    const hitsOnA = async (address: string) => hits(await risk.sanctions.screen([address], ctx));
    await body({ mirrors, clock, hostA, hostB: host('/b/sdn.xml'), hitsOnA });
  } finally {
    await mirrors.close();
  }
}

const LATER_HIT = [[ADDED_LATER, 'OFAC SDN (Digital Currency Address - TRX)', 'ADDED LATER THAT DAY']];
const withLater = (day: Date) => renderSdnXml(published([entry(7, ADDED_LATER, 'TRX', 'ADDED LATER THAT DAY')], day));

describe('Sanctions age: validators are sent back only to the server that sent them', () => {
  test("another host's confirmation of the same list from its own mirror never has this host ask its mirror with that mirror's Last-Modified (a 304 would confirm yesterday's list)", async () => {
    await onTwoHosts(new Date('2026-11-21T00:00:00Z'), async ({ mirrors, clock, hostA, hostB, hitsOnA }) => {
      const day20 = new Date('2026-11-20T00:00:00Z');
      mirrors.files.set('/a/sdn.xml', {
        body: renderSdnXml(published([], day20)),
        lastModified: new Date('2026-11-20T18:00:00Z'),
      });
      assert.equal((await hostA.refresh())._unsafeUnwrap().kind, 'replaced');

      // 01:00 OFAC designates ADDED_LATER; mirror A has it. Mirror B lags: its copy job rewrote yesterday's file at 01:30.
      const day21 = new Date('2026-11-21T00:00:00Z');
      mirrors.files.set('/a/sdn.xml', { body: withLater(day21), lastModified: new Date('2026-11-21T01:00:00Z') });
      mirrors.files.set('/b/sdn.xml', {
        body: renderSdnXml(published([], day20)),
        lastModified: new Date('2026-11-21T01:30:00Z'),
      });
      clock.now = new Date('2026-11-21T02:00:00Z');
      assert.equal((await hostB.refresh())._unsafeUnwrap().kind, 'confirmed', 'the same list, from mirror B');
      await hostA.sync();
      clock.now = new Date('2026-11-21T03:00:00Z');
      assert.equal((await hostA.refresh())._unsafeUnwrap().kind, 'replaced');

      const askedA = mirrors.requests.filter((r) => r.path === '/a/sdn.xml').at(-1);
      assert.notEqual(askedA?.ifModifiedSince, 'Sat, 21 Nov 2026 01:30:00 GMT', "mirror B's date, sent to mirror A");
      assert.deepEqual(await hitsOnA(ADDED_LATER), LATER_HIT);
    });
  });
});

describe("A refresh never makes things worse: the same publication day from another host's mirror", () => {
  // OFAC published the 11-21 list in the morning, then a version of the same day adding ADDED_LATER (09:30).
  // Mirror A has that version, Last-Modified 09:30. Mirror B's copy job, reading a lagging cache, rewrote the
  // morning version at 10:00: its Last-Modified is its copy time, later than mirror A's, yet an earlier version.
  const day = new Date('2026-11-21T00:00:00Z');
  const serveBoth = (mirrors: Mirrors) => {
    mirrors.files.set('/a/sdn.xml', { body: withLater(day), lastModified: new Date('2026-11-21T09:30:00Z') });
    mirrors.files.set('/b/sdn.xml', {
      body: renderSdnXml(published([], day)),
      lastModified: new Date('2026-11-21T10:00:00Z'),
    });
  };

  test("a same-day version from another source that lacks an address of the list in use is refused as older, whatever its Last-Modified (a mirror's copy time)", async () => {
    await onTwoHosts(new Date('2026-11-21T09:45:00Z'), async ({ mirrors, clock, hostA, hostB, hitsOnA }) => {
      serveBoth(mirrors);
      assert.equal((await hostA.refresh())._unsafeUnwrap().kind, 'replaced');
      clock.now = new Date('2026-11-21T10:30:00Z');
      const refused = (await hostB.refresh())._unsafeUnwrapErr();
      assert.equal(refused.kind, 'older', refused.reason);
      await hostA.sync();
      clock.now = new Date('2026-11-21T11:00:00Z');
      assert.ok((await hostA.refresh()).isOk());
      assert.deepEqual(await hitsOnA(ADDED_LATER), LATER_HIT);
    });
  });

  test('a same-day version from another source that keeps every address of the list in use replaces it, though its Last-Modified is earlier', async () => {
    await onTwoHosts(new Date('2026-11-21T10:30:00Z'), async ({ mirrors, clock, hostA, hostB, hitsOnA }) => {
      serveBoth(mirrors);
      assert.equal((await hostB.refresh())._unsafeUnwrap().kind, 'replaced');
      clock.now = new Date('2026-11-21T11:00:00Z');
      assert.equal((await hostA.refresh())._unsafeUnwrap().kind, 'replaced');
      assert.deepEqual(await hitsOnA(ADDED_LATER), LATER_HIT);
    });
  });
});
