import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { createRiskProviders, createSafetyService } from '@tron-safety/core';
import { createMemoryStores } from '@tron-safety/store-memory';
import { err } from 'neverthrow';
import { parseConfig } from '../src/config.js';
import { createLogger, withRequestLog } from '../src/log.js';
import { withHostRoutes } from '../src/routes.js';
import { applySeed, decodeSeed, loadSeedFile } from '../src/seed-file.js';
import { readmeSection } from './readme.js';

const ORG = '2b9f0c36-5a55-4b1e-8c53-7f1c2de1a001';
const KEY = 'tsk_live_config_test_key_000000000000000';
const plan = {
  code: 'starter',
  version: 1,
  name: 'Starter',
  rate_limit_per_minute: 120,
  max_concurrent_requests: 4,
  monthly_quota: 1000,
  enabled_networks: ['tron'],
};
const org = {
  id: ORG,
  name: 'Acme Pay',
  status: 'active',
  plan: { code: 'starter', version: 1 },
  custom_entitlements: null,
  api_keys: [{ label: 'ci', key: KEY, revoked: false }],
};

describe('configuration from the environment', () => {
  test('defaults of the documented table', () => {
    const config = parseConfig({})._unsafeUnwrap();
    assert.deepEqual(
      {
        port: config.port,
        host: config.host,
        databaseUrl: config.databaseUrl,
        seedFile: config.seedFile,
        tronFullNodeUrl: config.tronFullNodeUrl,
        tronSolidityUrl: config.tronSolidityUrl,
        tronApiKey: config.tronApiKey,
        tronSolidityApiKey: config.tronSolidityApiKey,
        chainalysisApiUrl: config.risk.chainalysisApiUrl,
        chainalysisApiKey: config.risk.chainalysisApiKey,
        chainalysisSanctionsUrl: config.risk.chainalysisSanctionsUrl,
        chainalysisSanctionsApiKey: config.risk.chainalysisSanctionsApiKey,
        sanctionsListFiles: config.risk.sanctionsListFiles,
        riskCacheTtlMs: config.risk.cacheTtlMs,
        riskTimeoutMs: config.risk.timeoutMs,
        requestDeadlineMs: config.requestDeadlineMs,
        idempotencyRetentionSeconds: config.idempotencyRetentionSeconds,
        maxTransfers: config.maxTransfers,
        apiDisabled: config.apiDisabled,
      },
      {
        port: 8080,
        host: '127.0.0.1',
        databaseUrl: null,
        seedFile: null,
        tronFullNodeUrl: 'https://api.trongrid.io',
        tronSolidityUrl: 'https://api.trongrid.io',
        tronApiKey: null,
        tronSolidityApiKey: null,
        chainalysisApiUrl: 'https://api.chainalysis.com/api/risk',
        chainalysisApiKey: null,
        chainalysisSanctionsUrl: 'https://public.chainalysis.com/api/v1',
        chainalysisSanctionsApiKey: null,
        sanctionsListFiles: [],
        // unset: the core's defaults (README: 300 s, 4000 ms)
        riskCacheTtlMs: undefined,
        riskTimeoutMs: undefined,
        requestDeadlineMs: 12_000,
        idempotencyRetentionSeconds: 86_400,
        maxTransfers: null,
        apiDisabled: false,
      },
    );
  });

  test("values are read (the risk variables by the core's riskConfigFromEnv); TRON_SOLIDITY_URL follows TRON_FULLNODE_URL", () => {
    const config = parseConfig({
      PORT: '9000',
      TRON_FULLNODE_URL: 'http://node:8090/',
      SANCTIONS_LIST_FILES: ' a.txt, ,b.txt',
      API_DISABLED: 'true',
      MAX_TRANSFERS: '50',
      IDEMPOTENCY_RETENTION_SECONDS: '3600',
      RISK_CACHE_TTL_SECONDS: '60',
      RISK_TIMEOUT_MS: '2500',
    })._unsafeUnwrap();
    assert.equal(config.port, 9000);
    assert.equal(config.tronSolidityUrl, 'http://node:8090');
    assert.deepEqual(config.risk.sanctionsListFiles, ['a.txt', 'b.txt']);
    assert.equal(config.risk.cacheTtlMs, 60_000);
    assert.equal(config.risk.timeoutMs, 2500);
    assert.equal(config.apiDisabled, true);
    assert.equal(config.maxTransfers, 50);
    assert.equal(config.idempotencyRetentionSeconds, 3600, 'the shortest retention');
  });

  test('an invalid variable is refused with its name', () => {
    const cases: [Record<string, string>, string][] = [
      [{ PORT: 'eighty' }, 'PORT'],
      [{ PORT: '70000' }, 'PORT'],
      [{ REQUEST_DEADLINE_MS: 'soon' }, 'REQUEST_DEADLINE_MS'],
      [{ IDEMPOTENCY_RETENTION_SECONDS: '-1' }, 'IDEMPOTENCY_RETENTION_SECONDS'],
      // Seconds of retention would let a retry after a lost answer run and bill again.
      [{ IDEMPOTENCY_RETENTION_SECONDS: '1' }, 'IDEMPOTENCY_RETENTION_SECONDS'],
      [{ IDEMPOTENCY_RETENTION_SECONDS: '3599' }, 'IDEMPOTENCY_RETENTION_SECONDS'],
      [{ MAX_TRANSFERS: '0' }, 'MAX_TRANSFERS'],
      [{ API_DISABLED: 'perhaps' }, 'API_DISABLED'],
      [{ TRON_FULLNODE_URL: 'ftp://x' }, 'TRON_FULLNODE_URL'],
      [{ RISK_CACHE_TTL_SECONDS: 'long' }, 'RISK_CACHE_TTL_SECONDS'],
      [{ RISK_TIMEOUT_MS: '-5' }, 'RISK_TIMEOUT_MS'],
      [{ RISK_CACHE_TTL_SECONDS: '86401' }, 'RISK_CACHE_TTL_SECONDS'],
      [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
      [{ HOST_FRAMEWORK: 'fastify' }, 'HOST_FRAMEWORK'],
    ];
    for (const [env, field] of cases) {
      const error = parseConfig(env)._unsafeUnwrapErr();
      assert.equal(error.field, field);
      assert.ok(error.message.startsWith(`${field}:`), error.message);
    }
    assert.ok(!parseConfig({ DATABASE_URL: 'nope://user:secret@x' })._unsafeUnwrapErr().message.includes('secret'));
  });
});

test('the README configuration table lists exactly the variables the host reads', () => {
  const read = new Set<string>();
  const recording = new Proxy({} as Record<string, string | undefined>, {
    get: (_target, name) => void (typeof name === 'string' && read.add(name)),
  });
  parseConfig(recording);
  const documented = configurationTable().map(([name]) => name);
  assert.deepEqual(documented.sort(), [...read].sort());
});

test("each value in the README configuration table's default column is what the host uses when the variable is unset", () => {
  // Left unset, these are the core's own defaults (RiskConfig, the chain provider): the host passes nothing.
  const coreDefaults = [
    'RISK_CACHE_TTL_SECONDS',
    'RISK_TIMEOUT_MS',
    'CHAINALYSIS_SANCTIONS_MAX_ADDRESSES',
    'SANCTIONS_LIST_MAX_AGE_DAYS',
    'MAX_TRANSFERS',
  ];
  const unset = parseConfig({})._unsafeUnwrap();
  const checked: string[] = [];
  for (const [name, fallback] of configurationTable()) {
    if (fallback.startsWith('unset') || fallback.startsWith('=') || coreDefaults.includes(name)) continue;
    assert.deepEqual(parseConfig({ [name]: fallback })._unsafeUnwrap(), unset, `${name}=${fallback}`);
    checked.push(name);
  }
  assert.ok(checked.includes('OFAC_REFRESH_SECONDS') && checked.length >= 15, checked.join(', '));
  // The one core default the host's providers can show: the sanctions lists' age limit.
  const [, maxAgeDays] = configurationTable().find(([name]) => name === 'SANCTIONS_LIST_MAX_AGE_DAYS')!;
  assert.equal(String(createRiskProviders(unset.risk)._unsafeUnwrap().sanctionsStatus().maxAgeDays), maxAgeDays);
});

/** The README table's variables with their default column (`PORT / HOST | 8080 / 127.0.0.1` is two rows). */
function configurationTable(): [name: string, fallback: string][] {
  const rows = [...readmeSection('Configuration').matchAll(/^\| ([A-Z][A-Z0-9_ /]*) \| ([^|]*) \|/gm)];
  return rows.flatMap(([, names, values]) => {
    const fallbacks = values!.split(' / ');
    return names!.split('/').map((name, i): [string, string] => [name.trim(), (fallbacks[i] ?? fallbacks[0]!).trim()]);
  });
}

describe('seed file', () => {
  test('the documented example decodes and loads: plans, organizations, keys (a revoked key answers 401)', async () => {
    const seed = decodeSeed({
      plans: [plan],
      organizations: [
        org,
        {
          ...org,
          id: '2b9f0c36-5a55-4b1e-8c53-7f1c2de1a002',
          plan: null,
          custom_entitlements: {
            rate_limit_per_minute: 1,
            max_concurrent_requests: 1,
            monthly_quota: 0,
            enabled_networks: [],
          },
          api_keys: [{ label: 'old', key: `${KEY}x`, revoked: true }],
        },
      ],
    })._unsafeUnwrap();
    const service = createSafetyService(createMemoryStores(), {
      chain: null,
      risk: createRiskProviders()._unsafeUnwrap(),
    });
    const counts = { plans: 1, organizations: 2, keys: 2, members: 0 };
    assert.deepEqual((await applySeed(service.admin, seed))._unsafeUnwrap(), {
      ...counts,
      inserted: counts,
      differences: [],
    });
    assert.equal((await service.usage({ apiKey: KEY })).status, 200);
    assert.equal((await service.usage({ apiKey: `${KEY}x` })).status, 401);
    // Loading twice is not a conflict, and inserts nothing the second time.
    assert.deepEqual((await applySeed(service.admin, seed))._unsafeUnwrap(), {
      ...counts,
      inserted: { plans: 0, organizations: 0, keys: 0, members: 0 },
      differences: [],
    });
  });

  test('a start inserts only what is missing: changes made since (admin CLI) are kept, and each difference reported', async () => {
    const service = createSafetyService(createMemoryStores(), {
      chain: null,
      risk: createRiskProviders()._unsafeUnwrap(),
    });
    const admin = service.admin;
    const operator = { kind: 'operator' } as const;
    assert.ok((await applySeed(admin, decodeSeed({ plans: [plan], organizations: [org] })._unsafeUnwrap())).isOk());
    // What an operator changed with the admin CLI since the last start:
    (
      await admin.createPlanVersion(operator, {
        code: 'starter',
        name: 'Starter 2',
        rateLimitPerMinute: 60,
        maxConcurrentRequests: 2,
        monthlyQuota: 500,
        enabledNetworks: ['tron'],
      })
    )._unsafeUnwrap();
    (await admin.setOrganizationPlan(operator, ORG, { code: 'starter', version: 2 }))._unsafeUnwrap();
    (await admin.setOrganizationStatus(operator, ORG, 'suspended'))._unsafeUnwrap();
    const keyId = (await admin.listApiKeys(operator, ORG))._unsafeUnwrap()[0]!.id;
    (await admin.revokeApiKey(operator, ORG, keyId))._unsafeUnwrap();

    const other = {
      ...org,
      id: '2b9f0c36-5a55-4b1e-8c53-7f1c2de1a003',
      name: 'Other',
      api_keys: [{ label: 'ci', key: `${KEY}y`, revoked: false }],
    };
    const edited = decodeSeed({ plans: [{ ...plan, monthly_quota: 5 }], organizations: [org, other] })._unsafeUnwrap();
    const summary = (await applySeed(admin, edited))._unsafeUnwrap();
    assert.deepEqual(summary.inserted, { plans: 0, organizations: 1, keys: 1, members: 0 });
    assert.deepEqual(summary.differences, [
      { field: 'plans[0].monthly_quota', stored: 1000, seed: 5 },
      { field: 'organizations[0].status', stored: 'suspended', seed: 'active' },
      {
        field: 'organizations[0].plan',
        stored: { code: 'starter', version: 2 },
        seed: { code: 'starter', version: 1 },
      },
      { field: 'organizations[0].api_keys[0].revoked', stored: true, seed: false },
    ]);
    const view = (await admin.getOrganization(operator, ORG))._unsafeUnwrap();
    assert.deepEqual([view.organization.status, view.plan?.version], ['suspended', 2]);
    const v1 = (await admin.listPlans(operator))._unsafeUnwrap().find((p) => p.version === 1);
    assert.equal(v1?.monthlyQuota, 1000, 'a stored plan version is never replaced in place');
    assert.equal((await service.usage({ apiKey: KEY })).status, 401, 'a revoked key stays revoked');
    assert.equal((await service.usage({ apiKey: `${KEY}y` })).status, 200, 'a new entry is inserted');

    // The seed may tighten access: a key it marks revoked is revoked.
    const revoking = decodeSeed({
      plans: [plan],
      organizations: [{ ...other, api_keys: [{ label: 'ci', key: `${KEY}y`, revoked: true }] }],
    })._unsafeUnwrap();
    assert.ok((await applySeed(admin, revoking)).isOk());
    assert.equal((await service.usage({ apiKey: `${KEY}y` })).status, 401);
  });

  test('an organization that cannot be read (not a confirmed absence) refuses the start and is never overwritten', async () => {
    const service = createSafetyService(createMemoryStores(), {
      chain: null,
      risk: createRiskProviders()._unsafeUnwrap(),
    });
    const operator = { kind: 'operator' } as const;
    const seed = decodeSeed({ plans: [plan], organizations: [org] })._unsafeUnwrap();
    assert.ok((await applySeed(service.admin, seed)).isOk());
    (await service.admin.setOrganizationStatus(operator, ORG, 'suspended'))._unsafeUnwrap();
    const failing = {
      ...service.admin,
      getOrganization: async () => err({ code: 'forbidden' as const, message: 'not allowed' }),
    };
    const refused = (await applySeed(failing, seed))._unsafeUnwrapErr();
    assert.equal(refused.field, 'seed:organizations[0]');
    assert.match(refused.message, new RegExp(`organization ${ORG} \\(Acme Pay\\).*forbidden`));
    const view = (await service.admin.getOrganization(operator, ORG))._unsafeUnwrap();
    assert.equal(view.organization.status, 'suspended', 'the stored organization is kept');
  });

  test('an invalid seed names the field (limits within what a PostgreSQL store keeps)', () => {
    const HASH = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    /** The seed with one key entry: a label, not revoked, and `key`'s fields. */
    const keyed = (key: object) => ({
      plans: [plan],
      organizations: [{ ...org, api_keys: [{ label: 'ci', revoked: false, ...key }] }],
    });
    const cases: [unknown, string][] = [
      [{ plans: [{ ...plan, monthly_quota: -1 }], organizations: [] }, 'seed:plans[0].monthly_quota'],
      [{ plans: [{ ...plan, monthly_quota: 2 ** 31 }], organizations: [] }, 'seed:plans[0].monthly_quota'],
      [{ plans: [{ ...plan, version: 2 ** 31 }], organizations: [] }, 'seed:plans[0].version'],
      [{ plans: [plan], organizations: [{ ...org, id: 'acme' }] }, 'seed:organizations[0].id'],
      [{ plans: [plan], organizations: [{ ...org, status: 'paused' }] }, 'seed:organizations[0].status'],
      [{ plans: [plan], organizations: [{ ...org, plan: null }] }, 'seed:organizations[0].plan'],
      [
        { plans: [plan], organizations: [{ ...org, plan: { code: 'gold', version: 1 } }] },
        'seed:organizations[0].plan',
      ],
      [keyed({}), 'seed:organizations[0].api_keys[0].key'],
      [
        keyed({ key: 'tsk_live_0123456789abcdefghijkl', key_sha256: HASH, prefix: 'p' }),
        'seed:organizations[0].api_keys[0].key',
      ],
      [keyed({ key_sha256: HASH }), 'seed:organizations[0].api_keys[0].prefix'],
      [keyed({ key_sha256: HASH.toUpperCase(), prefix: 'p' }), 'seed:organizations[0].api_keys[0].key_sha256'],
      [{ plans: [plan] }, 'seed:organizations'],
    ];
    for (const [value, field] of cases)
      assert.equal(decodeSeed(value)._unsafeUnwrapErr().field, field, JSON.stringify(value));
  });

  test('a seed file that is not JSON is refused at its line and column, never quoting its text (a password, a key)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tron-safety-seed-')), 'seed.json');
    const secrets = ['Correct-Horse-9f3b', KEY];
    // Hand edits that broke the file beside a secret: quotes forgotten, a quote too many.
    const broken = [
      [`{"plans": [],\n "organizations": [{"members": [{"password": ${secrets[0]}}]}]}`, 'line 2, column 46'],
      [
        `{"plans": [], "organizations": [\n  {"api_keys": [{"key": "${KEY}"", "revoked": true}]}]}`,
        'line 2, column 67',
      ],
    ];
    for (const [text, where] of broken) {
      writeFileSync(path, text!);
      const refused = (await loadSeedFile(path))._unsafeUnwrapErr();
      assert.equal(refused.message, `SAFETY_SEED_FILE: ${path} is not JSON: a syntax error at ${where}`);
      for (const secret of secrets) assert.ok(!refused.message.includes(secret.slice(0, 6)), refused.message);
    }
  });

  test('a key too short to import is refused with its entry', async () => {
    const seed = decodeSeed({
      plans: [plan],
      organizations: [{ ...org, api_keys: [{ label: 'ci', key: 'short', revoked: false }] }],
    })._unsafeUnwrap();
    const service = createSafetyService(createMemoryStores(), {
      chain: null,
      risk: createRiskProviders()._unsafeUnwrap(),
    });
    assert.equal((await applySeed(service.admin, seed))._unsafeUnwrapErr().field, 'seed:organizations[0].api_keys[0]');
  });
});

