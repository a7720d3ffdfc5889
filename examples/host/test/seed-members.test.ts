import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startFakeTronNode, type FakeTronNode } from '@tron-safety/core/testing';
// store-postgres's test support: TEST_DATABASE_URL (CI) or a throwaway cluster, a schema per caller.
import { startTestPostgres, type TestDatabase, type TestPostgres } from '@tron-safety/store-postgres/testing';
import { runAdmin } from '../src/admin-cli.js';
import { parseConfig } from '../src/config.js';
import { startHost, type RunningHost } from '../src/host.js';
import { createLogger } from '../src/log.js';
import { decodeSeed, type SeedFile } from '../src/seed-file.js';
import { HttpSession, PORTAL_PASSWORD, portalSeedFile } from './portal-support.js';

// Seed file and stored state, for members: hosts on one PostgreSQL database load the same seed file
// at every start (a deploy, another host), and a member removed since (portal, admin CLI) stays
// removed, as a revoked key stays revoked; a member the file gives an id is inserted under it, and an id
// is never taken from another member. And the file's own rules of one member per invitation and per id.

const postgres: TestPostgres = await startTestPostgres();
const operator = { kind: 'operator' } as const;
after(() => postgres.stop());

/**
 * A database and a fake node of their own for the tests of the calling `describe`, and hosts started on them
 * with a seed file (all stopped at its end).
 */
function hostsOnOneDatabase() {
  let db: TestDatabase | undefined;
  let node: FakeTronNode | undefined;
  const hosts: RunningHost[] = [];
  before(async () => {
    db = await postgres.createDatabase();
    node = await startFakeTronNode();
  });
  after(async () => {
    await Promise.all(hosts.map((h) => h.stop('test end')));
    await node?.close();
    await db?.drop();
  });
  const databaseUrl = () => db!.url;
  const start = async (seed: string) => {
    const env = { PORT: '0', OFAC_SDN_URL: 'off', DATABASE_URL: databaseUrl(), TRON_FULLNODE_URL: node!.url };
    const config = parseConfig({ ...env, SAFETY_SEED_FILE: seed })._unsafeUnwrap();
    const started = await startHost(config, createLogger('silent'));
    if (started.isOk()) hosts.push(started.value);
    return started;
  };
  return { start, hosts, databaseUrl };
}

