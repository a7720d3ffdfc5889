import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { OFAC_TRON_AS_OF } from '../src/risk/data/ofac-tron.js';
import { hexToBase58Address } from '../src/tron/address.js';
import { createRiskProviders } from '../src/risk/providers.js';
import { combineSanctionsAnswers, combineSanctionsProviders } from '../src/risk/sanctions-combine.js';
import {
  createListSanctionsProvider,
  loadSanctionsListFile,
  OFAC_TRON_LIST,
  parseSanctionsList,
  type SanctionsList,
} from '../src/risk/sanctions-list.js';
import type { SanctionsAnswer } from '../src/risk/signals.js';
import { BUNDLED_LIST_CURRENT } from '../src/testing/fake-ofac.js';
import { fixturePath } from '../src/testing/fixtures.js';

const ctx = { signal: new AbortController().signal };
const screener = createListSanctionsProvider([OFAC_TRON_LIST], BUNDLED_LIST_CURRENT);
const NOT_LISTED = ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'];

/** The TRON addresses of one OFAC file (`address` or `address;names` lines). */
function tronAddresses(file: string): string[] {
  const text = readFileSync(fixturePath('sanctions', file), 'utf8');
  const all = file.endsWith('.json')
    ? (JSON.parse(text) as string[])
    : text
        .split('\n')
        .map((l) => l.split(';')[0]!.trim())
        .filter((l) => l !== '');
  return all.filter((a) => a.startsWith('T'));
}

async function hitsOf(addresses: string[]): Promise<Map<string, { source: string; name: string | null }>> {
  const answer = await screener.screen(addresses, ctx);
  assert.equal(answer.status, 'answered');
  return new Map((answer as Extract<SanctionsAnswer, { status: 'answered' }>).hits.map((h) => [h.address, h]));
}

describe('bundled OFAC list: every address of every OFAC file is a hit', () => {
  const files: [string, number][] = [
    ['ofac_trx.txt', 184],
    ['ofac_trx.json', 184],
    ['ofac_trx_named_2025-11-27.txt', 29],
    ['ofac_usdt_named_2025-11-27.txt', 78],
    ['ofac_trx_2024-09-27.txt', 6],
  ];
  for (const [file, count] of files) {
    test(`${file}: all ${count} TRON addresses screened as hits, a non-listed address is not`, async () => {
      const addresses = tronAddresses(file);
      assert.equal(addresses.length, count);
      const hits = await hitsOf([...addresses, ...NOT_LISTED]);
      for (const a of addresses) assert.ok(hits.has(a), `${a} from ${file}`);
      for (const a of NOT_LISTED) assert.equal(hits.has(a), false, a);
      assert.equal(hits.size, new Set(addresses).size);
    });
  }

  test('USDT-tagged TRON wallets carry their feature and SDN name; TRX ones too where the named file gives it', async () => {
    const hits = await hitsOf(['TA3941uFAvmVibSkQ6fMJXxmaSNovX86mz', 'TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM']);
    assert.deepEqual(hits.get('TA3941uFAvmVibSkQ6fMJXxmaSNovX86mz'), {
      address: 'TA3941uFAvmVibSkQ6fMJXxmaSNovX86mz',
      source: 'OFAC SDN (Digital Currency Address - USDT)',
      name: 'CHEIL CREDIT BANK',
    });
    assert.equal(hits.get('TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM')?.name, 'Grinex');
    assert.equal(OFAC_TRON_LIST.addresses.size, 184 + 78);
  });

  test('the list is as of the conservative date 2025-11-27T12:26:36Z', async () => {
    assert.equal(OFAC_TRON_AS_OF, '2025-11-27T12:26:36.000Z');
    const answer = await screener.screen(NOT_LISTED, ctx);
    assert.deepEqual(answer, { status: 'answered', hits: [], asOf: new Date(OFAC_TRON_AS_OF) });
  });
});

