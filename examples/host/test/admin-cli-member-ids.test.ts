import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadSeedFile } from '../src/seed-file.js';
import { adminProcess } from './admin-process.js';
import { portalSeedFile } from './portal-support.js';

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
