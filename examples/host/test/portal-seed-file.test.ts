import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { hashApiKey } from '@tron-safety/core';
import { startFakeTronNode, type FakeTronNode } from '@tron-safety/core/testing';
import { request } from 'undici';
import { parseConfig } from '../src/config.js';
import { startHost, type RunningHost } from '../src/host.js';
import { createLogger } from '../src/log.js';
import { loadSeedFile, type SeedFile } from '../src/seed-file.js';
import { adminProcess } from './admin-process.js';
import { HttpSession, PORTAL_PASSWORD, portalSeedFile } from './portal-support.js';

// Memory mode with a seed file: the file is the host's only durable state, so what a member changes
// in the portal must be in the file and survive a restart of the host on it (real HTTP, a real restart).

const SEEDED_KEY = 'tsk_live_seeded_checkout_0000000000000000000000';
const ID = '([0-9a-f-]{36})';

/** The portal's seed file with a key given in full (no id, as people write them) and an owner and an admin. */
function seedWithKey(): string {
  const path = portalSeedFile([
    { email: 'owner@example.com', role: 'owner', password: PORTAL_PASSWORD },
    { email: 'ex@example.com', role: 'admin', password: PORTAL_PASSWORD },
  ]);
  const seed = JSON.parse(readFileSync(path, 'utf8')) as SeedFile;
  seed.organizations[0]!.api_keys.push({ label: 'checkout', key: SEEDED_KEY, revoked: false });
  writeFileSync(path, JSON.stringify(seed));
  return path;
}

const organizationIn = async (seed: string) => (await loadSeedFile(seed))._unsafeUnwrap().organizations[0]!;

/** A memory-mode host on one seed file, stopped and started again on it. */
class RestartableHost {
  host!: RunningHost;
  constructor(
    readonly node: FakeTronNode,
    readonly seed: string,
  ) {}
  async start(): Promise<this> {
    const config = parseConfig({
      PORT: '0',
      OFAC_SDN_URL: 'off',
      TRON_FULLNODE_URL: this.node.url,
      SAFETY_SEED_FILE: this.seed,
    })._unsafeUnwrap();
    this.host = (await startHost(config, createLogger('silent')))._unsafeUnwrap();
    return this;
  }
  async restart(): Promise<void> {
    await this.host.stop('restart');
    await this.start();
  }
  stop = () => this.host?.stop('test end');
  /** GET /v1/usage's status with this key. */
  async usage(key: string): Promise<number> {
    const res = await request(`${this.host.url}/v1/usage`, { headers: { 'x-api-key': key } });
    await res.body.dump();
    return res.statusCode;
  }
  async signIn(email = 'owner@example.com'): Promise<HttpSession> {
    const session = new HttpSession(this.host.url);
    assert.equal((await session.signIn(email)).status, 303, `${email} signs in`);
    return session;
  }
}

/** Confirms and posts a key action of the keys page; the answer. */
async function keyAction(session: HttpSession, action: 'rotate' | 'revoke') {
  const page = await session.send('GET', '/portal/keys');
  const id = new RegExp(`/portal/keys/${ID}/${action}`).exec(page.body)![1]!;
  const confirm = await session.send('GET', `/portal/keys/${id}/${action}`);
  return session.send('POST', `/portal/keys/${id}/${action}`, { csrf: confirm.csrf });
}

/** The invitation link an invite's answer shows (path and token). */
const invitationLink = (body: string) =>
  /id="invitation-link" readonly value="[^"]*(\/portal\/invitation\?token=[^"]+)"/.exec(body)![1]!;

const issuedKey = (body: string) => /id="issued-key" readonly value="([^"]+)"/.exec(body)![1]!;

/** Creates a key and follows the redirect to the page that shows it. */
async function createKey(session: HttpSession, label: string) {
  const page = await session.send('GET', '/portal/keys');
  return session.follow(await session.send('POST', '/portal/keys', { csrf: page.csrf, label }));
}

/** Invites and follows the redirect to the page that shows the link. */
async function invite(session: HttpSession, email: string, role = 'developer') {
  const page = await session.send('GET', '/portal/members');
  return session.follow(await session.send('POST', '/portal/members', { csrf: page.csrf, email, role }));
}

