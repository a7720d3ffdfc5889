import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
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
import { OFAC_TRON_LIST } from '@tron-safety/core/sanctions';
import { hexToBase58Address, TRON_NILE } from '@tron-safety/core/tron';
import { startThrowawayPostgres } from '@tron-safety/store-postgres/testing';
import { request } from 'undici';
import { parseConfig } from '../src/config.js';
import { startupWarnings } from '../src/startup-warnings.js';
import { fakeProvidersEnv, startTestHost, TEST_KEY, TEST_ORG, type TestHost } from './support.js';

// The operations listener (OPS_PORT): /metrics moving with checks, /healthz, /readyz naming what is
// not ready; and what the request log says about each request.

const check = (url: string, txHash: string, expected: Record<string, string> = {}) =>
  request(`${url}/v1/transaction/check`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ tx_hash: txHash, network: 'tron', ...expected }),
  }).then(async (res) => ({ status: res.statusCode, body: await res.body.text() }));

async function scrape(opsUrl: string): Promise<string> {
  const res = await request(`${opsUrl}/metrics`);
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/plain/);
  return res.body.text();
}

/** The value of one sample (`name{labels}`, label order as prom-client writes it), 0 when absent. */
function sample(metrics: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const inner = /\{(.*)\}/.exec(line)?.[1] ?? '';
    if (wanted.every((w) => inner.split(',').includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

interface Readiness {
  status: string;
  failing?: { component: string; problem: string }[];
  degraded?: { component: string; problem: string }[];
}

async function readiness(opsUrl: string): Promise<{ status: number; body: Readiness }> {
  const res = await request(`${opsUrl}/readyz`);
  return { status: res.statusCode, body: (await res.body.json()) as Readiness };
}

describe('Operations: metrics, health and readiness', () => {
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  let t: TestHost;
  before(async () => {
    node = await startFakeTronNode();
    vendors = await startFakeChainalysis();
    t = await startTestHost({
      OPS_PORT: '0',
      ...fakeProvidersEnv(node, vendors),
    });
  });
  after(async () => {
    await t?.host.stop('test end');
    await Promise.all([node?.close(), vendors?.close()]);
  });

  test('/metrics after a few checks: requests by route, status and code, check latency, provider calls move', async () => {
    const ops = t.host.opsUrl!;
    const before = await scrape(ops);
    const ok200 = { route: '/v1/transaction/check', method: 'POST', status: '200', code: 'none' };
    const bad = { route: '/v1/transaction/check', method: 'POST', status: '422', code: 'malformed_tx_hash' };
    assert.equal((await check(t.host.url, TRON_FIXTURE_TX.trxTransferToNewAccount)).status, 200);
    assert.equal((await check(t.host.url, TRON_FIXTURE_TX.usdtTransfer)).status, 200);
    assert.equal((await check(t.host.url, 'not-a-hash')).status, 422);
    const remove = node.fault({ node: 'full', path: 'getnowblock', times: 1, fault: { kind: 'status', status: 502 } });
    await check(t.host.url, TRON_FIXTURE_TX.trc10Transfer);
    remove();
    const after = await scrape(ops);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
    assert.equal(moved('tron_safety_http_requests_total', ok200), 3);
    assert.equal(moved('tron_safety_http_requests_total', bad), 1);
    assert.ok(moved('tron_safety_check_duration_seconds_count', { outcome: 'CLEAR' }) >= 1);
    assert.equal(moved('tron_safety_check_duration_seconds_count', { outcome: 'malformed_tx_hash' }), 1);
    const nodeCall = { provider: 'tron_full_node', call: 'gettransactionbyid', outcome: 'ok' };
    assert.ok(moved('tron_safety_provider_call_duration_seconds_count', nodeCall) >= 3);
    assert.ok(
      moved('tron_safety_provider_call_duration_seconds_count', { provider: 'chainalysis_entity', outcome: 'ok' }) >= 1,
    );
    const failed = { provider: 'tron_full_node', call: 'getnowblock', outcome: 'status' };
    assert.equal(moved('tron_safety_provider_call_failures_total', failed), 1);
    assert.equal(sample(after, 'tron_safety_checks_in_flight'), 0);
    assert.equal(sample(after, 'tron_safety_quota_reservations_outstanding'), 0);
    const bundled = sample(after, 'tron_safety_sanctions_list_age_seconds', { list: 'ofac' });
    assert.ok(bundled > 86_400, 'the bundled list is days old');
    assert.match(after, /^process_cpu_user_seconds_total /m);
  });

  test('/metrics during a slow check: one check in flight holding one quota reservation', async () => {
    const remove = node.fault({ path: 'gettransactionbyid', fault: { kind: 'latency', ms: 800 } });
    try {
      const running = check(t.host.url, TRON_FIXTURE_TX.voteWitness);
      let metrics = '';
      const deadline = Date.now() + 5_000;
      do metrics = await scrape(t.host.opsUrl!);
      while (sample(metrics, 'tron_safety_quota_reservations_outstanding') === 0 && Date.now() < deadline);
      assert.equal(sample(metrics, 'tron_safety_checks_in_flight'), 1);
      assert.equal(sample(metrics, 'tron_safety_quota_reservations_outstanding'), 1);
      assert.equal((await running).status, 200);
      assert.equal(sample(await scrape(t.host.opsUrl!), 'tron_safety_quota_reservations_outstanding'), 0);
    } finally {
      remove();
    }
  });

  test('/healthz answers; /readyz is ready; neither needs a key, and the API port does not serve them', async () => {
    const health = await request(`${t.host.opsUrl}/healthz`);
    assert.deepEqual([health.statusCode, await health.body.json()], [200, { status: 'ok' }]);
    const ready = await request(`${t.host.opsUrl}/readyz`);
    const body = (await ready.body.json()) as Readiness;
    assert.deepEqual([ready.statusCode, body.status, body.failing], [200, 'ready', undefined]);
    const onApi = await request(`${t.host.url}/metrics`);
    assert.equal(onApi.statusCode, 404);
    await onApi.body.dump();
  });

  test('DNS rebinding: the loopback operations listener answers 421 to a Host naming another site, as usual to one naming this machine', async () => {
    for (const path of ['/metrics', '/readyz', '/healthz']) {
      const rebound = await request(`${t.host.opsUrl}${path}`, { headers: { host: 'rebind.attacker.example' } });
      assert.equal(rebound.statusCode, 421, path);
      assert.match(await rebound.body.text(), /^421 Misdirected Request/);
    }
    for (const host of ['localhost:9100', '[::1]', new URL(t.host.opsUrl!).host]) {
      const local = await request(`${t.host.opsUrl}/healthz`, { headers: { host } });
      assert.equal(local.statusCode, 200, host);
      await local.body.dump();
    }
  });

  test('the request log line: organization, key id and prefix, overall_state and coverage; a 503 names the failed provider calls', async () => {
    const from = t.lines.length;
    await check(t.host.url, TRON_FIXTURE_TX.trxTransferToNewAccount);
    const remove = node.fault({ fault: { kind: 'status', status: 503 } });
    const failed = await check(t.host.url, 'ef'.repeat(32));
    remove();
    assert.equal(failed.status, 503);
    const [ok, unavailable] = t.lines.slice(from).filter((l) => l.msg === 'request');
    assert.equal(ok!.organization_id, TEST_ORG);
    assert.match(ok!.api_key_id, /^[0-9a-f-]{36}$/);
    assert.equal(ok!.api_key_prefix, TEST_KEY.slice(0, 17));
    assert.deepEqual([ok!.overall_state, ok!.coverage], ['CLEAR', 'complete']);
    assert.equal(unavailable!.error_code, 'provider_unavailable');
    const calls = unavailable!.provider_calls as { provider: string; call: string; outcome: string; status?: number }[];
    assert.ok(calls.length > 0);
    assert.ok(calls.every((c) => c.provider.startsWith('tron_') && c.outcome === 'status' && c.status === 503));
    assert.ok(calls.some((c) => c.call === 'gettransactionbyid'));
    const text = JSON.stringify(t.lines);
    assert.ok(!text.includes(TEST_KEY) && !text.includes('TRON-PRO-API-KEY'), 'no secret in any line');
  });

  test('a 401 line names no organization or key (the header may be anything a caller pasted)', async () => {
    const from = t.lines.length;
    const res = await request(`${t.host.url}/v1/usage`, { headers: { 'x-api-key': 'my-bank-password-123456' } });
    assert.equal(res.statusCode, 401);
    await res.body.dump();
    const line = t.lines.slice(from).find((l) => l.msg === 'request')!;
    assert.equal(line.organization_id, undefined);
    assert.equal(line.api_key_prefix, undefined);
    assert.ok(!JSON.stringify(line).includes('my-bank'));
  });
});

describe('Operations: readiness follows the database and the shutdown', () => {
  test('/readyz fails naming the database when it is down (a throwaway PostgreSQL of this test)', async (t) => {
    let cluster: { url: string; stop: () => void };
    try {
      cluster = await startThrowawayPostgres();
    } catch (error) {
      return t.skip(`no PostgreSQL binaries: ${(error as Error).message}`);
    }
    const { host } = await startTestHost({ OPS_PORT: '0', DATABASE_URL: cluster.url });
    try {
      assert.equal((await request(`${host.opsUrl}/readyz`)).statusCode, 200);
      cluster.stop();
      const down = await request(`${host.opsUrl}/readyz`);
      const body = (await down.body.json()) as { status: string; failing: { component: string; problem: string }[] };
      assert.equal(down.statusCode, 503);
      assert.equal(body.status, 'not_ready');
      assert.deepEqual(
        body.failing.map((f) => f.component),
        ['database'],
      );
      assert.ok(body.failing[0]!.problem.length > 0);
      const health = await request(`${host.opsUrl}/healthz`);
      assert.equal(health.statusCode, 200, 'alive all the same');
      await health.body.dump();
    } finally {
      await host.stop('test end');
      cluster.stop();
    }
  });

  test('/readyz fails naming the shutdown while the host drains', async () => {
    const node = await startFakeTronNode();
    node.fault({ path: 'gettransactionbyid', fault: { kind: 'latency', ms: 1_500 } });
    const { host } = await startTestHost({ OPS_PORT: '0', TRON_FULLNODE_URL: node.url, SHUTDOWN_GRACE_MS: '5000' });
    try {
      const running = check(host.url, TRON_FIXTURE_TX.trxTransfer);
      await new Promise((r) => setTimeout(r, 200));
      const stopped = host.stop('test');
      const draining = await request(`${host.opsUrl}/readyz`);
      assert.equal(draining.statusCode, 503);
      assert.deepEqual(((await draining.body.json()) as { failing: { component: string }[] }).failing, [
        { component: 'shutdown', problem: 'the host is shutting down' },
      ]);
      await running;
      await stopped;
    } finally {
      await host.stop('test end');
      await node.close();
    }
  });
});

/** A file of `text` in a fresh temporary directory. */
function tempFile(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tron-safety-ops-')), name);
  writeFileSync(path, text);
  return path;
}

/** Polls `/readyz` until `done` holds of it (at most 5 s), and gives the last answer. */
async function readinessWhen(opsUrl: string, done: (r: { status: number; body: Readiness }) => boolean) {
  const deadline = Date.now() + 5_000;
  let answer = await readiness(opsUrl);
  while (!done(answer) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    answer = await readiness(opsUrl);
  }
  return answer;
}

const named = (entries: Readiness['degraded'], component: string) => entries?.find((e) => e.component === component);

describe('Operations: readiness and metrics name data that cannot give a clean answer', () => {
  test('Readiness: a node the verifier finds serving another network fails /readyz naming chain:mainnet', async () => {
    const node = await startFakeTronNode();
    // The nodes cannot say their network at start (every block 0 call fails), so the host starts.
    const down = node.fault({ path: 'getblockbynum', fault: { kind: 'error' } });
    const t = await startTestHost({ OPS_PORT: '0', TRON_FULLNODE_URL: node.url });
    try {
      const before = await readiness(t.host.opsUrl!);
      assert.equal(before.status, 200, 'no verdict yet: ready');
      assert.ok(named(before.body.degraded, 'chain:mainnet'));
      node.setNetwork(TRON_NILE, 'solidity');
      down();
      assert.equal((await check(t.host.url, TRON_FIXTURE_TX.trxTransfer)).status, 200);
      const { status, body } = await readiness(t.host.opsUrl!);
      assert.equal(status, 503);
      assert.deepEqual(
        body.failing!.map((f) => f.component),
        ['chain:mainnet'],
      );
      assert.match(body.failing![0]!.problem, /the solidity node serves TRON nile .*not TRON mainnet/);
    } finally {
      await t.host.stop('test end');
      await node.close();
    }
  });

  test('Readiness: an unreachable or unverified node keeps the host ready, named degraded (an upstream outage must not take every host out)', async () => {
    const t = await startTestHost({ OPS_PORT: '0', TRON_FULLNODE_URL: 'http://127.0.0.1:9' });
    try {
      assert.equal((await check(t.host.url, TRON_FIXTURE_TX.trxTransfer)).status, 503);
      const { status, body } = await readiness(t.host.opsUrl!);
      assert.deepEqual([status, body.status, body.failing], [200, 'ready', undefined]);
      assert.match(named(body.degraded, 'chain:mainnet')!.problem, /the full node's network could not be established/);
    } finally {
      await t.host.stop('test end');
    }
  });

  test('Readiness: sanctions lists past their age limit are degraded in the 200, and each list has its age gauge', async () => {
    const node = await startFakeTronNode();
    const supplement = tempFile('extra.txt', `# as-of: ${new Date().toISOString()}\n`);
    const stale = await startTestHost({
      OPS_PORT: '0',
      TRON_FULLNODE_URL: node.url,
      SANCTIONS_LIST_FILES: supplement,
    });
    const current = await startTestHost({
      OPS_PORT: '0',
      TRON_FULLNODE_URL: node.url,
      // A full list must hold (nearly) every address of the OFAC list in use to date the screen.
      SANCTIONS_LIST_FILES: tempFile(
        'full.txt',
        `# full-list\n# as-of: ${new Date().toISOString()}\n${[...OFAC_TRON_LIST.addresses.keys()].join('\n')}\n`,
      ),
    });
    try {
      const { status, body } = await readiness(stale.host.opsUrl!);
      assert.deepEqual([status, body.failing], [200, undefined]);
      assert.match(named(body.degraded, 'sanctions_lists')!.problem, /as of 2025-11-27T.* past the 2-day limit/);
      const metrics = await scrape(stale.host.opsUrl!);
      assert.ok(sample(metrics, 'tron_safety_sanctions_list_age_seconds', { list: 'ofac' }) > 2 * 86_400);
      const supplementAge = sample(metrics, 'tron_safety_sanctions_list_age_seconds', { list: supplement });
      assert.ok(supplementAge >= 0 && supplementAge < 600, String(supplementAge));
      // A current full list dates the screen: nothing to report.
      assert.equal(named((await readiness(current.host.opsUrl!)).body.degraded, 'sanctions_lists'), undefined);
    } finally {
      await Promise.all([stale.host.stop('test end'), current.host.stop('test end')]);
      await node.close();
    }
  });

  test('Readiness: a registry token the chain contradicts is degraded in the 200, and counted by the stale-token gauge', async () => {
    const node = await startFakeTronNode();
    const own = hexToBase58Address(`41${'cd'.repeat(20)}`)!;
    node.setToken(own, { decimals: 18, symbol: 'OWN', name: 'Own Dollar' });
    const registry = tempFile(
      'tokens.json',
      JSON.stringify([{ contract: own, symbol: 'OWN', decimals: 6, name: 'Own Dollar' }]),
    );
    const t = await startTestHost({ OPS_PORT: '0', TRON_FULLNODE_URL: node.url, TOKEN_REGISTRY_FILE: registry });
    try {
      const { status, body } = await readinessWhen(t.host.opsUrl!, (r) => !!named(r.body.degraded, 'token_registry'));
      assert.deepEqual([status, body.failing], [200, undefined]);
      assert.match(
        named(body.degraded, 'token_registry')!.problem,
        new RegExp(`^1 of \\d+ registry tokens: OWN ${own} \\(contradicted by the chain`),
      );
      const metrics = await scrape(t.host.opsUrl!);
      assert.equal(sample(metrics, 'tron_safety_token_registry_stale_tokens'), 1);
      const age = sample(metrics, 'tron_safety_token_registry_age_seconds');
      assert.ok(age >= 0 && age < 3_600, `the bundled tokens were confirmed at start: ${age}`);
    } finally {
      await t.host.stop('test end');
      await node.close();
    }
  });
});

test('when the nodes hang, the 503/504 line names the calls that timed out or had not answered', async () => {
  const node = await startFakeTronNode();
  node.fault({ fault: { kind: 'hang' } });
  const { host, lines } = await startTestHost({ TRON_FULLNODE_URL: node.url, REQUEST_DEADLINE_MS: '1500' });
  try {
    const answer = await check(host.url, TRON_FIXTURE_TX.trxTransfer);
    assert.ok(answer.status === 503 || answer.status === 504, String(answer.status));
    const line = lines.find((l) => l.msg === 'request' && l.status === answer.status)!;
    const calls = line.provider_calls as { provider: string; call: string; outcome: string }[];
    assert.ok(
      calls.some((c) => c.call === 'gettransactionbyid' && ['aborted', 'timeout', 'no answer yet'].includes(c.outcome)),
      JSON.stringify(calls),
    );
  } finally {
    await host.stop('test end');
    await node.close();
  }
});

test('Start-up warnings: no organizations, no AML vendor, a TronGrid node sent no key (TRON_API_KEY, or TRON_SOLIDITY_API_KEY for a solidity node on another origin), a portal behind HTTPS without PORTAL_PUBLIC_URL', () => {
  const bare = parseConfig({})._unsafeUnwrap();
  assert.deepEqual(
    startupWarnings(bare, 0).map((w) => w.split(':')[0]),
    ['no organizations', 'no AML vendor (CHAINALYSIS_API_KEY unset)', 'TronGrid without TRON_API_KEY'],
  );
  const configured = parseConfig({ CHAINALYSIS_API_KEY: 'k', TRON_API_KEY: 't' })._unsafeUnwrap();
  assert.deepEqual(startupWarnings(configured, 1), []);
  const ownNode = parseConfig({ CHAINALYSIS_API_KEY: 'k', TRON_FULLNODE_URL: 'http://10.0.0.5:8090' })._unsafeUnwrap();
  assert.deepEqual(startupWarnings(ownNode, 3), []);

  // TRON_API_KEY stays with the full node's origin: TronGrid as the solidity node elsewhere needs its own key.
  const warnings = (env: Record<string, string>) =>
    startupWarnings(parseConfig({ CHAINALYSIS_API_KEY: 'k', ...env })._unsafeUnwrap(), 1).map((w) => w.split(':')[0]);
  const tronGridSolidity = { TRON_FULLNODE_URL: 'http://10.0.0.5:8090', TRON_SOLIDITY_URL: 'https://api.trongrid.io' };
  assert.deepEqual(warnings({ ...tronGridSolidity, TRON_API_KEY: 't' }), ['TronGrid without TRON_SOLIDITY_API_KEY']);
  assert.deepEqual(warnings({ ...tronGridSolidity, TRON_SOLIDITY_API_KEY: 's' }), []);
  const exposed = { CHAINALYSIS_API_KEY: 'k', TRON_API_KEY: 't', HOST: '0.0.0.0' };
  const unknownOrigin = parseConfig(exposed)._unsafeUnwrap();
  assert.deepEqual(
    startupWarnings(unknownOrigin, 1).map((w) => w.split(':')[0]),
    ['PORTAL_PUBLIC_URL unset behind HTTPS'],
  );
  const known = parseConfig({ ...exposed, PORTAL_PUBLIC_URL: 'https://safety.example.com' })._unsafeUnwrap();
  assert.deepEqual(startupWarnings(known, 1), []);
});

test('Start-up warnings: a loopback host with an https PORTAL_PUBLIC_URL (a TLS proxy in front) and no PORTAL_TRUST_PROXY counts every browser as the proxy in the sign-in throttle', () => {
  const warnings = (env: Record<string, string>) =>
    startupWarnings(parseConfig({ CHAINALYSIS_API_KEY: 'k', TRON_API_KEY: 't', ...env })._unsafeUnwrap(), 1);
  const proxied = { PORTAL_PUBLIC_URL: 'https://safety.example.com' };
  const [warning, ...more] = warnings(proxied);
  assert.deepEqual(more, []);
  assert.match(
    warning ?? '',
    /^PORTAL_PUBLIC_URL is https on a loopback host without PORTAL_TRUST_PROXY: .*sign-in throttle/,
  );
  assert.match(warning ?? '', /set PORTAL_TRUST_PROXY=true/);
  assert.deepEqual(warnings({ ...proxied, PORTAL_TRUST_PROXY: 'true' }), []);
  // Plain HTTP on loopback is a developer's machine; a host listening elsewhere may be reached directly (no proxy).
  assert.deepEqual(warnings({ PORTAL_PUBLIC_URL: 'http://127.0.0.1:8080' }), []);
  assert.deepEqual(warnings({ ...proxied, HOST: '0.0.0.0' }), []);
});
