import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import {
  startFakeChainalysis,
  startFakeTronNode,
  TRON_FIXTURE_TX,
  type FakeChainalysis,
  type FakeTronNode,
} from '@tron-safety/core/testing';
import { request } from 'undici';
// store-postgres's test support: TEST_DATABASE_URL (CI) or a throwaway cluster, a schema per caller.
import { startTestPostgres, type TestDatabase, type TestPostgres } from '@tron-safety/store-postgres/testing';
import { runAdmin } from '../src/admin-cli.js';
import { parseConfig } from '../src/config.js';
import { startHost, type RunningHost } from '../src/host.js';
import { fakeProvidersEnv } from './support.js';
import { createLogger } from '../src/log.js';

const postgres: TestPostgres = await startTestPostgres();

/** The admin CLI against DATABASE_URL, in-process; returns its JSON output. */
async function admin(t: { mock: any }, databaseUrl: string, ...args: string[]): Promise<any> {
  const out: string[] = [];
  const log = t.mock.method(console, 'log', (...a: unknown[]) => out.push(a.join(' ')));
  const previous = process.env.DATABASE_URL;
  process.env.DATABASE_URL = databaseUrl;
  try {
    assert.equal(await runAdmin(['--json', ...args]), 0, `admin ${args.join(' ')}`);
  } finally {
    log.mock.restore();
    if (previous === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = previous;
  }
  return JSON.parse(out.join('\n'));
}

describe('the host on PostgreSQL (DATABASE_URL)', { skip: postgres.skip }, () => {
  let db: TestDatabase;
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  const hosts: RunningHost[] = [];
  before(async () => {
    db = await postgres.createDatabase();
    node = await startFakeTronNode();
    vendors = await startFakeChainalysis();
  });
  after(async () => {
    await Promise.all(hosts.map((h) => h.stop('test end')));
    await Promise.all([node?.close(), vendors?.close()]);
    await db?.drop();
    await postgres.stop();
  });

  async function host(
    framework: 'express' | 'koa',
    env: Record<string, string> = {},
    lines: Record<string, unknown>[] = [],
  ): Promise<RunningHost> {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean))
          lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const config = parseConfig({
      PORT: '0',
      DATABASE_URL: db.url,
      ...fakeProvidersEnv(node, vendors),
      HOST_FRAMEWORK: framework,
      OFAC_SDN_URL: 'off',
      ...env,
    })._unsafeUnwrap();
    const started = (await startHost(config, createLogger('warn', sink)))._unsafeUnwrap();
    hosts.push(started);
    return started;
  }

  test('admin CLI writes to the database; two hosts share it: one idempotent execution, usage counted once', async (t) => {
    await admin(
      t,
      db.url,
      'plans',
      'create',
      '--code',
      'starter',
      '--name',
      'Starter',
      '--rate-limit',
      '120',
      '--concurrency',
      '4',
      '--quota',
      '1000',
    );
    const org = await admin(t, db.url, 'orgs', 'create', '--name', 'Acme Pay', '--plan', 'starter');
    const issued = await admin(t, db.url, 'keys', 'create', org.organization.id, '--label', 'ci');

    const [a, b] = [await host('express'), await host('koa')];
    assert.match(a.stores, /^postgres /);
    const check = async (h: RunningHost) => {
      const res = await request(`${h.url}/v1/transaction/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': issued.key, 'idempotency-key': 'pg-order-1' },
        body: JSON.stringify({ tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' }),
      });
      return { status: res.statusCode, replayed: res.headers['idempotent-replayed'], text: await res.body.text() };
    };
    const first = await check(a);
    assert.equal(first.status, 200, first.text);
    const second = await check(b);
    assert.equal(second.replayed, 'true');
    assert.equal(second.text, first.text);

    const usage = await admin(t, db.url, 'usage', org.organization.id, '--days', '1');
    assert.equal(usage.recent.requests, 1);
    assert.equal(usage.period.used, 1);
    assert.equal(usage.period.reserved, 0);

    await admin(t, db.url, 'orgs', 'suspend', org.organization.id);
    const suspended = await request(`${b.url}/v1/usage`, { headers: { 'x-api-key': issued.key } });
    assert.equal(suspended.statusCode, 403, 'a change by the CLI applies to running hosts at once');
    await suspended.body.dump();
  });
  const check = (h: RunningHost, key: string, idempotencyKey: string) =>
    request(`${h.url}/v1/transaction/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'idempotency-key': idempotencyKey },
      body: JSON.stringify({ tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' }),
    });

  test('a restart with SAFETY_SEED_FILE keeps what the admin CLI changed since (inserts only what is missing) and warns', async (t) => {
    const org = '6a1d2c3e-0000-4c3c-9d2a-0e5f4b8f9a21';
    const key = 'tsk_live_pg_seed_restart_key_0000000000';
    const seedFile = join(mkdtempSync(join(tmpdir(), 'tron-safety-pg-seed-')), 'seed.json');
    writeFileSync(
      seedFile,
      JSON.stringify({
        plans: [
          {
            code: 'seeded',
            version: 1,
            name: 'Seeded',
            rate_limit_per_minute: 120,
            max_concurrent_requests: 4,
            monthly_quota: 1000,
            enabled_networks: ['tron'],
          },
        ],
        organizations: [
          {
            id: org,
            name: 'Seeded Org',
            status: 'active',
            plan: { code: 'seeded', version: 1 },
            custom_entitlements: null,
            api_keys: [{ label: 'ci', key, revoked: false }],
          },
        ],
      }),
    );
    const first = await host('express', { SAFETY_SEED_FILE: seedFile });
    assert.deepEqual(first.seeded?.inserted, { plans: 1, organizations: 1, keys: 1, members: 0 });
    await first.stop('restart');
    await admin(t, db.url, 'orgs', 'suspend', org);
    await admin(
      t,
      db.url,
      'plans',
      'create',
      '--code',
      'seeded',
      '--name',
      'Seeded 2',
      '--rate-limit',
      '60',
      '--concurrency',
      '2',
      '--quota',
      '10',
    );
    await admin(t, db.url, 'orgs', 'set-plan', org, '--plan', 'seeded@2');

    const lines: Record<string, unknown>[] = [];
    const second = await host('koa', { SAFETY_SEED_FILE: seedFile }, lines);
    assert.deepEqual(second.seeded?.inserted, { plans: 0, organizations: 0, keys: 0, members: 0 });
    const usage = await request(`${second.url}/v1/usage`, { headers: { 'x-api-key': key } });
    assert.equal(usage.statusCode, 403, 'the suspension made with the CLI survives the restart');
    await usage.body.dump();
    const view = await admin(t, db.url, 'orgs', 'list');
    assert.equal(view.find((o: { id: string }) => o.id === org).assignment.version, 2);
    const warned = lines.filter((l) => l.level === 40 && 'seed_field' in l).map((l) => l.seed_field);
    assert.deepEqual(warned, ['organizations[0].status', 'organizations[0].plan']);
  });

  test('SIGTERM past the grace: nothing stays reserved in PostgreSQL (quota, concurrency slot, idempotency record)', async (t) => {
    await admin(
      t,
      db.url,
      'plans',
      'create',
      '--code',
      'single',
      '--name',
      'Single',
      '--rate-limit',
      '120',
      '--concurrency',
      '1',
      '--quota',
      '1000',
    );
    const org = await admin(t, db.url, 'orgs', 'create', '--name', 'Single Slot', '--plan', 'single');
    const issued = await admin(t, db.url, 'keys', 'create', org.organization.id, '--label', 'ci');

    const draining = await host('koa', { SHUTDOWN_GRACE_MS: '200' });
    const removeFault = node.fault({ path: 'gettransactionbyid', fault: { kind: 'hang' } });
    try {
      const inFlight = check(draining, issued.key, 'pg-drain-1');
      while (draining.service.inFlight === 0) await new Promise((r) => setTimeout(r, 10));
      await draining.stop('SIGTERM');
      const answer = await inFlight;
      assert.equal(answer.statusCode, 503);
      assert.equal(((await answer.body.json()) as { error: { code: string } }).error.code, 'api_disabled');
    } finally {
      removeFault();
    }

    const usage = await admin(t, db.url, 'usage', org.organization.id, '--days', '1');
    assert.equal(usage.period.reserved, 0);
    const next = await host('express');
    // With max_concurrent_requests 1 a leaked slot would make this 429; a leaked record, 409.
    const again = await check(next, issued.key, 'pg-drain-1');
    assert.equal(again.statusCode, 200, await again.body.text());
    assert.equal(again.headers['idempotent-replayed'], undefined, 'the aborted check executes again');
  });
});