const memberId = (page: string, email: string) =>
  new RegExp(`/portal/members/${ID}/remove" class="danger" aria-label="Remove ${email}"`).exec(page)![1]!;

async function setRole(session: HttpSession, email: string, role: string) {
  const page = await session.send('GET', '/portal/members');
  return session.send('POST', `/portal/members/${memberId(page.body, email)}/role`, { csrf: page.csrf, role });
}

async function removeMember(session: HttpSession, email: string) {
  const id = memberId((await session.send('GET', '/portal/members')).body, email);
  const confirm = await session.send('GET', `/portal/members/${id}/remove`);
  return session.send('POST', `/portal/members/${id}/remove`, { csrf: confirm.csrf });
}

/** The role the members page shows for `email`, or null when it is not listed. */
async function roleShown(session: HttpSession, email: string): Promise<string | null> {
  const page = (await session.send('GET', '/portal/members')).body;
  return new RegExp(`<td>${email.replaceAll('.', '\\.')}[^]*?</td>\\s*<td>(\\w+)</td>`).exec(page)?.[1] ?? null;
}

/**
 * Makes the seed file impossible to replace, and returns how to undo it: a read-only directory, or for
 * root (whom permissions do not stop) the immutable attribute on the file itself. Null when neither works here.
 */
function unwritable(seed: string): (() => void) | null {
  if (process.getuid?.() !== 0) {
    chmodSync(dirname(seed), 0o555);
    return () => chmodSync(dirname(seed), 0o755);
  }
  if (spawnSync('chattr', ['+i', seed]).status !== 0) return null;
  return () => void spawnSync('chattr', ['-i', seed]);
}

