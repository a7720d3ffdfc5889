import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFakeChainalysis, startFakeTronNode, TRON_FIXTURE_TX, type FakeChainalysis, type FakeTronNode } from '@tron-safety/core/testing';
import { request } from 'undici';
// store-postgres's test support: TEST_DATABASE_URL (CI) or a throwaway cluster, a schema per caller.
import { startTestPostgres, type TestDatabase, type TestPostgres } from '@tron-safety/store-postgres/testing';
import { runAdmin } from '../src/admin-cli.js';
import { parseConfig } from '../src/config.js';
import { startHost, type RunningHost } from '../src/host.js';
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

  async function host(framework: 'express' | 'koa'): Promise<RunningHost> {
    const config = parseConfig({
      PORT: '0',
      DATABASE_URL: db.url,
      TRON_FULLNODE_URL: node.url,
      CHAINALYSIS_API_URL: vendors.entityUrl,
      CHAINALYSIS_API_KEY: 'k',
      CHAINALYSIS_SANCTIONS_URL: vendors.sanctionsUrl,
      CHAINALYSIS_SANCTIONS_API_KEY: 'k',
      HOST_FRAMEWORK: framework,
    })._unsafeUnwrap();
    const started = (await startHost(config, createLogger('silent')))._unsafeUnwrap();
    hosts.push(started);
    return started;
  }

  test('admin CLI writes to the database; two hosts share it: one idempotent execution, usage counted once', async (t) => {
    await admin(t, db.url, 'plans', 'create', '--code', 'starter', '--name', 'Starter', '--rate-limit', '120', '--concurrency', '4', '--quota', '1000');
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
});
