// Sanctions evidence that stays true over time (issue 11, "Must show"): the real host over HTTP, a local
// fake OFAC server publishing sdn.xml / sdn_advanced.xml, a fake java-tron node, and PostgreSQL for two hosts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Writable } from 'node:stream';
import { after, afterEach, before, describe, test } from 'node:test';
import { base58ToHexAddress } from '@tron-safety/core/tron';
import {
  buildTronTransaction,
  bundledSdnEntries,
  renderSdnXml,
  startFakeChainalysis,
  startFakeOfac,
  startFakeTronNode,
  type FakeChainalysis,
  type FakeOfac,
  type FakeSdnList,
  type FakeTronNode,
} from '@tron-safety/core/testing';
import { createPostgresStores, migrate } from '@tron-safety/store-postgres';
import { startTestPostgres, type TestDatabase, type TestPostgres } from '@tron-safety/store-postgres/testing';
import { request } from 'undici';
import { runAdmin } from '../src/admin-cli.js';
import { parseConfig } from '../src/config.js';
import { startHost, type RunningHost } from '../src/host.js';
import { createLogger } from '../src/log.js';
import { describeSanctions } from '../src/sanctions-refresh.js';

const KEY = 'tsk_live_sanctions_test_key_0000000000000';
const PAYER = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';
const CLEAN = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';
/** Listed by OFAC after the bundled snapshot was made (the fake's newer publication). */
const ADDED = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
/** A valid TRON address OFAC files under the XBT tag. */
const UNDER_XBT = 'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B';
/** In the bundled snapshot (Grinex). */
const BUNDLED = 'TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM';
/** Not a TRON address: OFAC lists it under XBT. */
const BITCOIN = '1KFHE7w8BhaENAswwryaoccDb6qcT6DbYY';
/** Loaded by an operator in the two-host test. */
const LOADED = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';

const today = () => new Date(new Date().toISOString().slice(0, 10));
const sdn = (tag: string, address: string, uid: number, name: string) => ({
  uid,
  lastName: name,
  ids: [{ type: `Digital Currency Address - ${tag}`, number: address }],
});
const publication = (): FakeSdnList => ({
  published: today(),
  entries: [...bundledSdnEntries(), sdn('TRX', ADDED, 1, 'NEW EXCHANGE LLC'), sdn('XBT', UNDER_XBT, 2, 'XBT HOLDER')],
});

/** A finalized TRX payment from a clean payer to `to`; its hash. */
function addPayment(node: FakeTronNode, to: string, i: number): string {
  const built = buildTronTransaction({
    contractType: 'TransferContract',
    parameter: { owner_address: base58ToHexAddress(PAYER)!, to_address: base58ToHexAddress(to)!, amount: 1_000_000 },
    blockNumber: node.heights.solidified - 50 - i,
  });
  node.addTransaction({ transaction: built.transaction, info: built.info });
  return built.txID;
}

function seedFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tron-safety-sanctions-')), 'seed.json');
  const limits = {
    rate_limit_per_minute: 600,
    max_concurrent_requests: 8,
    monthly_quota: 1000,
    enabled_networks: ['tron'],
  };
  writeFileSync(
    path,
    JSON.stringify({
      plans: [{ code: 'p', version: 1, name: 'P', ...limits }],
      organizations: [
        {
          id: '2b9f0c36-5a55-4b1e-8c53-7f1c2de1a0f1',
          name: 'Sanctions test',
          status: 'active',
          plan: { code: 'p', version: 1 },
          custom_entitlements: null,
          api_keys: [{ label: 't', key: KEY, revoked: false }],
        },
      ],
    }),
  );
  return path;
}

