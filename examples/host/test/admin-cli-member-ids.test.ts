import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadSeedFile } from '../src/seed-file.js';
import { adminProcess } from './admin-process.js';
import { PORTAL_PASSWORD, portalSeedFile } from './portal-support.js';

// README "Admin CLI": `members set-role <orgId> ana@example.com --role admin  # a member id or its email`.
// In memory mode every command loads the seed file into new stores: the file keeps each member's `id`
// (as it keeps a key's), so the id one command prints names the member in the next.
test('in memory mode, the member id that members add prints names that member in the next command', async () => {
  const seed = portalSeedFile();
  const org = (await loadSeedFile(seed))._unsafeUnwrap().organizations[0]!.id;
  const base = ['--seed-file', seed, '--json'];
  const added = await adminProcess(...base, 'members', 'add', org, '--email', 'dev@example.com', '--role', 'developer');
  assert.equal(added.code, 0, added.err);
  const { member } = JSON.parse(added.out) as { member: { id: string } };
  const listed = JSON.parse((await adminProcess(...base, 'members', 'list', org)).out) as { id: string }[];
  assert.ok(
    listed.some((m) => m.id === member.id),
    `members list shows ${member.id}: ${listed.map((m) => m.id).join(', ')}`,
  );
  const changed = await adminProcess(...base, 'members', 'set-role', org, member.id, '--role', 'viewer');
  assert.equal(changed.code, 0, changed.err);
});

// A hand-written file (the README's example, the demo's) gives no ids: each command derives the same one.
test('in memory mode, the id that members list prints for a file member given without an id names that member in the next command', async () => {
  const seed = portalSeedFile([
    { email: 'owner@example.com', role: 'owner', password: PORTAL_PASSWORD },
    { email: 'Dev@Example.com', role: 'developer', password: PORTAL_PASSWORD },
  ]);
  const org = (await loadSeedFile(seed))._unsafeUnwrap().organizations[0]!.id;
  const base = ['--seed-file', seed, '--json'];
  const listed = await adminProcess(...base, 'members', 'list', org);
  assert.equal(listed.code, 0, listed.err);
  const dev = (JSON.parse(listed.out) as { id: string; email: string }[]).find((m) => m.email === 'dev@example.com')!;
  const changed = await adminProcess(...base, 'members', 'set-role', org, dev.id, '--role', 'viewer');
  assert.equal(changed.code, 0, `set-role with the id members list printed: ${changed.err}`);
  const written = (await loadSeedFile(seed))._unsafeUnwrap().organizations[0]!.members!;
  assert.deepEqual(
    written.map((m) => [m.id, m.role]),
    [
      [(JSON.parse(listed.out) as { id: string }[])[0]!.id, 'owner'],
      [dev.id, 'viewer'],
    ],
    'the file now keeps the ids the list printed',
  );
});