describe('maximum list age', () => {
  const DAY = 86_400_000;
  const asOf = new Date(OFAC_TRON_AS_OF).getTime();
  const aged = (days: number, maxAgeDays?: number) =>
    createListSanctionsProvider([OFAC_TRON_LIST], {
      ...(maxAgeDays ? { maxAgeDays } : {}),
      now: () => asOf + days * DAY,
    });

  test('past the limit no hit is unavailable (the list no longer proves clean), a hit still stands', async () => {
    const stale = await aged(31, 30).screen(NOT_LISTED, ctx);
    assert.deepEqual(stale, {
      status: 'unavailable',
      reason: 'sanctions list as of 2025-11-27T12:26:36.000Z is older than the 30-day limit',
      asOf: OFAC_TRON_LIST.asOf,
    });
    const hit = await aged(31, 30).screen([...NOT_LISTED, 'TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM'], ctx);
    assert.equal(hit.status, 'answered');
    assert.deepEqual(
      (hit as Extract<SanctionsAnswer, { status: 'answered' }>).hits.map((h) => h.address),
      ['TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM'],
    );
  });

  test('Freshness by default: within the limit no hit is clean; the default limit is 2 days, and there is no "no limit"', async () => {
    assert.equal((await aged(30, 30).screen(NOT_LISTED, ctx)).status, 'answered');
    assert.equal((await aged(2).screen(NOT_LISTED, ctx)).status, 'answered');
    assert.equal((await aged(2.01).screen(NOT_LISTED, ctx)).status, 'unavailable');
    assert.throws(() => createListSanctionsProvider([OFAC_TRON_LIST], { maxAgeDays: 0 }), /maxAgeDays/);
  });
});

describe('extra list files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sanctions-list-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('one address a line, # comments, an as-of comment, blank lines', () => {
    const list = parseSanctionsList(
      '# our blocklist\n# as-of: 2026-03-01T00:00:00Z\n\nTJRabPrwbZy45sbavfcjinPJC18kjpRTv8  # a scammer\r\n',
      'ours.txt',
      new Date(0),
    )._unsafeUnwrap();
    assert.deepEqual([...list.addresses.keys()], ['TJRabPrwbZy45sbavfcjinPJC18kjpRTv8']);
    assert.equal(list.asOf.toISOString(), '2026-03-01T00:00:00.000Z');
  });

  test('invalid lines are rejected with file and line', () => {
    const bad = (text: string) => parseSanctionsList(text, 'ours.txt', new Date())._unsafeUnwrapErr();
    assert.equal(
      bad('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8\nTJRabPrwbZy45sbavfcjinPJC18kjpRTv9\n'),
      'ours.txt:2: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv9" is not a valid TRON address',
    );
    assert.match(bad('0x19aa5fe80d33a56d56c78e82ea5e50e5d80b4dff'), /^ours\.txt:1: .* is not a valid TRON address$/);
    assert.match(bad('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8, TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM'), /ours\.txt:1/);
    assert.equal(bad('# as-of: yesterday'), 'ours.txt:1: "yesterday" is not a date');
  });

  test('a file loads with its mtime as as-of; a supplement (no # full-list) does not date the screen', async () => {
    const path = join(dir, 'extra.txt');
    writeFileSync(path, 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8\n');
    const mtime = new Date('2024-01-02T03:04:05Z');
    utimesSync(path, mtime, mtime);
    const list = loadSanctionsListFile(path)._unsafeUnwrap();
    assert.equal(list.asOf.getTime(), mtime.getTime());
    assert.equal(list.full, false);
    const answer = await createListSanctionsProvider([OFAC_TRON_LIST, list]).screen(
      ['TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'],
      ctx,
    );
    assert.deepEqual(answer, {
      status: 'answered',
      hits: [{ address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', source: path, name: null }],
      asOf: OFAC_TRON_LIST.asOf,
      incomplete: true, // the bundled snapshot is past the age limit: its hits stand, nothing else is vouched for
    });
    assert.match(loadSanctionsListFile(join(dir, 'missing.txt'))._unsafeUnwrapErr(), /cannot read sanctions list/);
  });

  test('a # full-list file without # as-of is a load error: its modification time (a checkout, a copy) would date the screen', () => {
    const path = join(dir, 'full-undated.txt');
    writeFileSync(path, '# full-list\nTJRabPrwbZy45sbavfcjinPJC18kjpRTv8\n');
    assert.equal(
      loadSanctionsListFile(path)._unsafeUnwrapErr(),
      `${path}: a '# full-list' file needs a '# as-of: DATE' line`,
    );
    writeFileSync(path, '# full-list\n# as-of: 2026-11-20T00:00:00Z\nTJRabPrwbZy45sbavfcjinPJC18kjpRTv8\n');
    assert.equal(loadSanctionsListFile(path)._unsafeUnwrap().asOf.toISOString(), '2026-11-20T00:00:00.000Z');
  });
});

describe('SANCTIONS_LIST_MAX_AGE_DAYS with list files: the newest full list dates the screen', () => {
  const DAY = 86_400_000;
  const now = Date.parse('2026-11-22T00:00:00Z');
  const file = (header: string) =>
    parseSanctionsList(`${header}\nTLZSucJRjnqBKwvQz6n5hd29gbS4P7u7w8\n`, 'ours.txt', new Date(0))._unsafeUnwrap();
  const screen = (lists: SanctionsList[]) =>
    createListSanctionsProvider([OFAC_TRON_LIST, ...lists], { maxAgeDays: 30, now: () => now });

  test('a current full list file makes the screen current beside the year-old bundled list, and dates it', async () => {
    const fresh = file('# full-list\n# as-of: 2026-11-20T00:00:00Z');
    assert.equal(fresh.full, true);
    assert.deepEqual(await screen([fresh]).screen(NOT_LISTED, ctx), { status: 'answered', hits: [], asOf: fresh.asOf });
    // The bundled list is still screened: its hits stand.
    const hit = await screen([fresh]).screen(['TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM'], ctx);
    assert.deepEqual(
      (hit as Extract<SanctionsAnswer, { status: 'answered' }>).hits.map((h) => h.address),
      ['TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM'],
    );
  });

  test('a fresh supplement, or a full list itself too old, leaves the screen stale', async () => {
    const supplement = file('# as-of: 2026-11-21T00:00:00Z');
    assert.equal((await screen([supplement]).screen(NOT_LISTED, ctx)).status, 'unavailable');
    const oldFull = file(`# full-list\n# as-of: ${new Date(now - 31 * DAY).toISOString()}`);
    assert.deepEqual(await screen([oldFull]).screen(NOT_LISTED, ctx), {
      status: 'unavailable',
      reason: `sanctions list as of ${oldFull.asOf.toISOString()} is older than the 30-day limit`,
      asOf: oldFull.asOf,
    });
  });
});

/** A list file of `text` in a directory removed after the test file. */
function listFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sanctions-list-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'full.txt');
  writeFileSync(path, text);
  return path;
}