describe('public routes and request logs', () => {
  test('/v1/openapi.json and /v1/status need no key; the log has a request id per line and no secrets', async () => {
    const lines: Record<string, any>[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const service = createSafetyService(createMemoryStores(), {
      chain: null,
      risk: createRiskProviders()._unsafeUnwrap(),
    });
    await applySeed(service.admin, decodeSeed({ plans: [plan], organizations: [org] })._unsafeUnwrap());
    const handler = withRequestLog(withHostRoutes(service), createLogger('info', sink));
    const get = (path: string, headers: Record<string, string> = {}) =>
      handler.handle({ method: 'GET', path, query: {}, headers, body: new Uint8Array() });

    const openapi = await get('/v1/openapi.json');
    assert.equal(openapi.status, 200);
    assert.ok((JSON.parse(openapi.body) as { paths: Record<string, unknown> }).paths['/v1/transaction/check']);
    assert.deepEqual(JSON.parse((await get('/v1/status')).body), { business_access: 'enabled' });
    assert.equal((await get('/v1/status', { 'x-request-id': 'probe-7' })).headers['x-request-id'], 'probe-7');
    service.setApiDisabled(true);
    assert.deepEqual(JSON.parse((await get('/v1/status')).body), { business_access: 'disabled' });
    service.setApiDisabled(false);

    await get('/v1/usage', { 'x-api-key': KEY, 'x-request-id': 'trace-1' });
    await handler.handle({
      method: 'POST',
      path: '/v1/transaction/check',
      query: {},
      headers: { 'x-api-key': KEY, 'idempotency-key': 'secret-order-77', 'content-type': 'application/json' },
      body: new TextEncoder().encode('{"tx_hash":"nope","network":"tron"}'),
    });
    const text = JSON.stringify(lines);
    assert.ok(!text.includes(KEY) && !text.includes('secret-order-77'), text);
    assert.ok(text.includes('[redacted]'));
    assert.equal(lines.length, 6);
    for (const line of lines) assert.match(String(line.request_id), /\S/);
    assert.equal(lines[4]!.request_id, 'trace-1');
    assert.equal(lines[5]!.error_code, 'api_not_configured'); // this service has no chain provider
  });
});