describe('Seed file and stored state: a removed member stays removed (PostgreSQL)', { skip: postgres.skip }, () => {
  const world = hostsOnOneDatabase();
  const { hosts } = world;
  const seed = portalSeedFile([
    { email: 'owner@example.com', role: 'owner', password: PORTAL_PASSWORD },
    { email: 'ex@example.com', role: 'admin', password: PORTAL_PASSWORD },
    { email: 'cli@example.com', role: 'viewer', password: PORTAL_PASSWORD },
  ]);
  /** A host on the shared database with the seed file. */
  const start = () => world.start(seed);
  /** The seed differences a start reported for removed members. */
  const removed = (host: RunningHost) => host.seeded!.differences.filter((d) => d.field.endsWith('.removed'));

  test('a member removed in the portal cannot sign in after another host starts with the seed file', async () => {
    const a = (await start())._unsafeUnwrap();
    const s = new HttpSession(a.url);
    assert.equal((await s.signIn('owner@example.com')).status, 303);
    const members = await s.send('GET', '/portal/members');
    const id = /\/portal\/members\/([0-9a-f-]{36})\/remove" class="danger" aria-label="Remove ex@example.com"/.exec(
      members.body,
    )![1]!;
    const confirm = await s.send('GET', `/portal/members/${id}/remove`);
    assert.equal((await s.send('POST', `/portal/members/${id}/remove`, { csrf: confirm.csrf })).status, 303);

    const b = (await start())._unsafeUnwrap();
    assert.equal((await new HttpSession(b.url).signIn('ex@example.com')).status, 401, 'not seeded again');
    assert.deepEqual(removed(b), [{ field: 'organizations[0].members[1].removed', stored: true, seed: false }]);
    assert.equal(b.seeded!.inserted.members, 0);
    const orgId = (await b.service.admin.listOrganizations(operator))._unsafeUnwrap()[0]!.id;
    const listed = (await b.service.admin.members.listMembers(operator, orgId))._unsafeUnwrap();
    assert.deepEqual(listed.map((m) => m.email).sort(), ['cli@example.com', 'owner@example.com']);
  });

  test('a member removed by the admin CLI (DATABASE_URL) stays removed at the next start', async (t) => {
    const a = hosts[0]!;
    const orgId = (await a.service.admin.listOrganizations(operator))._unsafeUnwrap()[0]!.id;
    t.mock.method(console, 'log', () => {});
    process.env.DATABASE_URL = world.databaseUrl();
    try {
      assert.equal(await runAdmin(['--json', 'members', 'remove', orgId, 'cli@example.com']), 0);
    } finally {
      delete process.env.DATABASE_URL;
    }
    const c = (await start())._unsafeUnwrap();
    assert.equal((await new HttpSession(c.url).signIn('cli@example.com')).status, 401);
    assert.deepEqual(
      removed(c).map((d) => d.field),
      ['organizations[0].members[1].removed', 'organizations[0].members[2].removed'],
    );
  });

  test('a removed member invited into another organization does not stop the next host start', async () => {
    const a = hosts[0]!;
    const other = (
      await a.service.admin.createOrganization(operator, { name: 'Other Co', assignment: { plan: 'team' } })
    )._unsafeUnwrap().organization.id;
    const invited = await a.service.admin.members.inviteMember(operator, other, {
      email: 'ex@example.com',
      role: 'viewer',
    });
    assert.ok(invited.isOk(), 'the removed email is free for an invitation elsewhere');
    const started = await start();
    assert.ok(started.isOk(), started.isErr() ? started.error.message : '');
    const theirs = (await started.value.service.admin.members.listMembers(operator, other))._unsafeUnwrap();
    assert.deepEqual(
      theirs.map((m) => [m.email, m.role]),
      [['ex@example.com', 'viewer']],
      'the other organization keeps its member',
    );
  });
});

describe(
  "Seed file member ids (PostgreSQL): inserted under the file's id, never overwriting another member",
  { skip: postgres.skip },
  () => {
    const world = hostsOnOneDatabase();
    const seed = portalSeedFile([
      { email: 'owner@example.com', role: 'owner', password: PORTAL_PASSWORD },
      { email: 'dev@example.com', role: 'developer', password: PORTAL_PASSWORD },
    ]);
    /** Starts a host on the shared database after giving the file's members these ids (undefined: none). */
    const startWithIds = async (...ids: (string | undefined)[]) => {
      const file = JSON.parse(readFileSync(seed, 'utf8')) as SeedFile;
      file.organizations[0]!.members = file.organizations[0]!.members!.map(({ id: _, ...m }, i) =>
        ids[i] ? { ...m, id: ids[i] } : m,
      );
      writeFileSync(seed, JSON.stringify(file));
      return world.start(seed);
    };
    const membersOf = async (host: RunningHost) => {
      const orgId = (await host.service.admin.listOrganizations(operator))._unsafeUnwrap()[0]!.id;
      return (await host.service.admin.members.listMembers(operator, orgId))
        ._unsafeUnwrap()
        .map((m) => [m.email, m.id]);
    };

    test("a member is inserted under the file's id; a stored member keeps its own (a difference); an id another member has refuses the start, naming the entry", async () => {
      const ownerId = '5d0c2b9e-3f4a-4c1d-8e7f-6a5b4c3d2e1f';
      const first = (await startWithIds(ownerId))._unsafeUnwrap();
      const stored = await membersOf(first);
      assert.equal(stored[0]![1], ownerId);
      const devId = stored[1]![1]!;

      const otherId = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
      const second = (await startWithIds(ownerId, otherId))._unsafeUnwrap();
      assert.deepEqual(await membersOf(second), stored, 'stored ids are kept');
      assert.deepEqual(
        second.seeded!.differences.filter((d) => d.field.endsWith('.id')),
        [{ field: 'organizations[0].members[1].id', stored: devId, seed: otherId }],
      );

      // The file now gives a new email the id of dev@ (stored, the file has no id for it): refused, dev@ untouched.
      const file = JSON.parse(readFileSync(seed, 'utf8')) as SeedFile;
      file.organizations[0]!.members!.push({ email: 'new@example.com', role: 'viewer', password: PORTAL_PASSWORD });
      writeFileSync(seed, JSON.stringify(file));
      const refused = await startWithIds(ownerId, undefined, devId.toUpperCase());
      assert.equal(refused._unsafeUnwrapErr().field, 'seed:organizations[0].members[2]');
      assert.match(refused._unsafeUnwrapErr().message, /members\[2\]: another member has this id or this invitation/);
      assert.deepEqual(await membersOf(second), stored, 'nothing inserted, nothing overwritten');
    });
  },
);

