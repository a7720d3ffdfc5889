import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { createRiskProviders, createSafetyService, type ApiKeyRecord, type MemberRecord } from '@tron-safety/core';
import { createMemoryStores } from '@tron-safety/store-memory';
import { applySeed, type SeedFile, type SeedMember } from '../src/seed-file.js';
import { withSeedWriteBack } from '../src/seed-write-back.js';
import { ORG, PORTAL_PASSWORD, portalSeedFile } from './portal-support.js';

// Memory mode with a seed file, below the host: the write-back over memory stores, driven with explicit instants.

const T = new Date('2026-06-01T12:00:00Z');
const HOUR = 3_600_000;
const later = (ms: number) => new Date(T.getTime() + ms);
const invited = (email: string, token: string, expiresAt: Date): SeedMember => ({
  email,
  role: 'viewer',
  invitation: { token_sha256: token.repeat(64), expires_at: expiresAt.toISOString() },
});

/** The seed file loaded into memory stores, its write-back armed, as a host does at start. */
async function loaded(seedFile: string) {
  const memory = createMemoryStores();
  const writeBack = withSeedWriteBack(memory, { kind: 'memory', seedFile });
  const risk = createRiskProviders()._unsafeUnwrap();
  const admin = createSafetyService(writeBack.stores, { chain: null, risk }, { now: () => T }).admin;
  (await applySeed(admin, JSON.parse(readFileSync(seedFile, 'utf8')) as SeedFile))._unsafeUnwrap();
  writeBack.arm();
  const file = () => JSON.parse(readFileSync(seedFile, 'utf8')) as SeedFile;
  return { memory, stores: writeBack.stores, writeBack, file };
}

test('Members: the sweep deletes invitations that expired unaccepted from the seed file and memory alike; pending ones, members with a password and one who accepted meanwhile stay', async () => {
  const seedFile = portalSeedFile([
    { email: 'owner@example.com', role: 'owner', password: PORTAL_PASSWORD },
    invited('expired@example.com', 'a', later(-HOUR)),
    invited('pending@example.com', 'b', later(2 * HOUR)),
    invited('accepting@example.com', 'c', later(HOUR)),
  ]);
  const { memory, stores, writeBack, file } = await loaded(seedFile);
  // Accepted now: the file marks the link used (expired at T), memory has the password.
  assert.ok(await stores.members.acceptInvitation({ tokenHash: 'c'.repeat(64), passwordHash: 'scrypt$x', now: T }));
  const emails = async () => ({
    file: file()
      .organizations[0]!.members!.map((m) => m.email)
      .sort(),
    memory: (await memory.members.listMembers(ORG)).map((m) => m.email).sort(),
  });

  assert.equal(await writeBack.sweep(later(1000)), 1);
  const kept = ['accepting@example.com', 'owner@example.com', 'pending@example.com'];
  assert.deepEqual(await emails(), { file: kept, memory: kept });
  assert.equal(await memory.members.removedAt(ORG, 'expired@example.com'), null, 'not recorded as a removal');

  assert.equal(await writeBack.sweep(later(2 * HOUR)), 1, 'the pending one once it expires');
  const left = ['accepting@example.com', 'owner@example.com'];
  assert.deepEqual(await emails(), { file: left, memory: left });
  assert.equal(await writeBack.sweep(later(3 * HOUR)), 0);
});

test('Members: an expired invitation the admin CLI wrote while the host runs (not in memory) is swept from the file too', async () => {
  const seedFile = portalSeedFile();
  const { writeBack, file } = await loaded(seedFile);
  const seed = file();
  seed.organizations[0]!.members!.push(invited('cli@example.com', 'd', later(HOUR)));
  writeFileSync(seedFile, JSON.stringify(seed));
  assert.equal(await writeBack.sweep(later(HOUR - 1)), 0);
  assert.equal(await writeBack.sweep(later(HOUR)), 1, 'expired at its end');
  assert.deepEqual(
    file().organizations[0]!.members!.map((m) => m.email),
    ['owner@example.com'],
  );
});

test('Limits: at a cap the write-back answers it and writes nothing to the seed file: keys, rotations and invitations', async () => {
  const seedFile = portalSeedFile([
    { email: 'owner@example.com', role: 'owner', password: PORTAL_PASSWORD },
    invited('pending@example.com', 'e', later(HOUR)),
  ]);
  const seed = JSON.parse(readFileSync(seedFile, 'utf8')) as SeedFile;
  seed.organizations[0]!.api_keys.push({
    label: 'in use',
    key: 'tsk_live_seeded_0000000000000000000000000000',
    revoked: false,
  });
  writeFileSync(seedFile, JSON.stringify(seed));
  const { memory, stores, file } = await loaded(seedFile);
  const before = readFileSync(seedFile, 'utf8');
  const [key] = await memory.apiKeys.listKeys(ORG);
  const record = (): ApiKeyRecord => ({ ...key!, id: randomUUID(), hash: randomUUID().replaceAll('-', '').repeat(2) });
  assert.equal(await stores.apiKeys.insertKey(record(), { kept: 10, active: 1 }), 'active_keys');
  const rotated = await stores.apiKeys.rotateKey({
    organizationId: ORG,
    keyId: key!.id,
    replacement: record(),
    now: T,
    caps: { kept: 1 },
  });
  assert.equal(rotated._unsafeUnwrapErr(), 'kept_keys');
  const member: MemberRecord = {
    id: randomUUID(),
    organizationId: ORG,
    email: 'new@example.com',
    role: 'viewer',
    passwordHash: null,
    invitation: { tokenHash: 'f'.repeat(64), expiresAt: later(HOUR) },
    createdAt: T,
    updatedAt: T,
  };
  const caps = { pending: 1, removals: 10, now: T };
  assert.equal(await stores.members.insertMember(member, { caps }), 'pending_invitations');
  assert.equal(readFileSync(seedFile, 'utf8'), before, 'the file is unchanged');
  assert.equal((await memory.apiKeys.listKeys(ORG)).length, 1);
  assert.equal(await memory.members.findMemberByEmail('new@example.com'), null);
  assert.equal(await stores.members.insertMember(member, { caps: { ...caps, pending: 2 } }), true, 'below it');
  assert.ok(file().organizations[0]!.members!.some((m) => m.email === 'new@example.com'));
});
