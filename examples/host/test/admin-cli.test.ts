import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createRiskProviders, createSafetyService, hashApiKey } from '@tron-safety/core';
import { createMemoryStores } from '@tron-safety/store-memory';
import { runAdmin } from '../src/admin-cli.js';
import { applySeed, loadSeedFile } from '../src/seed-file.js';
import { lockSeedFile, SeedFileBusy } from '../src/seed-file-lock.js';
// The core's own flood of its password derivations: the CLI here runs in this process, on the same core module.
import { fillDerivations } from '../../../packages/core/test/password-support.js';
import { adminProcess } from './admin-process.js';
import { PORTAL_PASSWORD, portalSeedFile } from './portal-support.js';
import { TEST_KEY, TEST_ORG, writeSeedFile } from './support.js';

/** Runs the CLI in-process, capturing what it prints. */
async function admin(t: { mock: any }, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = t.mock.method(console, 'log', (...a: unknown[]) => out.push(a.join(' ')));
  const error = t.mock.method(console, 'error', (...a: unknown[]) => err.push(a.join(' ')));
  const writeErr = t.mock.method(process.stderr, 'write', (s: string) => (err.push(String(s)), true));
  try {
    const code = await runAdmin(args);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mock.restore();
    error.mock.restore();
    writeErr.mock.restore();
  }
}

/** What a host started from this seed file would answer for `key` on GET /v1/usage. */
async function usageStatus(seedFile: string, key: string): Promise<number> {
  const service = createSafetyService(createMemoryStores(), {
    chain: null,
    risk: createRiskProviders()._unsafeUnwrap(),
  });
  (await applySeed(service.admin, (await loadSeedFile(seedFile))._unsafeUnwrap()))._unsafeUnwrap();
  return (await service.usage({ apiKey: key })).status;
}