describe('Sanctions evidence over time: the host, a fake OFAC server, real HTTP', () => {
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  let ofac: FakeOfac;
  let seed: string;
  const payments = new Map<string, string>();
  const hosts: RunningHost[] = [];
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });

  before(async () => {
    node = await startFakeTronNode();
    vendors = await startFakeChainalysis(); // AML: every address Low; no sanctions API key is given
    ofac = await startFakeOfac(publication());
    seed = seedFile();
    for (const [i, to] of [ADDED, UNDER_XBT, BUNDLED, CLEAN].entries()) payments.set(to, addPayment(node, to, i));
  });
  after(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.stop('test end')));
    await Promise.all([node.close(), vendors.close(), ofac.close()]);
  });

  // Every test's hosts stop when it ends, passed or failed: a host left running would keep logging
  // refreshes into the next test's lines.
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.stop('test end')));
  });

  const starting = async (env: Record<string, string>) => {
    const config = parseConfig({
      PORT: '0',
      SAFETY_SEED_FILE: seed,
      TRON_FULLNODE_URL: node.url,
      CHAINALYSIS_API_URL: vendors.entityUrl,
      CHAINALYSIS_API_KEY: 'k',
      OFAC_REFRESH_SECONDS: '1',
      ...env,
    })._unsafeUnwrap();
    const started = await startHost(config, createLogger('info', sink));
    if (started.isOk()) hosts.push(started.value);
    return started;
  };
  const start = async (env: Record<string, string>) => (await starting(env))._unsafeUnwrap();
  const check = async (host: RunningHost, to: string) => {
    const res = await request(`${host.url}/v1/transaction/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({ tx_hash: payments.get(to), network: 'tron' }),
    });
    const body = (await res.body.json()) as any;
    assert.equal(res.statusCode, 200, JSON.stringify(body));
    return body as {
      overall_state: string;
      sanctions_hit: boolean | null;
      reasons: { code: string }[];
      freshness: any;
    };
  };
  /** Waits (bounded) for the host's next refresh to end and returns its log line. */
  const nextRefresh = async () => {
    const seen = lines.length;
    // Bounded generously: it ends as soon as the line appears, and a loaded CI machine can be slow.
    for (let i = 0; i < 400; i++) {
      const line = lines.slice(seen).find((l) => String(l.event).startsWith('sanctions_refresh'));
      if (line) return line;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('no refresh within 20 s');
  };

  test('an address added by a refresh is found (HIGH_RISK); a valid TRON address under the XBT tag too; a clean payment is CLEAR', async () => {
    const host = await start({ OFAC_SDN_URL: ofac.url });
    await host.sanctions.firstRefresh();
    assert.equal(host.sanctions.status().source, ofac.url);
    const added = await check(host, ADDED);
    assert.deepEqual(
      [added.overall_state, added.sanctions_hit, added.reasons[0]?.code],
      ['HIGH_RISK', true, 'SANCTIONS_HIT'],
    );
    assert.equal((await check(host, UNDER_XBT)).overall_state, 'HIGH_RISK');
    // Refreshes (every second here) may confirm the list while the check runs, more than once on a
    // loaded machine: any confirmation from the one before the check to the last after it is right.
    const before = host.sanctions.status().confirmedAt.getTime();
    const clean = await check(host, CLEAN);
    const after = host.sanctions.status().confirmedAt.getTime();
    assert.deepEqual([clean.overall_state, clean.sanctions_hit], ['CLEAR', false]);
    const riskDataAt = Date.parse(clean.freshness.risk_data_at);
    assert.ok(before <= riskDataAt && riskDataAt <= after, `${clean.freshness.risk_data_at} in [${before}, ${after}]`);
  });

  test('sdn_advanced.xml is read as well as sdn.xml', async () => {
    const host = await start({ OFAC_SDN_URL: ofac.advancedUrl });
    await host.sanctions.firstRefresh();
    assert.equal(host.sanctions.status().format, 'sdn_advanced');
    assert.equal((await check(host, UNDER_XBT)).overall_state, 'HIGH_RISK');
  });

  test('a garbage, truncated, shrunken or failed download keeps the list in use: its hits found, a clean payment still CLEAR; logged and counted', async () => {
    const host = await start({ OFAC_SDN_URL: ofac.url });
    await host.sanctions.firstRefresh();
    const shrunk = { ...publication(), entries: publication().entries.slice(0, 200) };
    const cases: [string, () => void, string][] = [
      ['garbage', () => ofac.setFault({ kind: 'garbage' }), 'parse'],
      ['truncated', () => ofac.setFault({ kind: 'truncated', bytes: 20_000 }), 'parse'],
      ['shrunken', () => ofac.publish(shrunk), 'shrunk'],
      ['failed', () => ofac.setFault({ kind: 'status', status: 503 }), 'download'],
    ];
    try {
      for (const [name, inject, kind] of cases) {
        inject();
        const line = await nextRefresh();
        assert.deepEqual([line.event, line.kind], ['sanctions_refresh_refused', kind], name);
        assert.equal(line.level, 40, `${name}: one warning line`);
        assert.equal((await check(host, ADDED)).overall_state, 'HIGH_RISK', `${name}: the hits of the list in use`);
        assert.equal((await check(host, CLEAN)).overall_state, 'CLEAR', `${name}: a clean payment`);
        ofac.setFault(null);
        ofac.publish(publication());
        await nextRefresh();
      }
      assert.equal(host.sanctions.status().counts.parse, 2);
      assert.equal(host.sanctions.status().counts.shrunk, 1);
      assert.match(host.sanctions.status().lastFailure?.reason ?? '', /^download: HTTP 503/);
    } finally {
      ofac.setFault(null);
      ofac.publish(publication());
    }
  });

  test('a 304 refreshes the age of the list in use', async () => {
    const host = await start({ OFAC_SDN_URL: ofac.url });
    await host.sanctions.firstRefresh();
    const first = host.sanctions.status().confirmedAt.getTime();
    let line = await nextRefresh();
    while (line.outcome !== 'confirmed') line = await nextRefresh();
    assert.equal(ofac.requests.at(-1)?.status, 304);
    assert.ok(host.sanctions.status().confirmedAt.getTime() > first);
  });

  test('past the age limit a clean payment is never CLEAR, a listed one is still HIGH_RISK; the start-up state says so', async () => {
    // Refreshing off: the bundled snapshot (2025-11-27) is far past the 2-day default.
    const host = await start({ OFAC_SDN_URL: 'off' });
    assert.equal(host.sanctions.status().format, 'bundled');
    const clean = await check(host, CLEAN);
    assert.equal(clean.overall_state, 'LIMITED_DATA');
    assert.equal(clean.sanctions_hit, null);
    assert.ok(clean.reasons.some((r) => r.code === 'SANCTIONS_UNAVAILABLE'));
    assert.equal(clean.freshness.risk_data_at, '2025-11-27T12:26:36.000Z', 'risk_data_at shows how old the list is');
    const listed = await check(host, BUNDLED);
    assert.deepEqual([listed.overall_state, listed.sanctions_hit], ['HIGH_RISK', true]);
  });

  const listFile = (text: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'sanctions-list-file-')), 'full.txt');
    writeFileSync(path, text);
    return path;
  };
  const bundledAddresses = () => bundledSdnEntries().map((e) => e.ids[0]!.number);

  test("Sanctions age: an empty '# full-list' file dated today is a start error naming it, not a current screen beside a stale OFAC list", async () => {
    const empty = listFile(`# full-list\n# as-of: ${new Date().toISOString().slice(0, 10)}\n`);
    const refused = (await starting({ OFAC_SDN_URL: 'off', SANCTIONS_LIST_FILES: empty }))._unsafeUnwrapErr();
    assert.equal(refused.field, 'SANCTIONS_LIST_FILES');
    assert.match(
      refused.message,
      new RegExp(`^SANCTIONS_LIST_FILES: ${empty}: a '# full-list' file must hold at least 90% of the \\d+ addresses`),
    );
  });

  test('Sanctions age: a full list file dates the screen, and the start-up line says the same date', async () => {
    const asOf = new Date(Date.now() - 3_600_000);
    const full = listFile(`# full-list\n# as-of: ${asOf.toISOString()}\n${bundledAddresses().join('\n')}\n`);
    const host = await start({ OFAC_SDN_URL: 'off', SANCTIONS_LIST_FILES: full });
    const clean = await check(host, CLEAN);
    assert.deepEqual([clean.overall_state, clean.freshness.risk_data_at], ['CLEAR', asOf.toISOString()]);
    const startup = describeSanctions(host.sanctions.status(), 2, null, { asOf: host.sanctionsAsOf() });
    assert.deepEqual([startup.as_of, startup.past_limit, startup.age_hours], [asOf.toISOString(), false, 1]);
    assert.equal(
      startup.confirmed_at,
      '2025-11-27T12:26:36.000Z',
      'the OFAC list in use is still the bundled snapshot',
    );
  });

  test("Sanctions age: a '# full-list' file dated in the future (3024 for 2024) is a start error, not current at every start", async () => {
    const typo = listFile(`# full-list\n# as-of: 3024-11-01\n${bundledAddresses().join('\n')}\n`);
    const refused = (await starting({ OFAC_SDN_URL: 'off', SANCTIONS_LIST_FILES: typo }))._unsafeUnwrapErr();
    assert.equal(refused.field, 'SANCTIONS_LIST_FILES');
    assert.match(refused.message, /'# as-of' 3024-11-01T00:00:00.000Z is in the future/);
  });

  test('Sanctions age: an OFAC_SDN_URL=file: copy modified in the future is a refused refresh, never confirmed at now', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sdn-future-')), 'sdn.xml');
    writeFileSync(path, renderSdnXml({ ...publication(), published: new Date('2025-11-27T00:00:00Z') }));
    const future = new Date('2030-01-01T00:00:00Z');
    utimesSync(path, future, future);
    const host = await start({ OFAC_SDN_URL: pathToFileURL(path).href });
    const refused = await nextRefresh();
    assert.deepEqual([refused.event, refused.kind], ['sanctions_refresh_refused', 'download']);
    assert.match(refused.reason, /^file modified 2030-01-01T00:00:00.000Z is in the future/);
    const added = await check(host, ADDED);
    assert.deepEqual([added.overall_state, added.sanctions_hit], ['LIMITED_DATA', null]);
  });

  test("Secrets: OFAC_SDN_URL's token or user-info is in no log line, nor in the start-up line's sanctions state", async () => {
    const url = ofac.url.replace('http://', 'http://mirror:S3CRET-PASS@');
    const host = await start({ OFAC_SDN_URL: `${url}?token=S3CRET-TOKEN` });
    const refreshed = await nextRefresh();
    assert.equal(refreshed.event, 'sanctions_refresh');
    assert.equal(refreshed.list_source, ofac.url);
    const startup = describeSanctions(host.sanctions.status(), 2, `${url}?token=S3CRET-TOKEN`);
    assert.deepEqual([startup.list, startup.refresh], [ofac.url, ofac.url]);
    assert.doesNotMatch(JSON.stringify(lines), /S3CRET/);

    const refused = parseConfig({ OFAC_SDN_URL: 'ftp://mirror:S3CRET-PASS@lists.example/sdn.xml?token=S3CRET-TOKEN' });
    assert.equal(
      refused._unsafeUnwrapErr().message,
      "OFAC_SDN_URL: must be an http(s) or file: URL, or off; got 'ftp://lists.example/sdn.xml'",
    );
  });
});

