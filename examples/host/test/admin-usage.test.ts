import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  startFakeChainalysis,
  startFakeTronNode,
  TRON_FIXTURE_TX,
  type FakeChainalysis,
  type FakeTronNode,
} from '@tron-safety/core/testing';
import { request } from 'undici';
import { runAdmin } from '../src/admin-cli.js';
import { fakeProvidersEnv, startTestHost, TEST_KEY, TEST_ORG, writeSeedFile, type TestHost } from './support.js';

// `tron-safety-admin usage` in memory mode: usage lives in the running host, so the CLI asks it
// over HTTP with one of the organization's keys (TRON_SAFETY_API_KEY, else one a hand-written seed
// file holds in full) and decodes the answer.

async function admin(t: { mock: any }, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = t.mock.method(console, 'log', (...a: unknown[]) => out.push(a.join(' ')));
  const error = t.mock.method(console, 'error', (...a: unknown[]) => err.push(a.join(' ')));
  try {
    return { code: await runAdmin(args), out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mock.restore();
    error.mock.restore();
  }
}

/** A host on 127.0.0.1 that answers every request with this status and body. */
async function answering(status: number, body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('admin CLI usage (memory mode): asks the running host', () => {
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  let t: TestHost;
  const seed = writeSeedFile();
  before(async () => {
    node = await startFakeTronNode();
    vendors = await startFakeChainalysis();
    t = await startTestHost({
      SAFETY_SEED_FILE: seed,
      ...fakeProvidersEnv(node, vendors),
    });
  });
  after(async () => {
    await t?.host.stop('test end');
    await Promise.all([node?.close(), vendors?.close()]);
  });

  test("usage prints the host's own count of the organization's checks, as JSON and as text", async (tc) => {
    const res = await request(`${t.host.url}/v1/transaction/check`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' }),
    });
    assert.equal(res.statusCode, 200);
    await res.body.dump();

    const json = await admin(tc, '--seed-file', seed, '--json', 'usage', TEST_ORG, '--url', t.host.url, '--days', '7');
    assert.equal(json.code, 0, json.err);
    const usage = JSON.parse(json.out);
    assert.equal(usage.recent.days, 7);
    assert.equal(usage.recent.requests, 1);
    assert.equal(usage.period.used + usage.period.remaining, usage.period.limit);

    const text = await admin(tc, '--seed-file', seed, 'usage', TEST_ORG, '--url', `${t.host.url}/`);
    assert.equal(text.code, 0, text.err);
    assert.match(
      text.out,
      /^period \S+ \.\. \S+: used \d+, reserved 0, limit 1000, remaining \d+\nlast 30 days: 1 checks, /,
    );
  });

  test("usage asks with TRON_SAFETY_API_KEY, an active key of the organization, when the seed file keeps only keys' hashes", async (tc) => {
    const hashed = join(mkdtempSync(join(tmpdir(), 'tron-safety-usage-')), 'seed.json');
    copyFileSync(seed, hashed);
    // Any change rewrites the file with every key as its hash and prefix (TEST_KEY's included).
    assert.equal((await admin(tc, '--seed-file', hashed, 'keys', 'create', TEST_ORG, '--label', 'other')).code, 0);
    const usage = (key?: string) => {
      if (key === undefined) delete process.env.TRON_SAFETY_API_KEY;
      else process.env.TRON_SAFETY_API_KEY = key;
      return admin(tc, '--seed-file', hashed, '--json', 'usage', TEST_ORG, '--url', t.host.url);
    };
    try {
      const asked = await usage(TEST_KEY);
      assert.equal(asked.code, 0, asked.err);
      assert.equal(JSON.parse(asked.out).period.limit, 1000);
      const unset = await usage();
      assert.equal(unset.code, 1);
      assert.match(unset.err, /set TRON_SAFETY_API_KEY to one of the organization's active keys/);
      // Another organization's key (or any other) would answer for that organization: refused before asking.
      const other = await usage('tsk_live_not_a_key_of_this_organization_0');
      assert.equal(other.code, 1);
      assert.match(other.err, new RegExp(`TRON_SAFETY_API_KEY is not an active key of organization ${TEST_ORG}`));
    } finally {
      delete process.env.TRON_SAFETY_API_KEY;
    }
  });

  test('a --url of plain http to another host is exit 64 and sends nothing unless --insecure-http; plain http to this machine needs no flag', async (tc) => {
    const seen: (string | undefined)[] = [];
    const server = createServer(
      (req, res) => (seen.push(req.headers['x-api-key'] as string), res.writeHead(502).end()),
    );
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    tc.after(() => new Promise((done) => server.close(done)));
    const { port } = server.address() as AddressInfo;
    // 0.0.0.0 is no loopback name, yet on Linux a connection to it reaches this machine: nothing leaves it.
    const remote = `http://0.0.0.0:${port}`;
    const refused = await admin(tc, '--seed-file', seed, 'usage', TEST_ORG, '--url', remote);
    assert.equal(refused.code, 64);
    assert.equal(
      refused.err,
      `error: --url ${remote} is plain http to another host: the API key would cross the network in clear. Use https, or pass --insecure-http to send it anyway`,
    );
    const json = await admin(tc, '--seed-file', seed, '--json', 'usage', TEST_ORG, '--url', remote);
    assert.equal((JSON.parse(json.err) as { error: { exit_code: number } }).error.exit_code, 64);
    const notHttp = await admin(tc, '--seed-file', seed, 'usage', TEST_ORG, '--url', `ftp://127.0.0.1:${port}`);
    assert.deepEqual([notHttp.code, seen], [64, []], 'nothing was sent');
    // With the flag, and to loopback names without it, the request goes (the 502 is exit 1).
    for (const args of [
      ['--url', remote, '--insecure-http'],
      ['--url', `http://localhost:${port}`],
      ['--url', `http://127.0.0.1:${port}/`],
    ])
      assert.equal((await admin(tc, '--seed-file', seed, 'usage', TEST_ORG, ...args)).code, 1, args.join(' '));
    assert.deepEqual(seen, [TEST_KEY, TEST_KEY, TEST_KEY]);
  });

  test('a host that cannot be reached is exit 2, naming the URL', async (tc) => {
    const gone = await answering(200, '{}');
    await new Promise((done) => gone.server.close(done));
    const r = await admin(tc, '--seed-file', seed, 'usage', TEST_ORG, '--url', gone.url);
    assert.equal(r.code, 2);
    assert.match(r.err, new RegExp(`cannot reach the host at ${gone.url}`));
  });

  test("an answer that is not the spec's usage is exit 1 naming what is wrong, never printed as usage", async (tc) => {
    const odd = await answering(200, JSON.stringify({ period: { used: 'many' } }));
    try {
      const r = await admin(tc, '--seed-file', seed, 'usage', TEST_ORG, '--url', odd.url);
      assert.equal(r.code, 1);
      assert.match(r.err, /the host's usage answer is unreadable \(.+\)/);
      assert.equal(r.out, '');
    } finally {
      await new Promise((done) => odd.server.close(done));
    }
  });

  test("the host's refusal is exit 1 with its code and message; a refusal without the spec's envelope gives the status", async (tc) => {
    // The real host's refusal of a key it does not know, served as the answer to the CLI's key.
    const refused = await request(`${t.host.url}/v1/usage`, { headers: { 'x-api-key': 'tsk_live_unknown' } });
    assert.equal(refused.statusCode, 401);
    const refusal = (await refused.body.json()) as { error: { code: string; message: string } };
    for (const [body, expected] of [
      [JSON.stringify(refusal), `error: ${refusal.error.code}: ${refusal.error.message}`],
      ['<html>bad gateway</html>', 'error: 502: usage request failed'],
    ] as const) {
      const host = await answering(body.startsWith('<') ? 502 : 401, body);
      try {
        const r = await admin(tc, '--seed-file', seed, 'usage', TEST_ORG, '--url', host.url);
        assert.equal(r.code, 1);
        assert.equal(r.err, expected);
      } finally {
        await new Promise((done) => host.server.close(done));
      }
    }
  });
});
