import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  startFakeChainalysis,
  startFakeTronNode,
  TRON_FIXTURE_TX,
  type FakeChainalysis,
  type FakeTronNode,
} from '@tron-safety/core/testing';
import { OFAC_TRON_LIST } from '@tron-safety/core/sanctions';
import { request } from 'undici';
import { staleReason } from '../build-state.mjs';

// The host as a user starts it: `npm start` runs examples/host/start.mjs, which builds when stale
// and then runs the built main. When the tree is built and fresh (CI builds before testing) the
// test runs that same start.mjs; otherwise (sources edited since the last build) the same main
// module from source, since a test must not build. Configured only through the environment and a
// seed file, then stopped with SIGTERM.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const ENTRY =
  staleReason(ROOT) === null
    ? ['examples/host/start.mjs']
    : ['--conditions=source', '--import', 'tsx', 'examples/host/src/main.ts'];
const KEY = 'tsk_live_start_test_key_0000000000000000';
const ORG = '2b9f0c36-5a55-4b1e-8c53-7f1c2de1a001';

interface Host {
  child: ChildProcess;
  url: string;
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
}

function writeSeed(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tron-safety-start-'));
  const path = join(dir, 'seed.json');
  writeFileSync(
    path,
    JSON.stringify({
      plans: [
        {
          code: 'starter',
          version: 1,
          name: 'Starter',
          rate_limit_per_minute: 120,
          max_concurrent_requests: 4,
          monthly_quota: 1000,
          enabled_networks: ['tron'],
        },
      ],
      organizations: [
        {
          id: ORG,
          name: 'Acme Pay',
          status: 'active',
          plan: { code: 'starter', version: 1 },
          custom_entitlements: null,
          api_keys: [{ label: 'ci', key: KEY, revoked: false }],
        },
      ],
    }),
  );
  return path;
}

function startHostProcess(env: Record<string, string>): Promise<Host> {
  const child = spawn(process.execPath, ENTRY, {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  // 'close', not 'exit': the last log lines ('stopped') may still be in the pipe when the process exits.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`host did not start: ${stderr}`));
    }, 60_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      lines.push(entry);
      if (typeof entry.url === 'string' && String(entry.msg).startsWith('listening')) {
        clearTimeout(timer);
        resolve({ child, url: entry.url, lines, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`host exited with ${code} before listening: ${stderr}`));
    });
  });
}

/**
 * Resolves once the fake node has been asked for each of `txs` since call number `from`: the checks
 * are then in the host's hands (a fixed sleep could send SIGTERM before a loaded machine got there).
 */
async function untilAsked(node: FakeTronNode, from: number, txs: string[]) {
  const asked = () =>
    new Set(
      node.calls
        .slice(from)
        .filter((c) => c.path === 'gettransactionbyid')
        .map((c) => String((c.body as { value?: unknown }).value).toLowerCase()),
    );
  const deadline = Date.now() + 30_000;
  while (!txs.every((tx) => asked().has(tx.toLowerCase()))) {
    if (Date.now() > deadline) throw new Error(`the node was never asked for all of ${txs.join(', ')}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function check(url: string, txHash: string) {
  const res = await request(`${url}/v1/transaction/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify({ tx_hash: txHash, network: 'tron' }),
  });
  return { status: res.statusCode, json: (await res.body.json()) as any };
}