const postgres: TestPostgres = await startTestPostgres();
after(() => postgres.stop());

describe('Shared and durable: two hosts on one PostgreSQL database', { skip: postgres.skip }, () => {
  let db: TestDatabase;
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  let ofac: FakeOfac;
  let payment: string;
  const seed = seedFile();
  const hosts: RunningHost[] = [];
  before(async () => {
    db = await postgres.createDatabase();
    node = await startFakeTronNode();
    vendors = await startFakeChainalysis();
    ofac = await startFakeOfac(publication());
    payment = addPayment(node, ADDED, 0);
  });
  after(async () => {
    await Promise.all(hosts.map((h) => h.stop('test end')));
    await Promise.all([node?.close(), vendors?.close(), ofac?.close()]);
    await db?.drop();
  });

  const start = async (env: Record<string, string>) => {
    const config = parseConfig({
      PORT: '0',
      DATABASE_URL: db.url,
      SAFETY_SEED_FILE: seed,
      TRON_FULLNODE_URL: node.url,
      CHAINALYSIS_API_URL: vendors.entityUrl,
      CHAINALYSIS_API_KEY: 'k',
      OFAC_REFRESH_SECONDS: '1',
      ...env,
    });
    const host = (await startHost(config._unsafeUnwrap(), createLogger('silent')))._unsafeUnwrap();
    hosts.push(host);
    return host;
  };
  const until = async (what: string, done: () => boolean) => {
    for (let i = 0; i < 400 && !done(); i++) await new Promise((r) => setTimeout(r, 50)); // ends when done
    assert.ok(done(), what);
  };
  const admin = async (t: { mock: any }, ...args: string[]) => {
    const out: string[] = [];
    const log = t.mock.method(console, 'log', (...a: unknown[]) => out.push(a.join(' ')));
    process.env.DATABASE_URL = db.url;
    try {
      return { code: await runAdmin(['--json', 'sanctions', ...args]), out: JSON.parse(out.join('\n') || 'null') };
    } finally {
      log.mock.restore();
      delete process.env.DATABASE_URL;
    }
  };

  test("one host's refresh serves the other; a restart starts from the stored list; the CLI's status and load reach every host", async (t) => {
    const refreshing = await start({ OFAC_SDN_URL: ofac.url });
    const other = await start({ OFAC_SDN_URL: 'off' });
    await refreshing.sanctions.firstRefresh();
    await until('the other host adopts the stored list', () => other.sanctions.status().source === ofac.url);
    assert.equal(other.sanctions.status().addresses, refreshing.sanctions.status().addresses);
    const res = await request(`${other.url}/v1/transaction/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({ tx_hash: payment, network: 'tron' }),
    });
    const body = (await res.body.json()) as { overall_state: string; sanctions_hit: boolean };
    assert.deepEqual(
      [body.overall_state, body.sanctions_hit],
      ['HIGH_RISK', true],
      'found by the host that never downloaded',
    );

    const restarted = await start({ OFAC_SDN_URL: 'off' });
    assert.equal(restarted.sanctions.status().source, ofac.url, 'a restart starts from the stored list at once');

    const status = await admin(t, 'status');
    assert.equal(status.code, 0);
    assert.deepEqual(
      [status.out.list, status.out.addresses, status.out.past_limit],
      [ofac.url, refreshing.sanctions.status().addresses, false],
    );

    // Air-gapped (no host downloads): an operator loads OFAC's file; every host screens with it.
    await refreshing.stop('air-gapped from here on');
    const file = join(mkdtempSync(join(tmpdir(), 'sdn-load-')), 'sdn.xml');
    const loaded = publication();
    loaded.entries.push(sdn('USDT', LOADED, 3, 'LOADED BY AN OPERATOR'));
    writeFileSync(file, renderSdnXml(loaded));
    const load = await admin(t, 'load', file, '--as-of', new Date().toISOString());
    assert.deepEqual([load.code, load.out.outcome], [0, 'replaced']);
    for (const host of [other, restarted])
      await until('every host sees the loaded list', () => host.sanctions.status().source === file);
    const inUse = other.sanctions.status().addresses;

    // A shrunken file is refused (exit 1) and changes nothing, unless forced.
    writeFileSync(file, renderSdnXml({ ...loaded, entries: loaded.entries.slice(0, 10) }));
    assert.equal((await admin(t, 'load', file)).code, 1);
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(other.sanctions.status().addresses, inUse);
    assert.equal((await admin(t, 'load', file, '--force')).code, 0);
    await until('a forced load reaches the hosts', () => other.sanctions.status().addresses === 10);

    // Sanctions age: a plain list dated in the future (a typo in # as-of) is refused, even forced, and so is
    // --as-of in the future: counted from the load, either would make the list current at every load.
    const plain = join(mkdtempSync(join(tmpdir(), 'plain-load-')), 'list.txt');
    const typo = new Date(Date.now() + 365 * 86_400_000).toISOString();
    writeFileSync(plain, `# full-list\n# as-of: ${typo}\n${LOADED}\n`);
    const future = await admin(t, 'load', plain, '--force');
    assert.equal(future.code, 1);
    const refused = await admin(t, 'status');
    assert.match(refused.out.last_failure.reason, new RegExp(`^future: confirmed ${typo} is in the future`));
    assert.equal((await admin(t, 'load', file, '--as-of', typo)).code, 64);
    assert.equal(other.sanctions.status().addresses, 10);
  });

  test('sanctions load of an empty file, or of an OFAC file without a TRON address, is refused even with --force (exit 1): the shared list is kept', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'empty-load-'));
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '');
    const otherChains = join(dir, 'sdn.xml');
    writeFileSync(otherChains, renderSdnXml({ published: today(), entries: [sdn('XBT', BITCOIN, 1, 'BITCOIN ONLY')] }));
    const before = (await admin(t, 'status')).out;
    for (const file of [empty, otherChains]) {
      const load = await admin(t, 'load', file, '--force', '--as-of', new Date().toISOString());
      assert.equal(load.code, 1, file);
      const after = (await admin(t, 'status')).out;
      assert.deepEqual([after.list, after.addresses], [before.list, before.addresses], file);
      assert.equal(after.last_failure.reason, `parse: ${file} holds no TRON address: not an OFAC list`);
    }
  });
});