describe('Sanctions age: a list dated in the future refuses to load', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sanctions-future-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const loadedAt = new Date('2026-11-21T00:00:00Z');

  test('a # full-list file whose # as-of is in the future (3024 for 2024) is a start error naming it, not current at every start', () => {
    const path = join(dir, 'full.txt');
    writeFileSync(path, '# full-list\n# as-of: 3024-11-01\nTLZSucJRjnqBKwvQz6n5hd29gbS4P7u7w8\n');
    assert.equal(
      loadSanctionsListFile(path, loadedAt)._unsafeUnwrapErr(),
      `${path}: '# as-of' 3024-11-01T00:00:00.000Z is in the future (this host's clock reads 2026-11-21T00:00:00.000Z): no list is known current beyond now`,
    );
    const refused = createRiskProviders({ sanctionsListFiles: [path], now: () => loadedAt.getTime() });
    assert.equal(refused._unsafeUnwrapErr().variable, 'SANCTIONS_LIST_FILES');
  });

  test('within a minute of clock skew a date counts as the load; a supplement modified in the future is refused too', () => {
    const path = join(dir, 'skewed.txt');
    writeFileSync(
      path,
      `# as-of: ${new Date(loadedAt.getTime() + 30_000).toISOString()}\nTLZSucJRjnqBKwvQz6n5hd29gbS4P7u7w8\n`,
    );
    assert.equal(loadSanctionsListFile(path, loadedAt)._unsafeUnwrap().asOf.getTime(), loadedAt.getTime());
    // Undated: its modification time dates it, and a clock ahead would make it current at every start.
    writeFileSync(path, 'TLZSucJRjnqBKwvQz6n5hd29gbS4P7u7w8\n');
    const ahead = new Date(Date.now() + 86_400_000);
    utimesSync(path, ahead, ahead);
    assert.match(loadSanctionsListFile(path)._unsafeUnwrapErr(), /: modified .* is in the future/);
  });
});