describe('the host started as a user starts it', () => {
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  let seedFile: string;
  before(async () => {
    node = await startFakeTronNode();
    vendors = await startFakeChainalysis();
    seedFile = writeSeed();
  });
  after(() => Promise.all([node.close(), vendors.close()]));

  const env = (extra: Record<string, string>) => ({
    SAFETY_SEED_FILE: seedFile,
    TRON_FULLNODE_URL: node.url,
    CHAINALYSIS_API_URL: vendors.entityUrl,
    CHAINALYSIS_API_KEY: 'test-entity-key',
    CHAINALYSIS_SANCTIONS_URL: vendors.sanctionsUrl,
    CHAINALYSIS_SANCTIONS_API_KEY: 'test-sanctions-key',
    OFAC_SDN_URL: 'off', // offline: the sanctions API answers for every address here
    ...extra,
  });

  test('serves the API from env + seed file; SIGTERM lets in-flight checks finish and releases everything', async () => {
    const host = await startHostProcess(env({ SHUTDOWN_GRACE_MS: '8000' }));
    const status = await request(`${host.url}/v1/status`);
    assert.deepEqual(await status.body.json(), { business_access: 'enabled' });
    const openapi = await request(`${host.url}/v1/openapi.json`);
    assert.equal(((await openapi.body.json()) as { openapi: string }).openapi.startsWith('3.1'), true);
    const first = await check(host.url, TRON_FIXTURE_TX.trxTransfer);
    assert.equal(first.status, 200);
    assert.equal(first.json.transaction_state, 'confirmed');
    // Sanctions: the start-up line names the list in use and its age, and warns when it is past the limit.
    const listening = host.lines.find((l) => String(l.msg).startsWith('listening')) as { sanctions?: any };
    assert.deepEqual(
      [listening.sanctions?.list, listening.sanctions?.refresh, listening.sanctions?.past_limit],
      ['bundled snapshot', 'off', true],
    );
    assert.ok(listening.sanctions.age_hours > 48);
    assert.ok(host.lines.some((l) => l.level === 40 && /past the 2-day age limit/.test(String(l.msg))));

    const removeFault = node.fault({ fault: { kind: 'latency', ms: 700 } });
    try {
      const txs = [TRON_FIXTURE_TX.usdtTransfer, TRON_FIXTURE_TX.trc10Transfer, TRON_FIXTURE_TX.voteWitness];
      const from = node.calls.length;
      const inFlight = txs.map((tx) => check(host.url, tx));
      await untilAsked(node, from, txs);
      host.child.kill('SIGTERM');
      const answers = await Promise.all(inFlight);
      for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.json));
      assert.equal(await host.exited, 0);
    } finally {
      removeFault();
    }
    const stopped = host.lines.find((l) => l.msg === 'stopped');
    assert.deepEqual(
      { in_flight: stopped?.in_flight, reserved: stopped?.reserved_after_drain },
      { in_flight: 0, reserved: 0 },
    );
    const requests = host.lines.filter((l) => l.msg === 'request');
    assert.ok(requests.length >= 6);
    for (const line of requests) assert.match(String(line.request_id), /\S/);
    assert.ok(!JSON.stringify(host.lines).includes(KEY), 'the API key never reaches the log');
  });

  // Koa writes its answer a tick after the service resolves: the connections must not be cut before that.
  for (const framework of ['express', 'koa']) {
    test(`past the shutdown grace, in-flight checks fail cleanly (503 api_disabled) and nothing stays reserved (${framework})`, async () => {
      const host = await startHostProcess(env({ SHUTDOWN_GRACE_MS: '200', HOST_FRAMEWORK: framework }));
      const removeFault = node.fault({ path: 'gettransactionbyid', fault: { kind: 'hang' } });
      try {
        const txs = [TRON_FIXTURE_TX.trxTransfer, TRON_FIXTURE_TX.withdrawBalance];
        const from = node.calls.length;
        const inFlight = txs.map((tx) => check(host.url, tx));
        await untilAsked(node, from, txs);
        host.child.kill('SIGTERM');
        for (const a of await Promise.all(inFlight)) {
          assert.equal(a.status, 503, JSON.stringify(a.json));
          assert.equal(a.json.error.code, 'api_disabled');
          assert.equal(a.json.error.retryable, true);
        }
        assert.equal(await host.exited, 0);
      } finally {
        removeFault();
      }
      const stopped = host.lines.find((l) => l.msg === 'stopped');
      assert.equal(stopped?.reserved_after_drain, 0);
    });
  }

  test('the start-up log shows provider URLs as their origin only (keys in user-info, path or query stay out)', async () => {
    const secretUrl = 'http://user:pw-secret@127.0.0.1:9/key-secret/?apikey=q-secret';
    const host = await startHostProcess(
      env({ TRON_FULLNODE_URL: secretUrl, TRON_SOLIDITY_URL: `${secretUrl}solidity` }),
    );
    host.child.kill('SIGTERM');
    assert.equal(await host.exited, 0);
    const listening = host.lines.find((l) => String(l.msg).startsWith('listening'));
    assert.deepEqual(
      [listening?.tron_full_node, listening?.tron_solidity_node],
      ['http://127.0.0.1:9', 'http://127.0.0.1:9'],
    );
    assert.doesNotMatch(JSON.stringify(host.lines), /secret/);
  });

  test('Sanctions age: the start-up line dates the sanctions screen as the screen does (a current # full-list file beside the stale snapshot)', async () => {
    const asOf = new Date(Date.now() - 3_600_000);
    const full = join(mkdtempSync(join(tmpdir(), 'start-full-list-')), 'full.txt');
    const addresses = [...OFAC_TRON_LIST.addresses.keys()].join('\n');
    writeFileSync(full, `# full-list\n# as-of: ${asOf.toISOString()}\n${addresses}\n`);
    const host = await startHostProcess(env({ SANCTIONS_LIST_FILES: full }));
    host.child.kill('SIGTERM');
    assert.equal(await host.exited, 0);
    const listening = host.lines.find((l) => String(l.msg).startsWith('listening')) as { sanctions?: any };
    const { list, confirmed_at, as_of, past_limit } = listening.sanctions ?? {};
    assert.deepEqual(
      [list, confirmed_at, as_of, past_limit],
      ['bundled snapshot', '2025-11-27T12:26:36.000Z', asOf.toISOString(), false],
    );
    assert.ok(!host.lines.some((l) => /past the 2-day age limit/.test(String(l.msg))), 'no stale-list warning');
  });

  test('refuses to start with a message naming the field (DATABASE_URL, no PostgreSQL there): never falls back to memory', async () => {
    const child = spawn(process.execPath, ENTRY, {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', DATABASE_URL: 'postgres://u@127.0.0.1:1/db' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    assert.equal(await new Promise((resolve) => child.once('close', resolve)), 2);
    assert.match(stderr, /refusing to start: DATABASE_URL: cannot prepare PostgreSQL at 127.0.0.1:1\/db/);
  });
});
