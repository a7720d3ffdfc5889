import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createRiskProviders, createSafetyService } from '@tron-safety/core';
import { createMemoryStores } from '@tron-safety/store-memory';
import { runAdmin } from '../src/admin-cli.js';
import { applySeed, loadSeedFile } from '../src/seed-file.js';
import { PORTAL_PASSWORD, portalSeedFile } from './portal-support.js';

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

  test('sanctions status and load: a SANCTIONS_LIST_MAX_AGE_DAYS that is not a positive whole number is exit 64 on stderr, before anything runs', async (t) => {
    const file = join(mkdtempSync(join(tmpdir(), 'tron-safety-admin-')), 'list.txt');
    for (const value of ['abc', '0', '1.5', '-3', '2 days']) {
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
            new RegExp(`SANCTIONS_LIST_MAX_AGE_DAYS must be a positive whole number of days, got '${value}'`),
          );
          assert.doesNotMatch(run.err, /\n\s+at /, 'no stack trace');
        }
      } finally {
        delete process.env.SANCTIONS_LIST_MAX_AGE_DAYS;
      }
    }
    // A valid value goes on to the store (memory mode: exit 2, the list lives in the host's process).
    process.env.SANCTIONS_LIST_MAX_AGE_DAYS = '3';
    try {
      assert.equal((await admin(t, 'sanctions', 'status')).code, 2);
    } finally {
      delete process.env.SANCTIONS_LIST_MAX_AGE_DAYS;
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
      'http://portal.test:8080/',
    );
    assert.equal(added.code, 0, added.err);
    const invitation = JSON.parse(added.out) as { member: { id: string; status: string }; invitation_url: string };
    assert.equal(invitation.member.status, 'invited');
    const token = /^http:\/\/portal\.test:8080\/portal\/invitation\?token=([A-Za-z0-9_-]{43})$/.exec(
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
    assert.equal((await service.admin.members.checkPassword('dev@example.com', PORTAL_PASSWORD))?.role, 'developer');
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
});
