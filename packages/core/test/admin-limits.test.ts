// What one organization's members can grow: active API keys and pending invitations are capped, and so
// are the rows kept for good (revoked keys, removal records), so a script run by a developer or an admin
// cannot grow the tables without limit.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createAdminApi, MAX_ACTIVE_API_KEYS, MAX_KEPT_API_KEYS } from '../src/runtime/admin.js';
import { INVITATION_TTL_MS, MAX_MEMBER_REMOVALS, MAX_PENDING_INVITATIONS } from '../src/runtime/members.js';

const operator = { kind: 'operator' } as const;

async function organization() {
  let now = new Date('2026-06-01T12:00:00Z');
  const stores = createMemoryStores();
  const admin = createAdminApi(stores, () => now);
  const entitlements = { rateLimitPerMinute: 1, maxConcurrentRequests: 1, monthlyQuota: 1, enabledNetworks: ['tron'] };
  const org = (await admin.createOrganization(operator, { name: 'Acme', assignment: { entitlements } }))._unsafeUnwrap()
    .organization;
  const as = (role: 'admin' | 'developer') => ({ kind: 'member', organizationId: org.id, role }) as const;
  return { stores, admin, org, as, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

describe('Limits: per organization', () => {
  test('an organization has at most 100 active API keys: the next is a conflict; revoking one frees a place, rotating keeps the count', async () => {
    const { admin, org, as } = await organization();
    const ids: string[] = [];
    for (let i = 0; i < MAX_ACTIVE_API_KEYS; i++)
      ids.push((await admin.createApiKey(as('developer'), org.id, `key ${i}`))._unsafeUnwrap().metadata.id);
    for (const actor of [as('developer'), operator]) {
      const refused = (await admin.createApiKey(actor, org.id, 'one more'))._unsafeUnwrapErr();
      assert.equal(refused.code, 'conflict');
      assert.match(refused.message, /100 active API keys, the most it may have: revoke one/);
    }
    assert.ok((await admin.rotateApiKey(as('developer'), org.id, ids[0]!)).isOk(), 'a rotation replaces a key');
    (await admin.revokeApiKey(as('developer'), org.id, ids[1]!))._unsafeUnwrap();
    assert.ok((await admin.createApiKey(as('developer'), org.id, 'in its place')).isOk());
    assert.equal((await admin.createApiKey(as('developer'), org.id, 'again')).isErr(), true);
  });

  test('an organization has at most 100 pending invitations: the next is a conflict; an accepted or expired one frees a place', async () => {
    const { admin, org, as, advance } = await organization();
    const invite = (i: number | string) =>
      admin.members.inviteMember(as('admin'), org.id, { email: `m${i}@example.com`, role: 'viewer' });
    const tokens: string[] = [];
    for (let i = 0; i < MAX_PENDING_INVITATIONS; i++) tokens.push((await invite(i))._unsafeUnwrap().token);
    const refused = (await invite('over'))._unsafeUnwrapErr();
    assert.equal(refused.code, 'conflict');
    assert.match(refused.message, /100 pending invitations, the most it may have/);
    (await admin.members.acceptInvitation(tokens[0]!, 'correct horse battery'))._unsafeUnwrap();
    assert.ok((await invite('accepted-place')).isOk());
    assert.ok((await invite('full')).isErr());
    advance(INVITATION_TTL_MS);
    assert.ok((await invite('after-expiry')).isOk(), 'expired invitations are not pending');
  });

  test('requests sent at once cannot pass the caps: of 110 keys and 110 invitations at once, 100 of each are made, the rest answer the cap', async () => {
    const { admin, org, as } = await organization();
    const keys = await Promise.all(
      Array.from({ length: MAX_ACTIVE_API_KEYS + 10 }, (_, i) => admin.createApiKey(as('developer'), org.id, `k${i}`)),
    );
    const invitations = await Promise.all(
      Array.from({ length: MAX_PENDING_INVITATIONS + 10 }, (_, i) =>
        admin.members.inviteMember(as('admin'), org.id, { email: `at-once${i}@example.com`, role: 'viewer' }),
      ),
    );
    for (const [outcomes, cap] of [
      [keys, /100 active API keys, the most it may have: revoke one/],
      [invitations, /100 pending invitations, the most it may have/],
    ] as const) {
      assert.equal(outcomes.filter((o) => o.isOk()).length, 100);
      for (const refused of outcomes.filter((o) => o.isErr())) {
        assert.equal(refused.error.code, 'conflict');
        assert.match(refused.error.message, cap);
      }
    }
    assert.equal((await admin.listApiKeys(operator, org.id))._unsafeUnwrap().length, MAX_ACTIVE_API_KEYS);
    assert.equal((await admin.members.listMembers(operator, org.id))._unsafeUnwrap().length, MAX_PENDING_INVITATIONS);
  });

  test('an organization keeps at most 10,000 API keys, revoked ones included: past them creating and rotating are a conflict', async () => {
    const { stores, admin, org, as } = await organization();
    const active = (await admin.createApiKey(as('developer'), org.id, 'in use'))._unsafeUnwrap().metadata;
    // Rotated and revoked keys are kept for good (a seed file must not bring them back): years of rotations.
    const template = (await stores.apiKeys.listKeys(org.id))[0]!;
    for (let i = 1; i < MAX_KEPT_API_KEYS - 1; i++) {
      const revoked = { ...template, id: randomUUID(), hash: i.toString(16).padStart(64, '0'), revokedAt: new Date() };
      assert.equal(await stores.apiKeys.insertKey(revoked), true);
    }
    const rotated = (await admin.rotateApiKey(as('developer'), org.id, active.id))._unsafeUnwrap();
    assert.equal((await stores.apiKeys.listKeys(org.id)).length, MAX_KEPT_API_KEYS);
    for (const actor of [as('developer'), operator]) {
      for (const refused of [
        await admin.createApiKey(actor, org.id, 'one more'),
        await admin.rotateApiKey(actor, org.id, rotated.metadata.id),
      ]) {
        assert.equal(refused._unsafeUnwrapErr().code, 'conflict');
        assert.match(refused._unsafeUnwrapErr().message, /10000 API keys, revoked ones included \(they are kept\)/);
      }
    }
    assert.equal((await stores.apiKeys.listKeys(org.id)).length, MAX_KEPT_API_KEYS, 'no key row added');
    assert.ok((await admin.listApiKeys(operator, org.id))._unsafeUnwrap().some((k) => k.id === rotated.metadata.id));
    assert.ok((await admin.revokeApiKey(as('developer'), org.id, rotated.metadata.id)).isOk(), 'revoking still works');
  });

  test('an organization keeps at most 10,000 removal records: past them inviting is a conflict', async () => {
    const { stores, admin, org, as } = await organization();
    // Removal records are kept for good (a seed file must not bring a removed member back).
    const at = new Date('2026-06-01T12:00:00Z');
    for (let i = 0; i < MAX_MEMBER_REMOVALS; i++) {
      const member = {
        id: randomUUID(),
        organizationId: org.id,
        email: `gone${i}@example.com`,
        role: 'viewer' as const,
      };
      const record = { ...member, passwordHash: 'scrypt$', invitation: null, createdAt: at, updatedAt: at };
      assert.equal(await stores.members.insertMember(record), true);
      const removal = { organizationId: org.id, memberId: member.id, expectedRole: member.role, now: at };
      assert.ok((await stores.members.removeMember(removal)).isOk());
    }
    const refused = await admin.members.inviteMember(as('admin'), org.id, { email: 'new@example.com', role: 'viewer' });
    assert.equal(refused._unsafeUnwrapErr().code, 'conflict');
    assert.match(refused._unsafeUnwrapErr().message, /has removed 10000 members, the most it may record/);
    assert.deepEqual(await stores.members.listMembers(org.id), [], 'nobody invited');
  });
});