describe('admin CLI (memory mode: the seed file)', () => {
  test('plans, organizations and keys end up in the seed file the host loads', async (t) => {
    const seed = join(mkdtempSync(join(tmpdir(), 'tron-safety-admin-')), 'seed.json');
    const base = ['--seed-file', seed, '--json'];
    assert.equal(
      (
        await admin(
          t,
          ...base,
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
        )
      ).code,
      0,
    );
    assert.equal(statSync(seed).mode & 0o777, 0o600);
    const org = JSON.parse((await admin(t, ...base, 'orgs', 'create', '--name', 'Acme Pay', '--plan', 'starter')).out);
    const orgId: string = org.organization.id;
    assert.deepEqual(org.plan.code, 'starter');

    const created = JSON.parse((await admin(t, ...base, 'keys', 'create', orgId, '--label', 'ci')).out);
    assert.match(created.key, /^tsk_live_/);
    assert.equal(await usageStatus(seed, created.key), 200);

    const listed = JSON.parse((await admin(t, ...base, 'keys', 'list', orgId)).out);
    assert.equal(listed.length, 1);
    assert.ok(!JSON.stringify(listed).includes(created.key), 'lists show prefixes only');

    const rotated = JSON.parse((await admin(t, ...base, 'keys', 'rotate', orgId, created.metadata.id)).out);
    assert.equal(await usageStatus(seed, created.key), 401);
    assert.equal(await usageStatus(seed, rotated.key), 200);

    assert.equal((await admin(t, ...base, 'orgs', 'suspend', orgId)).code, 0);
    assert.equal(await usageStatus(seed, rotated.key), 403);
    assert.equal((await admin(t, ...base, 'orgs', 'activate', orgId)).code, 0);
    assert.equal(
      (
        await admin(
          t,
          ...base,
          'plans',
          'create',
          '--code',
          'starter',
          '--name',
          'Starter 2',
          '--rate-limit',
          '240',
          '--concurrency',
          '4',
          '--quota',
          '5',
        )
      ).code,
      0,
    );
    const moved = JSON.parse((await admin(t, ...base, 'orgs', 'set-plan', orgId, '--plan', 'starter@2')).out);
    assert.equal(moved.plan.version, 2);
    const custom = JSON.parse(
      (
        await admin(
          t,
          ...base,
          'orgs',
          'set-entitlements',
          orgId,
          '--rate-limit',
          '5',
          '--concurrency',
          '1',
          '--quota',
          '3',
        )
      ).out,
    );
    assert.equal(custom.entitlements.monthlyQuota, 3);
    assert.equal((await admin(t, ...base, 'keys', 'revoke', orgId, rotated.metadata.id)).code, 0);
    assert.equal(await usageStatus(seed, rotated.key), 401);
  });

  test('the seed file keeps a key only as its SHA-256 and display prefix: keys create and rotate print it once, and a rewrite turns a hand-written full key (revoked or not) into its hash', async (t) => {
    const seed = writeSeedFile();
    const handWritten = { active: TEST_KEY, revoked: 'tsk_live_revoked_by_hand_00000000000000' };
    const file = JSON.parse(readFileSync(seed, 'utf8'));
    file.organizations[0].api_keys.push({ label: 'old', key: handWritten.revoked, revoked: true });
    writeFileSync(seed, JSON.stringify(file));
    const base = ['--seed-file', seed, '--json'];

    const created = JSON.parse((await admin(t, ...base, 'keys', 'create', TEST_ORG, '--label', 'ci')).out);
    const rotated = JSON.parse((await admin(t, ...base, 'keys', 'rotate', TEST_ORG, created.metadata.id)).out);
    const text = readFileSync(seed, 'utf8');
    for (const key of [created.key, rotated.key, ...Object.values(handWritten)])
      assert.ok(!text.includes(key.slice(9)), `no full key in the file: ${text}`);
    const keys = (await loadSeedFile(seed))._unsafeUnwrap().organizations[0]!.api_keys;
    assert.deepEqual(
      keys.map((k) => [k.label, k.revoked, k.key_sha256, k.prefix]),
      [
        ['ops', false, hashApiKey(TEST_KEY), TEST_KEY.slice(0, 17)],
        ['old', true, hashApiKey(handWritten.revoked), handWritten.revoked.slice(0, 17)],
        ['ci', true, hashApiKey(created.key), created.metadata.prefix],
        ['ci', false, hashApiKey(rotated.key), rotated.metadata.prefix],
      ],
    );
    // The host loads the file: the active keys authenticate, the revoked ones do not.
    assert.equal(await usageStatus(seed, TEST_KEY), 200);
    assert.equal(await usageStatus(seed, rotated.key), 200);
    assert.equal(await usageStatus(seed, created.key), 401);
    assert.equal(await usageStatus(seed, handWritten.revoked), 401);
  });

  test('the id that keys list prints for a file key given without an id (the README example) names that key in the next command', async (t) => {
    const seed = writeSeedFile();
    const base = ['--seed-file', seed, '--json'];
    const listed = await admin(t, ...base, 'keys', 'list', TEST_ORG);
    assert.equal(listed.code, 0, listed.err);
    const [key] = JSON.parse(listed.out) as { id: string }[];
    const revoked = await admin(t, ...base, 'keys', 'revoke', TEST_ORG, key!.id);
    assert.equal(revoked.code, 0, `revoke with the id keys list printed: ${revoked.err}`);
    assert.equal(await usageStatus(seed, TEST_KEY), 401);
  });

  test('clear errors and exit codes: refused 1, cannot run 2, wrong command line 64', async (t) => {
    const seed = join(mkdtempSync(join(tmpdir(), 'tron-safety-admin-')), 'seed.json');
    const missing = await admin(t, '--seed-file', seed, 'orgs', 'list');
    assert.equal(missing.code, 2);
    assert.match(missing.err, /does not exist/);
    await admin(
      t,
      '--seed-file',
      seed,
      'orgs',
      'create',
      '--name',
      'x',
      '--rate-limit',
      '1',
      '--concurrency',
      '1',
      '--quota',
      '1',
    );
    const unknownKey = await admin(
      t,
      '--seed-file',
      seed,
      'keys',
      'revoke',
      '00000000-0000-4000-8000-000000000000',
      'nope',
    );
    assert.equal(unknownKey.code, 1);
    assert.match(unknownKey.err, /not_found/);
    const asJson = await admin(
      t,
      '--seed-file',
      seed,
      '--json',
      'keys',
      'revoke',
      '00000000-0000-4000-8000-000000000000',
      'nope',
    );
    assert.equal(asJson.code, 1);
    assert.deepEqual(JSON.parse(asJson.err), {
      error: { exit_code: 1, message: unknownKey.err.replace(/^error: /, '') },
    });
    assert.equal((await admin(t, '--seed-file', seed, 'orgs', 'create', '--name', 'y')).code, 64);
    assert.equal((await admin(t, '--seed-file', seed, 'frobnicate')).code, 64);
    process.env.DATABASE_URL = 'postgres://u@127.0.0.1:1/db';
    let pg;
    try {
      pg = await admin(t, '--seed-file', seed, 'orgs', 'list');
    } finally {
      delete process.env.DATABASE_URL;
    }
    assert.equal(pg.code, 2);
    assert.match(pg.err, /cannot prepare PostgreSQL/);
  });

  test('sanctions status and load: a SANCTIONS_LIST_MAX_AGE_DAYS that is not a whole number from 1 to 30 is exit 64 on stderr, before anything runs', async (t) => {
    const file = join(mkdtempSync(join(tmpdir(), 'tron-safety-admin-')), 'list.txt');
    for (const value of ['abc', '0', '1.5', '-3', '2 days', '31', '9999999999']) {
      process.env.SANCTIONS_LIST_MAX_AGE_DAYS = value;
      try {
        for (const args of [
          ['sanctions', 'status'],
          ['sanctions', 'load', file],
          ['--json', 'sanctions', 'status'],
        ]) {
          const run = await admin(t, ...args);
          assert.equal(run.code, 64, `${value}: ${args.join(' ')}`);
          assert.equal(run.out, '', 'no verdict printed');
          const message =
            args[0] === '--json' ? (JSON.parse(run.err) as { error: { message: string } }).error.message : run.err;
          assert.match(
            message,
            new RegExp(`SANCTIONS_LIST_MAX_AGE_DAYS must be a whole number of days from 1 to 30, got '${value}'`),
          );
          assert.doesNotMatch(run.err, /\n\s+at /, 'no stack trace');
        }
      } finally {
        delete process.env.SANCTIONS_LIST_MAX_AGE_DAYS;
      }
    }
    // A valid value goes on to the store (memory mode: exit 2, the list lives in the host's process).
    for (const value of ['3', '30']) {
      process.env.SANCTIONS_LIST_MAX_AGE_DAYS = value;
      try {
        assert.equal((await admin(t, 'sanctions', 'status')).code, 2, value);
      } finally {
        delete process.env.SANCTIONS_LIST_MAX_AGE_DAYS;
      }
    }
  });

  test("with --json every error is JSON on stderr, the command line's own included", async (t) => {
    const seed = join(mkdtempSync(join(tmpdir(), 'tron-safety-admin-')), 'seed.json');
    const cases: [string[], number, RegExp][] = [
      [['--json', 'frobnicate'], 64, /unknown command 'frobnicate'/],
      [['--json', 'plans', 'create', '--code', 'x'], 64, /required option '--name <name>' not specified/],
      [
        [
          '--json',
          'plans',
          'create',
          '--code',
          'x',
          '--name',
          'X',
          '--rate-limit',
          'fast',
          '--concurrency',
          '1',
          '--quota',
          '1',
        ],
        64,
        /--rate-limit must be a nonnegative integer/,
      ],
      [['orgs', 'create', '--name', 'y', '--json'], 64, /give either --plan or custom entitlements/],
      [['orgs', 'list', '--json'], 2, /does not exist/],
    ];
    for (const [args, code, message] of cases) {
      const run = await admin(t, '--seed-file', seed, ...args);
      assert.equal(run.code, code, args.join(' '));
      const parsed = JSON.parse(run.err) as { error: { exit_code: number; message: string } };
      assert.equal(parsed.error.exit_code, code);
      assert.match(parsed.error.message, message);
    }
  });

  test(
    'busy is exit 2 (cannot run now): a seed password the CLI cannot hash while every derivation place is taken names its entry, writes nothing, and the same commands run once free',
    { timeout: 60_000 },
    async (t) => {
      const seed = portalSeedFile();
      const before = readFileSync(seed, 'utf8');
      const flood = await fillDerivations(t);
      const busy =
        'seed file: organizations[0].members[0]: too many password derivations at once: try again in a moment';
      const read = await admin(t, '--seed-file', seed, 'orgs', 'list');
      assert.deepEqual({ code: read.code, err: read.err, out: read.out }, { code: 2, err: `error: ${busy}`, out: '' });
      const change = await admin(t, '--seed-file', seed, '--json', 'members', 'list', TEST_ORG);
      assert.equal(change.code, 2);
      assert.deepEqual(JSON.parse(change.err), { error: { exit_code: 2, message: busy } });
      assert.equal(readFileSync(seed, 'utf8'), before);
      await flood.release();
      assert.equal((await admin(t, '--seed-file', seed, 'orgs', 'list')).code, 0);
      assert.equal((await admin(t, '--seed-file', seed, 'members', 'list', TEST_ORG)).code, 0, 'its lock was released');
    },
  );

  test('limits of 0 are accepted as the core accepts them (memory mode as on PostgreSQL): the file loads again', async (t) => {
    const seed = join(mkdtempSync(join(tmpdir(), 'tron-safety-admin-')), 'seed.json');
    const created = await admin(
      t,
      '--seed-file',
      seed,
      '--json',
      'plans',
      'create',
      '--code',
      'closed',
      '--name',
      'Closed',
      '--rate-limit',
      '0',
      '--concurrency',
      '0',
      '--quota',
      '0',
    );
    assert.equal(created.code, 0, created.err);
    const plans = JSON.parse((await admin(t, '--seed-file', seed, '--json', 'plans', 'list')).out) as Record<
      string,
      unknown
    >[];
    assert.deepEqual(
      plans.map((p) => [p.rateLimitPerMinute, p.maxConcurrentRequests, p.monthlyQuota]),
      [[0, 0, 0]],
    );
  });
});

