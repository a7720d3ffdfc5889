import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFakeTronNode, type FakeTronNode } from '@tron-safety/core/testing';
// store-postgres's test support: TEST_DATABASE_URL (CI) or a throwaway cluster, a schema per caller.
import { startTestPostgres, type TestDatabase, type TestPostgres } from '@tron-safety/store-postgres/testing';
import { runAdmin } from '../src/admin-cli.js';
import { parseConfig } from '../src/config.js';
import { startHost, type RunningHost } from '../src/host.js';
import { createLogger } from '../src/log.js';
import { HttpSession, PORTAL_PASSWORD, portalSeedFile } from './portal-support.js';

// The portal of several hosts on one PostgreSQL database: members, sessions and sign-in failures
// are shared, so a member may land on any host behind a load balancer.

const postgres: TestPostgres = await startTestPostgres();

describe('the portal on PostgreSQL, across hosts', { skip: postgres.skip }, () => {
  let db: TestDatabase;
  let node: FakeTronNode;
  const hosts: RunningHost[] = [];
  before(async () => {
    db = await postgres.createDatabase();
    node = await startFakeTronNode();
    for (const framework of ['express', 'koa']) {
      const env = {
        PORT: '0',
        OFAC_SDN_URL: 'off',
        HOST_FRAMEWORK: framework,
        DATABASE_URL: db.url,
        TRON_FULLNODE_URL: node.url,
        SAFETY_SEED_FILE: portalSeedFile(),
      };
      hosts.push((await startHost(parseConfig(env)._unsafeUnwrap(), createLogger('silent')))._unsafeUnwrap());
    }
  });
  after(async () => {
    await Promise.all(hosts.map((h) => h.stop('test end')));
    await node?.close();
    await db?.drop();
    await postgres.stop();
  });

  test('members add (DATABASE_URL) links to a password set on one host; sessions and sign-out hold on every host', async (t) => {
    const [a, b] = hosts as [RunningHost, RunningHost];
    const orgId = (await a.service.admin.listOrganizations({ kind: 'operator' }))._unsafeUnwrap()[0]!.id;
    const out: string[] = [];
    const log = t.mock.method(console, 'log', (...args: unknown[]) => out.push(args.join(' ')));
    process.env.DATABASE_URL = db.url;
    try {
      const code = await runAdmin([
        '--json',
        'members',
        'add',
        orgId,
        '--email',
        'dev@example.com',
        '--role',
        'developer',
        '--url',
        a.url,
      ]);
      assert.equal(code, 0);
    } finally {
      delete process.env.DATABASE_URL;
      log.mock.restore();
    }
    const link = new URL((JSON.parse(out.join('\n')) as { invitation_url: string }).invitation_url);
    const onA = new HttpSession(a.url);
    const form = await onA.send('GET', `${link.pathname}${link.search}`);
    const token = link.searchParams.get('token')!;
    const set = await onA.send('POST', '/portal/invitation', {
      csrf: form.csrf,
      token,
      password: PORTAL_PASSWORD,
      repeat: PORTAL_PASSWORD,
    });
    assert.equal(set.status, 303);
    assert.equal(
      (await new HttpSession(b.url).send('GET', `${link.pathname}${link.search}`)).status,
      404,
      'used, on every host',
    );

    const onB = new HttpSession(b.url);
    assert.equal((await onB.signIn('dev@example.com')).status, 303);
    const elsewhere = new HttpSession(a.url);
    elsewhere.cookies = onB.cookies;
    const keys = await elsewhere.send('GET', '/portal/keys');
    assert.equal(keys.status, 200, 'the session signed in on B opens pages on A');
    assert.equal((await elsewhere.send('POST', '/portal/sign-out', { csrf: keys.csrf })).status, 303);
    assert.equal((await onB.send('GET', '/portal/keys')).status, 303, 'signed out on A: ended on B');
  });

  test('failed sign-ins are counted across hosts', async () => {
    const [a, b] = hosts as [RunningHost, RunningHost];
    for (let i = 0; i < 5; i++) {
      const host = i % 2 ? a : b;
      assert.equal((await new HttpSession(host.url).signIn('owner@example.com', 'wrong password!')).status, 401);
    }
    assert.equal((await new HttpSession(a.url).signIn('owner@example.com')).status, 429);
    assert.equal((await new HttpSession(b.url).signIn('owner@example.com')).status, 429);
  });
});