describe(
  'Seed file entries without an id (PostgreSQL): an entry stored before under a random id keeps it, without a difference',
  { skip: postgres.skip },
  () => {
    const world = hostsOnOneDatabase();
    const start = async (seed: string) => (await world.start(seed))._unsafeUnwrap();

    // Ids of entries the file gives without one are derived from the entry, for the admin CLI in memory mode;
    // a database seeded before that holds random ones, which a restart must not report as differences.
    test('a member and a key stored under random ids, then listed in the file without ids: no difference, ids kept', async () => {
      const seed = portalSeedFile();
      const first = await start(seed);
      const admin = first.service.admin;
      const orgId = (await admin.listOrganizations(operator))._unsafeUnwrap()[0]!.id;
      const invited = (
        await admin.members.inviteMember(operator, orgId, { email: 'early@example.com', role: 'viewer' })
      )._unsafeUnwrap();
      const issued = (await admin.createApiKey(operator, orgId, 'early'))._unsafeUnwrap();

      const file = JSON.parse(readFileSync(seed, 'utf8')) as SeedFile;
      file.organizations[0]!.members!.push({ email: 'early@example.com', role: 'viewer', password: PORTAL_PASSWORD });
      file.organizations[0]!.api_keys.push({ label: 'early', key: issued.key, revoked: false });
      writeFileSync(seed, JSON.stringify(file));
      const second = await start(seed);
      assert.deepEqual(second.seeded!.differences, []);
      assert.equal(second.seeded!.inserted.members + second.seeded!.inserted.keys, 0);
      const members = (await second.service.admin.members.listMembers(operator, orgId))._unsafeUnwrap();
      assert.equal(members.find((m) => m.email === 'early@example.com')?.id, invited.member.id);
      const keys = (await second.service.admin.listApiKeys(operator, orgId))._unsafeUnwrap();
      assert.deepEqual(
        keys.map((k) => k.id),
        [issued.metadata.id],
      );
    });
  },
);

test('Seed file: a member id may appear once in the file (it names one member in every organization), in any case', () => {
  const seed = JSON.parse(readFileSync(portalSeedFile(), 'utf8')) as SeedFile;
  const id = '5d0c2b9e-3f4a-4c1d-8e7f-6a5b4c3d2e1f';
  seed.organizations[0]!.members = [
    { id, email: 'one@example.com', role: 'owner', password: PORTAL_PASSWORD },
    { id: id.toUpperCase(), email: 'two@example.com', role: 'viewer', password: PORTAL_PASSWORD },
  ];
  const refused = decodeSeed(seed)._unsafeUnwrapErr();
  assert.equal(refused.field, 'seed:organizations[0].members[1].id');
  assert.match(refused.message, /repeats the id of another member/);
});

test('Seed file: one member per invitation link; a second member with the same invitation refuses the file, naming it', () => {
  const invitation = { token_sha256: 'ab'.repeat(32), expires_at: '2099-01-01T00:00:00Z' };
  const seed = JSON.parse(readFileSync(portalSeedFile(), 'utf8')) as SeedFile;
  seed.organizations[0]!.members = [
    { email: 'one@example.com', role: 'owner', invitation },
    { email: 'two@example.com', role: 'viewer', invitation: { ...invitation } },
  ];
  const refused = decodeSeed(seed)._unsafeUnwrapErr();
  assert.equal(refused.field, 'seed:organizations[0].members[1].invitation');
  assert.match(refused.message, /repeats the invitation of another member/);
});
