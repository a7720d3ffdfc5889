import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { SanctionsListStore, StoredSanctionsList } from '../stores/sanctions-lists.js';
import type { StoreFactory } from './store-conformance.js';

const T0 = new Date('2026-11-20T00:00:00.000Z');
const at = (hours: number) => new Date(T0.getTime() + hours * 3_600_000);

function list(entries: number, overrides: Partial<StoredSanctionsList> = {}): StoredSanctionsList {
  const rows = Array.from({ length: entries }, (_, i) => ({
    address: `T${String(i).padStart(33, '0')}`,
    tag: i % 2 === 0 ? 'TRX' : 'XBT',
    name: i === 0 ? null : `Entry ${i} «ü»`,
  }));
  return {
    id: randomUUID(),
    source: 'https://ofac.example/sdn.xml',
    format: 'sdn',
    publishedAt: at(-24),
    confirmedAt: at(0),
    savedAt: at(0),
    addressCount: rows.length,
    etag: '"v1"',
    lastModified: 'Fri, 20 Nov 2026 00:00:00 GMT',
    entries: rows,
    ...overrides,
  };
}

/** The stored list's id now (the store may be shared with other cases: the list is one per store). */
const currentId = async (store: SanctionsListStore) => (await store.currentHeader())?.id ?? null;

/**
 * The sanctions list store: one list, replaced whole by compare-and-set, confirmed forward only.
 * Called by `runStoreConformance`, so every store package runs it.
 */
export function runSanctionsListStoreConformance(name: string, factory: StoreFactory): void {
  const withStore = (title: string, body: (store: SanctionsListStore) => Promise<void>) =>
    test(title, async () => {
      const { stores, close } = await factory();
      try {
        await body(stores.sanctionsLists);
      } finally {
        await close?.();
      }
    });

  describe(`${name}: sanctions list store`, () => {
    withStore('Shared list: replace stores header and entries together; currentList reads them back', async (store) => {
      const saved = list(3);
      assert.equal(await store.replaceList({ replaces: await currentId(store), list: saved }), true);
      const { entries, ...header } = saved;
      assert.deepEqual(await store.currentHeader(), header);
      assert.deepEqual(await store.currentList(), { ...header, entries });
    });

    withStore('Shared list: a replace against a list that is no longer current writes nothing', async (store) => {
      const first = list(2);
      assert.equal(await store.replaceList({ replaces: await currentId(store), list: first }), true);
      const second = list(1);
      assert.equal(await store.replaceList({ replaces: first.id, list: second }), true);
      // A host that still holds `first` (another host replaced it meanwhile) must not undo `second`.
      assert.equal(await store.replaceList({ replaces: first.id, list: list(5) }), false);
      assert.equal(await store.replaceList({ replaces: null, list: list(5) }), false);
      const current = await store.currentList();
      assert.equal(current?.id, second.id);
      assert.deepEqual(current?.entries, second.entries, 'the old entries are gone, the new ones whole');
    });

    withStore('Shared list: concurrent replaces of the same list: exactly one wins', async (store) => {
      const base = list(1);
      assert.equal(await store.replaceList({ replaces: await currentId(store), list: base }), true);
      const candidates = [list(4), list(6), list(8)];
      const results = await Promise.all(candidates.map((c) => store.replaceList({ replaces: base.id, list: c })));
      assert.equal(results.filter(Boolean).length, 1);
      const winner = candidates[results.indexOf(true)]!;
      assert.equal((await store.currentList())?.entries.length, winner.entries.length);
    });

    withStore(
      'Shared list: confirm moves confirmedAt forward only, sets source and validators together, and misses another id',
      async (store) => {
        const saved = list(1);
        await store.replaceList({ replaces: await currentId(store), list: saved });
        const confirm = (id: string, hours: number) =>
          store.confirmList({
            id,
            confirmedAt: at(hours),
            source: `https://mirror-${hours}.example/sdn.xml`,
            etag: `"v${hours}"`,
            lastModified: null,
          });
        assert.equal(await confirm(saved.id, 5), true);
        assert.equal(await confirm(saved.id, 2), true);
        const header = await store.currentHeader();
        assert.deepEqual(
          [header?.confirmedAt, header?.source, header?.etag, header?.lastModified],
          [at(5), 'https://mirror-2.example/sdn.xml', '"v2"', null],
        );
        assert.equal(await confirm(randomUUID(), 9), false);
        assert.deepEqual((await store.currentHeader())?.confirmedAt, at(5));
      },
    );

    withStore('Shared list: the last failure is kept, replaced by the next', async (store) => {
      await store.recordFailure({ at: at(1), reason: 'HTTP 503' });
      await store.recordFailure({ at: at(2), reason: 'malformed XML: unclosed tag: sdnList' });
      assert.deepEqual(await store.lastFailure(), { at: at(2), reason: 'malformed XML: unclosed tag: sdnList' });
    });

    withStore('Shared list: a list of 20 000 addresses is stored and read whole', async (store) => {
      const big = list(20_000, { format: 'sdn_advanced', etag: null, lastModified: null });
      assert.equal(await store.replaceList({ replaces: await currentId(store), list: big }), true);
      const read = await store.currentList();
      assert.equal(read?.entries.length, 20_000);
      assert.deepEqual(read?.entries.at(-1), big.entries.at(-1));
    });
  });
}
