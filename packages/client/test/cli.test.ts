import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  startFakeChainalysis,
  startFakeTronNode,
  TRON_FIXTURE_TX,
  USDT_CONTRACT,
  type FakeChainalysis,
  type FakeTronNode,
} from '@tron-safety/core/testing';
import { createLogger, parseConfig, startHost, type RunningHost } from '@tron-safety/example-host';
import { request } from 'undici';
import { runCli } from '../src/cli/run.js';

// `tron-safety` against a real host over HTTP (the example host on 127.0.0.1, a fake java-tron node
// serving recorded mainnet answers, fake vendors): every exit code, --json equal to the API's body,
// and a 503 retried with the same Idempotency-Key to the result that key then replays.

const KEY = 'tsk_live_cli_test_key_000000000000000000';
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

function seedFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tron-safety-cli-')), 'seed.json');
  const plan = { code: 'cli', version: 1, name: 'CLI', rate_limit_per_minute: 600, max_concurrent_requests: 8 };
  writeFileSync(
    path,
    JSON.stringify({
      plans: [{ ...plan, monthly_quota: 1000, enabled_networks: ['tron'] }],
      organizations: [
        {
          id: '2b9f0c36-5a55-4b1e-8c53-7f1c2de1a0c1',
          name: 'CLI test',
          status: 'active',
          plan: { code: 'cli', version: 1 },
          custom_entitlements: null,
          api_keys: [{ label: 'cli', key: KEY, revoked: false }],
        },
      ],
    }),
  );
  return path;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('tron-safety CLI against a real host', () => {
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  let host: RunningHost;
  const lines: Record<string, unknown>[] = [];

  before(async () => {
    node = await startFakeTronNode();
    vendors = await startFakeChainalysis();
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const config = parseConfig({
      PORT: '0',
      OFAC_SDN_URL: 'off', // offline: the fake sanctions API answers for every address
      SAFETY_SEED_FILE: seedFile(),
      TRON_FULLNODE_URL: node.url,
      CHAINALYSIS_API_URL: vendors.entityUrl,
      CHAINALYSIS_API_KEY: 'k',
      CHAINALYSIS_SANCTIONS_URL: vendors.sanctionsUrl,
      CHAINALYSIS_SANCTIONS_API_KEY: 'k',
    })._unsafeUnwrap();
    host = (await startHost(config, createLogger('info', sink)))._unsafeUnwrap();
  });
  after(async () => {
    await host?.stop('test end');
    await Promise.all([node?.close(), vendors?.close()]);
  });

  async function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      env: { TRON_SAFETY_URL: host.url, TRON_SAFETY_API_KEY: KEY, ...env },
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    });
    return { code, stdout, stderr };
  }

  /** The same check straight over HTTP (a replay when the key was used before). */
  async function direct(txHash: string, idempotencyKey: string, expected: Record<string, string> = {}) {
    const res = await request(`${host.url}/v1/transaction/check`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify({ tx_hash: txHash, network: 'tron', ...expected }),
    });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  }

  test('exit 0 for CLEAR, and --json prints the API body byte for byte', async () => {
    const paid = { expected_recipient: 'TBy2NECVVZRS4Aia4oYXe669HuhgKAiYE3', expected_amount: '150.46632' };
    const expecting = ['--recipient', paid.expected_recipient, '--amount', paid.expected_amount];
    const tx = TRON_FIXTURE_TX.trxTransferToNewAccount;
    const run = await cli(['check', tx, ...expecting, '--json', '--idempotency-key', 'cli-0']);
    assert.equal(run.code, 0, run.stderr);
    const replay = await direct(tx, 'cli-0', paid);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(run.stdout, replay.body);
    assert.equal(JSON.parse(run.stdout).overall_state, 'CLEAR');
  });

  test('exit 1 for any other answered state, with a readable summary', async () => {
    const run = await cli([
      'check',
      TRON_FIXTURE_TX.usdtTransfer,
      '--token',
      USDT_CONTRACT,
      '--amount',
      '1000000',
      '--recipient',
      'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx',
    ]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /^REVIEW {2}request /);
    assert.match(run.stdout, /warning +EXPECTED_AMOUNT_MISMATCH \(expected\)/);
    assert.match(run.stdout, /match +recipient true, token true, amount false/);
    assert.match(run.stdout, /#0 trc20 +41\.677389 USDT/);
    assert.match(run.stdout, /coverage +complete/);
    assert.match(run.stdout, /freshness +checked /);
    assert.match(run.stdout, /safe to book: no: overall_state is REVIEW/);
    assert.doesNotMatch(run.stdout, /\x1b\[/, 'no colour when stdout is not a terminal');
  });

  test('exit 2 for an API error (the envelope as received with --json) and for an unreachable service', async () => {
    const refused = await cli(['check', TRON_FIXTURE_TX.trxTransfer, '--json'], {
      TRON_SAFETY_API_KEY: 'tsk_live_wrong',
    });
    assert.equal(refused.code, 2);
    assert.equal(JSON.parse(refused.stdout).error.code, 'invalid_api_key');
    assert.match(refused.stderr, /HTTP 401 invalid_api_key/);
    assert.ok(!refused.stderr.includes('tsk_live_wrong'), 'the API key is never printed');

    const closed = await cli(['usage'], { TRON_SAFETY_URL: 'http://127.0.0.1:9' });
    assert.equal(closed.code, 2);
    assert.match(closed.stderr, /ECONNREFUSED/);
    const unknown = await cli(['check', TRON_FIXTURE_TX.trxTransfer, '--json'], {
      TRON_SAFETY_URL: 'http://127.0.0.1:9',
    });
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stdout, '');
    assert.match(
      JSON.parse(unknown.stderr).error.message,
      /run again with --idempotency-key [0-9a-f-]{36}, never a new key/,
    );
  });

  test('exit 64 for a wrong command line', async () => {
    for (const args of [
      [],
      ['check'],
      ['check', 'a', 'b'],
      ['check', 'a', '--bogus'],
      ['usage', '--days', 'x'],
      ['frobnicate'],
    ]) {
      const run = await cli(args);
      assert.equal(run.code, 64, args.join(' '));
      assert.match(run.stderr, /Usage:/);
    }
  });

  test('Errors 5: a 503 is retried with the same key until the check runs once, and that key replays its result', async () => {
    host.service.setApiDisabled(true);
    const from = lines.length;
    const payee = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';
    const args = ['check', TRON_FIXTURE_TX.trxTransfer, '--recipient', payee, '--amount', '0.000001', '--json'];
    args.push('--idempotency-key', 'cli-503');
    const running = cli(args);
    const deadline = Date.now() + 10_000;
    while (!lines.slice(from).some((l) => l.status === 503)) {
      assert.ok(Date.now() < deadline, 'the CLI never reached the paused host');
      await new Promise((r) => setTimeout(r, 5));
    }
    host.service.setApiDisabled(false);
    const run = await running;
    assert.equal(JSON.parse(run.stdout).overall_state, 'CLEAR', run.stderr);
    assert.equal(run.code, 0);
    const requests = lines.slice(from).filter((l) => l.msg === 'request');
    assert.ok(requests.length >= 2 && requests[0]!.status === 503 && requests.at(-1)!.status === 200);
    const again = await cli(args);
    assert.equal(again.stdout, run.stdout, 'the same idempotent result, byte for byte');
  });

  test('Errors 2: a stored 503 is replayed to the retry, which stops there', async () => {
    const remove = node.fault({ fault: { kind: 'status', status: 503 } });
    try {
      const first = await cli(['check', 'cd'.repeat(32), '--json', '--idempotency-key', 'cli-stored']);
      assert.equal(first.code, 2);
      assert.equal(JSON.parse(first.stdout).error.code, 'provider_unavailable');
      const replay = await direct('cd'.repeat(32), 'cli-stored');
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(first.stdout, replay.body, 'the stored error, as the CLI printed it');
    } finally {
      remove();
    }
  });

  test('usage: exit 0 with the period and recent counts, --json as received', async () => {
    const run = await cli(['usage', '--days', '7']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /this month +used \d+, reserved 0/);
    const json = await cli(['usage', '--json']);
    assert.equal(JSON.parse(json.stdout).recent.days, 30);
  });
});

describe('the tron-safety bin', () => {
  // The built bin when the build is fresh (CI builds first), else the same CLI from source.
  const built = join(PACKAGE, 'dist', 'cli.js');
  const fresh = existsSync(built) && statSync(built).mtimeMs >= statSync(join(PACKAGE, 'src', 'cli', 'run.ts')).mtimeMs;
  const entry = fresh
    ? [join(PACKAGE, 'bin', 'tron-safety.js')]
    : ['--conditions=source', '--import', 'tsx', join(PACKAGE, 'src', 'cli.ts')];
  const bin = (...args: string[]) =>
    spawnSync(process.execPath, [...entry, ...args], { encoding: 'utf8', timeout: 30_000 });

  test('--help and --version answer without touching the network; a wrong command line exits 64', () => {
    const help = bin('--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /tron-safety check <tx_hash>/);
    assert.match(help.stdout, /64 +wrong command line/);
    const version = bin('--version');
    assert.equal(version.status, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
    assert.equal(bin('check').status, 64);
  });
});