describe('A stored list without a TRON address, on a host that syncs it (PostgreSQL)', { skip: postgres.skip }, () => {
  let db: TestDatabase;
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  let host: RunningHost | undefined;
  let payment: string;
  let listId: string;

  before(async () => {
    db = await postgres.createDatabase();
    node = await startFakeTronNode();
    vendors = await startFakeChainalysis(); // AML Low for every address
    payment = addPayment(node, ADDED, 0);
    // What an earlier version stored from `sanctions load --force empty.txt --as-of <yesterday>`.
    const pool = db.pool(1);
    await migrate(pool);
    const yesterday = new Date(Date.now() - 86_400_000);
    const dates = { publishedAt: yesterday, confirmedAt: yesterday, savedAt: yesterday };
    const list = { id: randomUUID(), source: '/srv/empty.txt', format: 'plain', ...dates } as const;
    const stored = { ...list, addressCount: 0, etag: null, lastModified: null, entries: [] };
    assert.ok(await createPostgresStores({ pool }).sanctionsLists.replaceList({ replaces: null, list: stored }));
    listId = list.id;
    await pool.end();
  });
  after(async () => {
    await host?.stop('test end');
    await Promise.all([node?.close(), vendors?.close()]);
    await db?.drop();
  });

  const check = async () => {
    const res = await request(`${host!.url}/v1/transaction/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({ tx_hash: payment, network: 'tron' }),
    });
    const body = (await res.body.json()) as any;
    assert.equal(res.statusCode, 200, JSON.stringify(body));
    return { state: body.overall_state, sanctions_hit: body.sanctions_hit, risk_data_at: body.freshness.risk_data_at };
  };

  test("a payment to an address designated since the bundled snapshot is never CLEAR, before or after the host syncs the stored list's confirmation: risk_data_at stays the snapshot's date", async () => {
    const config = parseConfig({
      PORT: '0',
      DATABASE_URL: db.url,
      SAFETY_SEED_FILE: seedFile(),
      TRON_FULLNODE_URL: node.url,
      CHAINALYSIS_API_URL: vendors.entityUrl,
      CHAINALYSIS_API_KEY: 'k',
      OFAC_SDN_URL: 'off', // air-gapped: the host only syncs the stored list
      OFAC_REFRESH_SECONDS: '1', // syncs every second
    })._unsafeUnwrap();
    host = (await startHost(config, createLogger('silent')))._unsafeUnwrap();
    const snapshot = { state: 'LIMITED_DATA', sanctions_hit: null, risk_data_at: '2025-11-27T12:26:36.000Z' };
    assert.deepEqual(await check(), snapshot, 'at start the snapshot is screened with its own date');
    // A host of the earlier version confirms the stored row now (a 304 to its conditional request).
    const pool = db.pool(1);
    await pool.query('UPDATE sanctions_list SET confirmed_at = now() WHERE id = $1', [listId]);
    await pool.end();
    await new Promise((r) => setTimeout(r, 2500)); // two syncs
    assert.deepEqual(await check(), snapshot, 'after the syncs');
    assert.equal(host.sanctions.status().confirmedAt.toISOString(), snapshot.risk_data_at);
  });
});