describe('portal changes in memory mode are kept in the seed file across a restart', () => {
  let node: FakeTronNode;
  const hosts: RestartableHost[] = [];
  const startOn = async (seed: string) => {
    const host = await new RestartableHost(node, seed).start();
    hosts.push(host);
    return host;
  };
  before(async () => {
    node = await startFakeTronNode();
  });
  after(async () => {
    for (const host of hosts) await host.stop();
    await node.close();
  });

  test('Authentication 6: a key revoked in the portal answers 401 after a restart too; the file keeps it as its hash and prefix, not in full', async () => {
    const host = await startOn(seedWithKey());
    assert.equal(await host.usage(SEEDED_KEY), 200);
    assert.equal((await keyAction(await host.signIn(), 'revoke')).status, 303);
    assert.equal(await host.usage(SEEDED_KEY), 401);
    const entry = (await organizationIn(host.seed)).api_keys[0]!;
    assert.deepEqual(
      [entry.revoked, entry.key, entry.key_sha256, entry.prefix],
      [true, undefined, hashApiKey(SEEDED_KEY), SEEDED_KEY.slice(0, 17)],
      'revoked in the file, by its hash',
    );
    await host.restart();
    assert.equal(await host.usage(SEEDED_KEY), 401);
  });

  test('Authentication 6: a rotation in the portal holds after a restart: the old key 401 (the file no longer holds it in full), its replacement 200', async () => {
    const host = await startOn(seedWithKey());
    const owner = await host.signIn();
    const rotated = await owner.follow(await keyAction(owner, 'rotate'));
    const fresh = issuedKey(rotated.body);
    assert.match(rotated.body, /rotated: tsk_live_seeded_c… is revoked/, 'the page is as before');
    const keys = (await (await host.signIn()).send('GET', '/portal/keys')).body;
    assert.match(keys, new RegExp(`rotated to ${fresh.slice(0, 17)}…`), 'the list links the old key to the new one');
    assert.ok(!readFileSync(host.seed, 'utf8').includes(SEEDED_KEY.slice(9)), 'the revoked key is not kept in full');
    await host.restart();
    assert.equal(await host.usage(SEEDED_KEY), 401);
    assert.equal(await host.usage(fresh), 200);
  });

  test('Authentication 5: a key created in the portal works after a restart; the seed file keeps its hash and prefix, never the key', async () => {
    const host = await startOn(seedWithKey());
    const created = await createKey(await host.signIn(), 'billing server');
    assert.equal(created.status, 200);
    const key = issuedKey(created.body);
    const entry = (await organizationIn(host.seed)).api_keys.find((k) => k.label === 'billing server')!;
    assert.equal(entry.key_sha256, hashApiKey(key));
    assert.equal(entry.prefix, key.slice(0, 17));
    assert.ok(!readFileSync(host.seed, 'utf8').includes(key), 'the full key is not written');
    assert.equal(statSync(host.seed).mode & 0o777, 0o600);
    await host.restart();
    assert.equal(await host.usage(key), 200);
    assert.match((await (await host.signIn()).send('GET', '/portal/keys')).body, /billing server/);
  });

  test('Members: an invitation from the portal survives a restart, and its link then sets the password', async () => {
    const host = await startOn(seedWithKey());
    const invited = await invite(await host.signIn(), 'dev@example.com');
    const link = invitationLink(invited.body);
    await host.restart();
    const browser = new HttpSession(host.host.url);
    const form = await browser.send('GET', link);
    assert.equal(form.status, 200);
    const token = new URL(link, host.host.url).searchParams.get('token')!;
    const password = 'a new portal password';
    const accepted = await browser.send('POST', '/portal/invitation', {
      csrf: form.csrf,
      token,
      password,
      repeat: password,
    });
    assert.equal(accepted.status, 303);
    assert.equal((await new HttpSession(host.host.url).signIn('dev@example.com', password)).status, 303);
  });

  test('Members: a member the portal invites keeps its id after a restart (the file keeps it), so an id shown once names it later', async () => {
    const host = await startOn(seedWithKey());
    const owner = await host.signIn();
    await invite(owner, 'dev@example.com');
    const id = memberId((await owner.send('GET', '/portal/members')).body, 'dev@example.com');
    const entry = (await organizationIn(host.seed)).members!.find((m) => m.email === 'dev@example.com');
    assert.equal(entry?.id, id);
    await host.restart();
    assert.equal(memberId((await (await host.signIn()).send('GET', '/portal/members')).body, 'dev@example.com'), id);
  });

  test('Members: an invitation link used once stays used after a restart (the file keeps it expired)', async () => {
    const host = await startOn(seedWithKey());
    const invited = await invite(await host.signIn(), 'dev@example.com');
    const link = invitationLink(invited.body);
    const token = new URL(link, host.host.url).searchParams.get('token')!;
    const accept = async (password: string) => {
      const browser = new HttpSession(host.host.url);
      const form = await browser.send('GET', link);
      return browser.send('POST', '/portal/invitation', { csrf: form.csrf, token, password, repeat: password });
    };
    assert.equal((await accept('the first password')).status, 303);
    await host.restart();
    assert.notEqual((await accept('a password set by whoever kept the link')).status, 303);
    const signIn = new HttpSession(host.host.url).signIn('dev@example.com', 'a password set by whoever kept the link');
    assert.equal((await signIn).status, 401);
  });

  test('Members: a member removed in the portal cannot sign in after a restart', async () => {
    const host = await startOn(seedWithKey());
    assert.equal((await removeMember(await host.signIn(), 'ex@example.com')).status, 303);
    await host.restart();
    assert.equal((await new HttpSession(host.host.url).signIn('ex@example.com')).status, 401);
    assert.equal(await roleShown(await host.signIn(), 'ex@example.com'), null);
  });

  test('Members: a role changed in the portal is the role after a restart', async () => {
    const host = await startOn(seedWithKey());
    const owner = await host.signIn();
    assert.equal((await setRole(owner, 'ex@example.com', 'viewer')).status, 303);
    await host.restart();
    assert.equal(await roleShown(await host.signIn(), 'ex@example.com'), 'viewer');
    const viewer = await host.signIn('ex@example.com');
    assert.match((await viewer.send('GET', '/portal/keys')).body, /Your role \(viewer\) can see the keys/);
  });

  test('Members: a role change or removal in the portal never reaches a member of the same email that the file meanwhile has in another organization', async () => {
    const host = await startOn(seedWithKey());
    // As `members remove A ex` then `members add B ex` would leave the file while the host runs.
    const seed = JSON.parse(readFileSync(host.seed, 'utf8')) as SeedFile;
    const a = seed.organizations[0]!;
    const moved = a.members!.find((m) => m.email === 'ex@example.com')!;
    a.members = a.members!.filter((m) => m !== moved);
    const other = '7d1e0c2a-0000-4000-8000-00000000000b';
    seed.organizations.push({ ...a, id: other, name: 'Other', api_keys: [], members: [{ ...moved, role: 'viewer' }] });
    writeFileSync(host.seed, JSON.stringify(seed));
    const owner = await host.signIn();
    const inOther = async () =>
      (await loadSeedFile(host.seed))
        ._unsafeUnwrap()
        .organizations.find((o) => o.id === other)!
        .members!.map((m) => [m.email, m.role]);
    assert.equal((await setRole(owner, 'ex@example.com', 'developer')).status, 303);
    assert.deepEqual(await inOther(), [['ex@example.com', 'viewer']], 'its role in the other organization');
    assert.equal((await removeMember(owner, 'ex@example.com')).status, 303);
    assert.deepEqual(await inOther(), [['ex@example.com', 'viewer']], 'still a member there');
  });

  test('Seed file: an admin CLI command run while the host serves is kept beside the portal changes made at the same time', async () => {
    const host = await startOn(seedWithKey());
    const owner = await host.signIn();
    const org = (await organizationIn(host.seed)).id;
    const [cli, revoked, created] = await Promise.all([
      adminProcess('--seed-file', host.seed, '--json', 'keys', 'create', org, '--label', 'from the cli'),
      keyAction(owner, 'revoke'),
      createKey(owner, 'from the portal'),
    ]);
    assert.equal(cli.code, 0, cli.err);
    assert.equal(revoked.status, 303);
    const cliKey = (JSON.parse(cli.out) as { key: string }).key;
    const portalKey = issuedKey(created.body);
    const invited = await adminProcess(
      '--seed-file',
      host.seed,
      'members',
      'add',
      org,
      '--email',
      'ops@example.com',
      '--role',
      'viewer',
    );
    assert.equal(invited.code, 0, invited.err);
    assert.equal((await setRole(owner, 'ex@example.com', 'developer')).status, 303);
    await host.restart();
    assert.equal(await host.usage(cliKey), 200, "the CLI's key");
    assert.equal(await host.usage(portalKey), 200, "the portal's key");
    assert.equal(await host.usage(SEEDED_KEY), 401, "the portal's revocation");
    const members = await host.signIn();
    assert.equal(await roleShown(members, 'ops@example.com'), 'viewer', "the CLI's invitation");
    assert.equal(await roleShown(members, 'ex@example.com'), 'developer', "the portal's role change");
  });

  test('Seed file: when it cannot be written, each portal change fails with an error page and changes nothing, before or after a restart', async (t: TestContext) => {
    const host = await startOn(seedWithKey());
    const owner = await host.signIn();
    const restore = unwritable(host.seed);
    if (!restore) return t.skip('neither a read-only directory nor chattr can make the seed file unwritable here');
    const before = readFileSync(host.seed, 'utf8');
    try {
      const attempts = {
        revoke: await keyAction(owner, 'revoke'),
        rotate: await keyAction(owner, 'rotate'),
        create: await createKey(owner, 'never kept'),
        invite: await invite(owner, 'dev@example.com'),
        role: await setRole(owner, 'ex@example.com', 'viewer'),
        remove: await removeMember(owner, 'ex@example.com'),
      };
      for (const [action, answer] of Object.entries(attempts)) {
        assert.equal(answer.status, 500, action);
        assert.match(answer.body, /Nothing was changed: the service could not save this change durably/, action);
      }
    } finally {
      restore();
    }
    assert.equal(readFileSync(host.seed, 'utf8'), before, 'the file is as it was');
    assert.deepEqual(
      readdirSync(dirname(host.seed)).filter((f) => f !== 'seed.json'),
      [],
      'no temporary file or lock is left',
    );
    const unchanged = async () => {
      assert.equal(await host.usage(SEEDED_KEY), 200, 'the key is not revoked');
      const session = await host.signIn();
      const keys = (await session.send('GET', '/portal/keys')).body;
      assert.equal(keys.match(/Revoke key/g)?.length, 1, 'one key, active');
      assert.doesNotMatch(keys, /never kept|badge off/);
      assert.equal(await roleShown(session, 'ex@example.com'), 'admin', 'not demoted, not removed');
      assert.equal(await roleShown(session, 'dev@example.com'), null, 'not invited');
      await host.signIn('ex@example.com');
    };
    await unchanged();
    await host.restart();
    await unchanged();
  });
});