describe('Sanctions age: a # full-list file dates the screen only if it is a full list', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sanctions-full-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const now = Date.parse('2026-11-22T00:00:00Z');
  const bundled = [...OFAC_TRON_LIST.addresses.keys()];
  const fullFile = (name: string, addresses: readonly string[]) => {
    const path = join(dir, name);
    writeFileSync(path, `# full-list\n# as-of: 2026-11-21T00:00:00Z\n${addresses.join('\n')}\n`);
    return path;
  };
  const providers = (path: string, ofacList?: { current(): SanctionsList }) =>
    createRiskProviders({ sanctionsListFiles: [path], now: () => now, ...(ofacList ? { ofacList } : {}) });

  test('an empty # full-list file dated today (or one missing over 10% of the OFAC list in use) is a start error naming it', () => {
    const empty = fullFile('empty.txt', []);
    assert.deepEqual(providers(empty)._unsafeUnwrapErr(), {
      option: 'sanctionsListFiles',
      variable: 'SANCTIONS_LIST_FILES',
      message:
        `${empty}: a '# full-list' file must hold at least 90% of the ${bundled.length} addresses of the OFAC list in use ` +
        `(as of ${OFAC_TRON_LIST.asOf.toISOString()}), it holds 0: it cannot date the screen ` +
        "(without the '# full-list' line it is screened as a supplement)",
    });
    const short = fullFile('short.txt', bundled.slice(0, Math.ceil(bundled.length * 0.9) - 1));
    assert.match(providers(short)._unsafeUnwrapErr().message, /it holds 235:/);
    // The refresher's own allowance: a full list may lack up to 10 % (OFAC delists too).
    const enough = fullFile('enough.txt', bundled.slice(0, Math.ceil(bundled.length * 0.9)));
    const screened = providers(enough)._unsafeUnwrap();
    assert.equal(screened.sanctionsStatus().asOf.toISOString(), '2026-11-21T00:00:00.000Z');
  });

  test('a full list file dates the screen, the same date the host reports; once the OFAC list in use outgrows it, the OFAC list dates it', async () => {
    let ofac = OFAC_TRON_LIST;
    const path = fullFile('full.txt', bundled);
    const risk = providers(path, { current: () => ofac })._unsafeUnwrap();
    assert.deepEqual(await risk.sanctions.screen(NOT_LISTED, ctx), {
      status: 'answered',
      hits: [],
      asOf: new Date('2026-11-21T00:00:00Z'),
    });
    assert.equal(risk.sanctionsStatus().asOf.toISOString(), '2026-11-21T00:00:00.000Z');
    // Another host's list (older than the file, a third larger) is adopted after the load: the file lacks
    // what it adds, so it is no full list beside it and only its hits count.
    const grown = new Map(OFAC_TRON_LIST.addresses);
    for (let i = 1; i <= bundled.length / 3; i++)
      grown.set(hexToBase58Address(`41${i.toString(16).padStart(40, '0')}`)!, { source: 'OFAC SDN', name: null });
    ofac = { asOf: new Date('2026-11-10T00:00:00Z'), full: true, addresses: grown };
    assert.equal(risk.sanctionsStatus().asOf.toISOString(), '2026-11-10T00:00:00.000Z');
    const stale = await risk.sanctions.screen(NOT_LISTED, ctx);
    assert.deepEqual([stale.status, stale.asOf], ['unavailable', ofac.asOf], 'past the 2-day limit');
    const hit = await risk.sanctions.screen([bundled[0]!], ctx);
    assert.equal(hit.status === 'answered' && hit.hits.length, 2, "a hit stands (the OFAC list's and the file's)");
  });
});

