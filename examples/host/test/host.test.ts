import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startFakeTronNode, TRON_FIXTURE_TX, USDT_CONTRACT, type FakeTronNode } from '@tron-safety/core/testing';
import { request } from 'undici';
import { hexToBase58Address } from '@tron-safety/core/tron';
import { parseConfig } from '../src/config.js';
import { startHost } from '../src/host.js';
import { createLogger, originOf } from '../src/log.js';
import { withHostRoutes } from '../src/routes.js';
import { startTestHost } from './support.js';

// The host built in-process (startHost), for what a child process would only make slower to see.

const KEY = 'tsk_live_host_test_key_00000000000000000';

function seedFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tron-safety-host-')), 'seed.json');
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
          id: '2b9f0c36-5a55-4b1e-8c53-7f1c2de1a001',
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

/** A token registry file of these entries. */
function tokenFile(entries: object[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tron-safety-tokens-')), 'tokens.json');
  writeFileSync(path, JSON.stringify(entries));
  return path;
}
/** A token registry file that gives the bundled USDT contract 18 decimals. */
const redeclaredUsdt = () => tokenFile([{ contract: USDT_CONTRACT, symbol: 'USDT', decimals: 18, name: 'Tether USD' }]);
/** A token registry file that names another contract USDT. */
const usdtElsewhere = () =>
  tokenFile([
    { contract: hexToBase58Address(`41${'ef'.repeat(20)}`)!, symbol: 'USDT', decimals: 6, name: 'Tether USD' },
  ]);

describe('the host in-process', () => {
  let node: FakeTronNode;
  before(async () => {
    node = await startFakeTronNode();
  });
  after(() => node.close());

  test('a risk variable the core refuses stops the start with a message starting with its name', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ SANCTIONS_LIST_FILES: '/nonexistent/tron-safety-list.txt' }, 'SANCTIONS_LIST_FILES'],
      [{ CHAINALYSIS_API_URL: 'not a url' }, 'CHAINALYSIS_API_URL'],
      [{ CHAINALYSIS_SANCTIONS_URL: 'ftp://lists.example' }, 'CHAINALYSIS_SANCTIONS_URL'],
      [{ RISK_TIMEOUT_MS: '0' }, 'RISK_TIMEOUT_MS'],
      // Upper bounds: Node's timer overflow (a 1 ms timeout), AbortSignal.timeout throwing, a stale list proving clean.
      [{ RISK_TIMEOUT_MS: '2147483648' }, 'RISK_TIMEOUT_MS'],
      [{ RISK_TIMEOUT_MS: '9999999999' }, 'RISK_TIMEOUT_MS'],
      [{ SANCTIONS_LIST_MAX_AGE_DAYS: '9999999999' }, 'SANCTIONS_LIST_MAX_AGE_DAYS'],
      [{ TOKEN_REGISTRY_FILE: '/nonexistent/tokens.json' }, 'TOKEN_REGISTRY_FILE'],
      [{ TOKEN_REGISTRY_FILE: redeclaredUsdt() }, 'TOKEN_REGISTRY_FILE'],
      [{ TOKEN_REGISTRY_FILE: usdtElsewhere() }, 'TOKEN_REGISTRY_FILE'],
    ];
    for (const [env, field] of cases) {
      const config = parseConfig({ PORT: '0', OFAC_SDN_URL: 'off', ...env })._unsafeUnwrap();
      const error = (await startHost(config, createLogger('silent')))._unsafeUnwrapErr();
      assert.equal(error.field, field);
      assert.ok(error.message.startsWith(`${field}: `), error.message);
    }
  });

  test('/v1/status says disabled while the host drains its in-flight checks', async () => {
    const config = parseConfig({
      PORT: '0',
      OFAC_SDN_URL: 'off',
      TRON_FULLNODE_URL: node.url,
      SAFETY_SEED_FILE: seedFile(),
      SHUTDOWN_GRACE_MS: '300',
    })._unsafeUnwrap();
    const host = (await startHost(config, createLogger('silent')))._unsafeUnwrap();
    const status = async () => {
      const answer = await withHostRoutes(host.service).handle({
        method: 'GET',
        path: '/v1/status',
        query: {},
        headers: {},
        body: new Uint8Array(),
      });
      return JSON.parse(answer.body) as unknown;
    };
    assert.deepEqual(await status(), { business_access: 'enabled' });
    const removeFault = node.fault({ path: 'gettransactionbyid', fault: { kind: 'hang' } });
    try {
      const inFlight = request(`${host.url}/v1/transaction/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEY },
        body: JSON.stringify({ tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' }),
      });
      while (host.service.inFlight === 0) await new Promise((r) => setTimeout(r, 10));
      const stopped = host.stop('test');
      assert.deepEqual(await status(), { business_access: 'disabled' });
      const answer = await inFlight;
      assert.equal(answer.statusCode, 503);
      await answer.body.dump();
      await stopped;
    } finally {
      removeFault();
    }
  });

  test('Known tokens: a registry token the chain contradicts at start is logged as a warning naming it', async () => {
    const lying = await startFakeTronNode();
    lying.setToken(USDT_CONTRACT, { decimals: 18, symbol: 'USDT', name: 'Tether USD' });
    const { host, lines } = await startTestHost({ TRON_FULLNODE_URL: lying.url });
    try {
      const warned = () => lines.find((l) => l.event === 'known_token_disagrees');
      for (let i = 0; i < 200 && !warned(); i++) await new Promise((r) => setTimeout(r, 25));
      assert.deepEqual(
        [warned()?.contract, warned()?.registry, warned()?.chain],
        [USDT_CONTRACT, { symbol: 'USDT', decimals: 6 }, { symbol: 'USDT', decimals: 18 }],
      );
      assert.equal(lines.filter((l) => l.event === 'known_token_disagrees').length, 1, 'only USDT');
    } finally {
      await host.stop('test');
      await lying.close();
    }
  });

  test("Known tokens: TOKEN_REGISTRY_FILE's tokens are confirmed by the chain at start: one the chain contradicts is logged naming it, and a derivative entry is a logged warning", async () => {
    const own = hexToBase58Address(`41${'ab'.repeat(20)}`)!;
    const derivative = hexToBase58Address(`41${'ac'.repeat(20)}`)!;
    const lying = await startFakeTronNode();
    lying.setToken(own, { decimals: 8, symbol: 'OWN', name: 'Own Dollar' });
    const file = tokenFile([
      { contract: own, symbol: 'OWN', decimals: 6, name: 'Own Dollar' },
      { contract: derivative, symbol: 'jUSDT', decimals: 8, name: 'JustLend USDT' },
    ]);
    const { host, lines } = await startTestHost({ TRON_FULLNODE_URL: lying.url, TOKEN_REGISTRY_FILE: file });
    try {
      const warning = lines.find((l) => l.event === 'token_registry_file_warning');
      assert.match(String(warning?.msg), /entry 1 \("jUSDT" at .*\): symbol "jUSDT" contains the bundled USDT's mark/);
      const warned = () => lines.find((l) => l.event === 'known_token_disagrees' && l.contract === own);
      for (let i = 0; i < 200 && !warned(); i++) await new Promise((r) => setTimeout(r, 25));
      assert.deepEqual(
        [warned()?.registry, warned()?.chain],
        [
          { symbol: 'OWN', decimals: 6 },
          { symbol: 'OWN', decimals: 8 },
        ],
      );
    } finally {
      await host.stop('test');
      await lying.close();
    }
  });
});

test('provider URLs are logged as their origin only (user-info, path and query may hold API keys)', () => {
  assert.equal(
    originOf('https://user:pass-secret@node.example:8443/key-secret/jsonrpc?apikey=q-secret'),
    'https://node.example:8443',
  );
  assert.equal(originOf('http://127.0.0.1:8090'), 'http://127.0.0.1:8090');
});