describe('admin CLI: portal members', () => {
  test('members add prints a one-time invitation link that a host started from the seed file accepts; list, set-role, remove; the last owner stays', async (t) => {
    const seed = portalSeedFile();
    const base = ['--seed-file', seed, '--json'];
    const org = (await loadSeedFile(seed))._unsafeUnwrap().organizations[0]!.id;
    const added = await admin(
      t,
      ...base,
      'members',
      'add',
      org,
      '--email',
      'Dev@Example.com',
      '--role',
      'developer',
      '--url',
      'https://portal.test:8080/',
    );
    assert.equal(added.code, 0, added.err);
    const invitation = JSON.parse(added.out) as { member: { id: string; status: string }; invitation_url: string };
    assert.equal(invitation.member.status, 'invited');
    const token = /^https:\/\/portal\.test:8080\/portal\/invitation\?token=([A-Za-z0-9_-]{43})$/.exec(
      invitation.invitation_url,
    )![1]!;
    assert.ok(!readFileSync(seed, 'utf8').includes(token), 'the seed file keeps only the token hash');
    assert.equal(
      (await admin(t, '--seed-file', seed, 'members', 'add', org, '--email', 'dev@example.com', '--role', 'viewer'))
        .code,
      1,
      'one member per email',
    );
    assert.equal(
      (await admin(t, '--seed-file', seed, 'members', 'add', org, '--email', 'x@example.com', '--role', 'root')).code,
      64,
    );

    // What a host started from the file does with the link: accepts it once.
    const service = createSafetyService(createMemoryStores(), {
      chain: null,
      risk: createRiskProviders()._unsafeUnwrap(),
    });
    (await applySeed(service.admin, (await loadSeedFile(seed))._unsafeUnwrap()))._unsafeUnwrap();
    assert.ok((await service.admin.members.acceptInvitation(token, PORTAL_PASSWORD)).isOk());
    assert.equal(
      (await service.admin.members.checkPassword('dev@example.com', PORTAL_PASSWORD))._unsafeUnwrap()?.role,
      'developer',
    );
    assert.equal((await service.admin.members.acceptInvitation(token, PORTAL_PASSWORD)).isErr(), true);

    const listed = JSON.parse((await admin(t, ...base, 'members', 'list', org)).out) as {
      email: string;
      role: string;
    }[];
    assert.deepEqual(
      listed.map((m) => [m.email, m.role]),
      [
        ['owner@example.com', 'owner'],
        ['dev@example.com', 'developer'],
      ],
    );
    const demoted = await admin(
      t,
      '--seed-file',
      seed,
      'members',
      'set-role',
      org,
      'owner@example.com',
      '--role',
      'admin',
    );
    assert.equal(demoted.code, 1);
    assert.match(demoted.err, /last owner/);
    assert.equal((await admin(t, ...base, 'members', 'set-role', org, 'dev@example.com', '--role', 'owner')).code, 0);
    // In the seed file dev@ holds only an invitation (its password lives in the running host): it may never accept.
    const stays = await admin(t, ...base, 'members', 'remove', org, 'owner@example.com');
    assert.equal(stays.code, 1);
    assert.match(stays.err, /last owner/);
    assert.equal((await admin(t, ...base, 'members', 'remove', org, 'dev@example.com')).code, 0);
    assert.equal((await admin(t, ...base, 'members', 'remove', org, 'nobody@example.com')).code, 1);
    const written = (await loadSeedFile(seed))._unsafeUnwrap().organizations[0]!.members!;
    assert.deepEqual(
      written.map((m) => [m.email, m.role]),
      [['owner@example.com', 'owner']],
    );
  });

  test('members add builds its link on PORTAL_PUBLIC_URL without --url; a --url that is not an http(s) origin, plain http to another host, or a wrong PORTAL_PUBLIC_URL, is exit 64 and invites nobody', async (t) => {
    const seed = portalSeedFile();
    const org = (await loadSeedFile(seed))._unsafeUnwrap().organizations[0]!.id;
    const add = (email: string, ...more: string[]) =>
      admin(t, '--seed-file', seed, '--json', 'members', 'add', org, '--email', email, '--role', 'viewer', ...more);
    const link = async (email: string, ...more: string[]) => {
      const added = await add(email, ...more);
      assert.equal(added.code, 0, added.err);
      return (JSON.parse(added.out) as { invitation_url: string }).invitation_url;
    };
    const withPublicUrl = async <T>(value: string, run: () => Promise<T>) => {
      process.env.PORTAL_PUBLIC_URL = value;
      try {
        return await run();
      } finally {
        delete process.env.PORTAL_PUBLIC_URL;
      }
    };
    assert.match(await link('default@example.com'), /^http:\/\/127\.0\.0\.1:8080\/portal\/invitation\?token=/);
    await withPublicUrl('https://safety.example.com', async () => {
      assert.match(await link('ops@example.com'), /^https:\/\/safety\.example\.com\/portal\/invitation\?token=/);
      assert.match(
        await link('given@example.com', '--url', 'https://other.example.com/'),
        /^https:\/\/other\.example\.com\/portal\/invitation\?token=/,
        '--url wins',
      );
    });
    for (const url of [
      'safety.example.com',
      'ftp://safety.example.com',
      'https://safety.example.com/portal',
      'https://a@b.example.com',
    ]) {
      const refused = await add('refused@example.com', '--url', url);
      assert.equal(refused.code, 64, url);
      assert.match(refused.err, /--url must be an (http\(s\) )?origin/);
    }
    // The link's token and the password set through it would cross the network in clear.
    const plain = await add('refused@example.com', '--url', 'http://safety.example.com');
    assert.equal(plain.code, 64);
    assert.match(plain.err, /--url must be an https URL \(plain http only for localhost/);
    assert.match(
      await link('local@example.com', '--url', 'http://localhost:8080'),
      /^http:\/\/localhost:8080\/portal\//,
    );
    const wrong = await withPublicUrl('http://safety.example.com', () => add('refused@example.com'));
    assert.equal(wrong.code, 64);
    assert.match(wrong.err, /PORTAL_PUBLIC_URL/);
    const members = (await loadSeedFile(seed))._unsafeUnwrap().organizations[0]!.members!;
    assert.ok(!members.some((m) => m.email === 'refused@example.com'), 'nobody invited');
  });
});

/** A new seed file (memory mode) with plan `p` version 1 and one organization on it. */
async function seedWithOrganization(t: { mock: any }): Promise<{ seed: string; orgId: string }> {
  const seed = join(mkdtempSync(join(tmpdir(), 'tron-safety-admin-')), 'seed.json');
  const limits = ['--rate-limit', '60', '--concurrency', '2', '--quota', '100'];
  assert.equal(
    (await admin(t, '--seed-file', seed, 'plans', 'create', '--code', 'p', '--name', 'P', ...limits)).code,
    0,
  );
  const org = await admin(t, '--seed-file', seed, '--json', 'orgs', 'create', '--name', 'Acme', '--plan', 'p');
  assert.equal(org.code, 0, org.err);
  return { seed, orgId: (JSON.parse(org.out) as { organization: { id: string } }).organization.id };
}

const seedPlans = (seed: string) =>
  (JSON.parse(readFileSync(seed, 'utf8')) as { plans: { code: string; version: number; name: string }[] }).plans.map(
    (p) => `${p.code}@${p.version} ${p.name}`,
  );

describe('admin CLI: plan versions', () => {
  test("plans create --version N creates version N (the program's -V, --version stands before the command); 0 is refused, never read as the latest", async (t) => {
    const { seed, orgId } = await seedWithOrganization(t);
    const limits = ['--rate-limit', '60', '--concurrency', '2', '--quota', '100'];
    const create = (version: string, name: string) =>
      admin(t, 'plans', 'create', '--code', 'p', '--name', name, ...limits, '--version', version, '--seed-file', seed);
    const v3 = await create('3', 'P3');
    assert.equal(v3.code, 0, v3.err);
    assert.match(v3.out, /^created p@3 {2}P3 /);
    const zero = await create('0', 'P0');
    assert.equal(zero.code, 1);
    assert.match(zero.err, /invalid: invalid plan: version/);
    assert.deepEqual(seedPlans(seed), ['p@1 P', 'p@3 P3']);

    const onZero = await admin(t, '--seed-file', seed, 'orgs', 'create', '--name', 'B', '--plan', 'p@0');
    assert.equal(onZero.code, 1, 'not created on the latest version (p@3)');
    assert.match(onZero.err, /not_found: no plan p version 0/);
    const moved = await admin(t, '--seed-file', seed, 'orgs', 'set-plan', orgId, '--plan', 'p@0');
    assert.equal(moved.code, 1);
    const orgs = JSON.parse((await admin(t, '--seed-file', seed, '--json', 'orgs', 'list')).out) as {
      assignment: { version: number };
    }[];
    assert.deepEqual(
      orgs.map((o) => o.assignment.version),
      [1],
    );
    // --seed-file and --json after the command's name still apply to it.
    const listed = await admin(t, 'plans', 'list', '--seed-file', seed, '--json');
    assert.equal((JSON.parse(listed.out) as unknown[]).length, 2);
  });
});

describe('admin CLI: a wrong id or a blank name is refused (exit 1), nothing written', () => {
  test('keys list of an organization that does not exist is not_found, as keys create is', async (t) => {
    const { seed, orgId } = await seedWithOrganization(t);
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const command of ['list', 'create']) {
      const run = await admin(
        t,
        '--seed-file',
        seed,
        'keys',
        command,
        unknown,
        ...(command === 'create' ? ['--label', 'x'] : []),
      );
      assert.equal(run.code, 1, command);
      assert.match(run.err, /not_found: no such organization/);
    }
    assert.equal((await admin(t, '--seed-file', seed, 'keys', 'list', orgId)).code, 0);
  });

  test('keys create past 100 active keys and members add past 100 pending invitations exit 1 with the limit, the seed file unchanged', async (t) => {
    const { seed, orgId } = await seedWithOrganization(t);
    const file = JSON.parse(readFileSync(seed, 'utf8'));
    const hex = () => randomBytes(32).toString('hex');
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const org = file.organizations[0];
    org.api_keys = Array.from({ length: 100 }, (_, i) => ({
      label: `k${i}`,
      key_sha256: hex(),
      prefix: `tsk_live_${i}`,
      revoked: false,
    }));
    org.members = Array.from({ length: 100 }, (_, i) => ({
      email: `m${i}@example.com`,
      role: 'viewer',
      invitation: { token_sha256: hex(), expires_at: expiresAt },
    }));
    writeFileSync(seed, JSON.stringify(file));
    const before = readFileSync(seed, 'utf8');
    const key = await admin(t, '--seed-file', seed, 'keys', 'create', orgId, '--label', 'one more');
    assert.equal(key.code, 1, key.err);
    assert.match(key.err, /conflict: the organization has 100 active API keys, the most it may have: revoke one/);
    const member = await admin(
      t,
      '--seed-file',
      seed,
      'members',
      'add',
      orgId,
      '--email',
      'x@example.com',
      '--role',
      'viewer',
    );
    assert.equal(member.code, 1, member.err);
    assert.match(member.err, /conflict: the organization has 100 pending invitations, the most it may have/);
    assert.equal(readFileSync(seed, 'utf8'), before);
  });

  test('plans create with a blank name is invalid (the core refuses it, on either store), the seed file unchanged', async (t) => {
    const { seed } = await seedWithOrganization(t);
    const before = readFileSync(seed, 'utf8');
    const limits = ['--rate-limit', '60', '--concurrency', '2', '--quota', '100'];
    for (const name of [' ', '\t \n']) {
      const run = await admin(t, '--seed-file', seed, 'plans', 'create', '--code', 'blank', '--name', name, ...limits);
      assert.equal(run.code, 1, JSON.stringify(name));
      assert.match(run.err, /invalid: invalid plan: name/);
    }
    assert.equal(readFileSync(seed, 'utf8'), before);
  });
});