describe('Sanctions age: sanctionsStatus() reports the lists as the screener judges them', () => {
  test('each list by name (ofac, the file path) with its date; past the limit exactly when a clean screen turns unavailable', async () => {
    const path = listFile(
      `# full-list\n# as-of: 2026-11-21T00:00:00Z\n${[...OFAC_TRON_LIST.addresses.keys()].join('\n')}\n`,
    );
    const asOf = new Date('2026-11-21T00:00:00Z');
    let now = asOf.getTime() + 47 * 3_600_000;
    const risk = createRiskProviders({ sanctionsListFiles: [path], now: () => now })._unsafeUnwrap();
    const status = risk.sanctionsStatus();
    assert.deepEqual(
      status.lists.map((l) => [l.name, l.full]),
      [
        ['ofac', true],
        [path, true],
      ],
    );
    assert.deepEqual([status.asOf, status.maxAgeDays, status.pastLimit], [asOf, 2, false]);
    assert.equal((await risk.sanctions.screen(NOT_LISTED, ctx)).status, 'answered');
    now += 2 * 3_600_000;
    assert.equal(risk.sanctionsStatus().pastLimit, true);
    assert.equal((await risk.sanctions.screen(NOT_LISTED, ctx)).status, 'unavailable');
  });
});

describe('combining sanctions answers', () => {
  const hit = (source: string): SanctionsAnswer => ({
    status: 'answered',
    hits: [{ address: 'T1', source, name: null }],
    asOf: new Date(2000),
  });
  const clean = (asOf: number): SanctionsAnswer => ({ status: 'answered', hits: [], asOf: new Date(asOf) });
  const down: SanctionsAnswer = { status: 'unavailable', reason: 'HTTP 500' };

  test('any hit → hits, even when another source failed: then incomplete (coverage partial), not a complete screen', () => {
    assert.deepEqual(combineSanctionsAnswers([down, hit('a')]), {
      status: 'answered',
      hits: [{ address: 'T1', source: 'a', name: null }],
      asOf: new Date(2000),
      incomplete: true,
    });
    assert.deepEqual(combineSanctionsAnswers([hit('a'), clean(3000)]), {
      status: 'answered',
      hits: [{ address: 'T1', source: 'a', name: null }],
      asOf: new Date(2000),
    });
    const staleHit: SanctionsAnswer = { status: 'answered', hits: [], asOf: new Date(1), incomplete: true };
    assert.equal((combineSanctionsAnswers([staleHit, hit('b')]) as { incomplete?: boolean }).incomplete, true);
  });
  test('no hit, all answered → clean as of the oldest', () => {
    assert.deepEqual(combineSanctionsAnswers([clean(5000), clean(3000)]), {
      status: 'answered',
      hits: [],
      asOf: new Date(3000),
    });
  });
  test('no hit and a failed source → unavailable; no source at all → unavailable', () => {
    assert.deepEqual(combineSanctionsAnswers([clean(1), down]), { status: 'unavailable', reason: 'HTTP 500' });
    assert.equal(combineSanctionsAnswers([]).status, 'unavailable');
  });
  test('an answer neither answered nor unavailable (a provider breaking the type) is a failed source: never clean, never an invalid as-of', () => {
    const odd = { status: 'pending', reason: 'queued' } as unknown as SanctionsAnswer;
    assert.deepEqual(combineSanctionsAnswers([odd]), { status: 'unavailable', reason: 'queued' });
    assert.deepEqual(combineSanctionsAnswers([clean(1), odd]), { status: 'unavailable', reason: 'queued' });
  });

  test('a source that rejects (breaking its promise) is only that source unavailable: a list hit still stands', async () => {
    const broken = { screen: () => Promise.reject(new Error('boom')) };
    const throwing = {
      screen: (): Promise<SanctionsAnswer> => {
        throw new Error('sync boom');
      },
    };
    const combined = combineSanctionsProviders([screener, broken, throwing]);
    const hit = await combined.screen(['TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM'], ctx);
    assert.equal(hit.status, 'answered');
    assert.deepEqual(
      (hit as Extract<SanctionsAnswer, { status: 'answered' }>).hits.map((h) => h.address),
      ['TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM'],
    );
    assert.deepEqual(await combined.screen(NOT_LISTED, ctx), {
      status: 'unavailable',
      reason: 'provider failed: Error: boom; provider failed: Error: sync boom',
    });
  });
});