describe('admin CLI: commands run at once (memory mode: the seed file lock)', () => {
  test('keys create in four processes at once: every printed key is in the seed file and authenticates', async () => {
    // Its member's password is hashed at each load (scrypt): every command reads, then writes, a few hundred ms apart.
    const seed = portalSeedFile();
    const orgId = (await loadSeedFile(seed))._unsafeUnwrap().organizations[0]!.id;
    const runs = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        adminProcess('--seed-file', seed, '--json', 'keys', 'create', orgId, '--label', `k${i}`),
      ),
    );
    const printed = runs.map((run) => {
      assert.equal(run.code, 0, run.err);
      return (JSON.parse(run.out) as { key: string }).key;
    });
    const kept = (await loadSeedFile(seed))._unsafeUnwrap().organizations[0]!.api_keys.map((k) => k.key_sha256);
    assert.deepEqual([...kept].sort(), printed.map(hashApiKey).sort());
    for (const key of printed) assert.equal(await usageStatus(seed, key), 200);
    assert.ok(!existsSync(`${seed}.lock`), 'the lock is released');
  });

  test("a lock left by a command that died is taken over; a live command's lock makes the next wait, then give up", async () => {
    const seed = join(mkdtempSync(join(tmpdir(), 'tron-safety-admin-')), 'seed.json');
    const lock = `${seed}.lock`;
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(lock, JSON.stringify({ pid: dead, host: hostname(), token: 'dead' }));
    const release = await lockSeedFile(seed, { waitMs: 0 });
    assert.notEqual(JSON.parse(readFileSync(lock, 'utf8')).token, 'dead');

    const started = Date.now();
    await assert.rejects(lockSeedFile(seed, { waitMs: 300 }), (e) => {
      assert.ok(e instanceof SeedFileBusy);
      assert.match(e.message, new RegExp(`locked by process ${process.pid} on `));
      return true;
    });
    assert.ok(Date.now() - started >= 300, 'it waited');
    const waiting = lockSeedFile(seed, { waitMs: 5_000 });
    setTimeout(release, 100);
    (await waiting)();
    assert.ok(!existsSync(lock));

    // Another machine's lock: taken over once older than the bound, never before.
    writeFileSync(lock, JSON.stringify({ pid: 1, host: 'elsewhere', token: 'remote' }));
    await assert.rejects(lockSeedFile(seed, { waitMs: 100, staleMs: 60_000 }), SeedFileBusy);
    const old = new Date(Date.now() - 120_000);
    utimesSync(lock, old, old);
    (await lockSeedFile(seed, { waitMs: 0, staleMs: 60_000 }))();
    assert.ok(!existsSync(lock));
  });
});
