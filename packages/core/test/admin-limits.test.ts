// What one organization's members can grow: active API keys and pending invitations are capped, so a
// script run by a developer or an admin cannot grow the tables without limit.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createAdminApi, MAX_ACTIVE_API_KEYS } from '../src/runtime/admin.js';
import { INVITATION_TTL_MS, MAX_PENDING_INVITATIONS } from '../src/runtime/members.js';

const operator = { kind: 'operator' } as const;

async function organization() {
  let now = new Date('2026-06-01T12:00:00Z');
  const admin = createAdminApi(createMemoryStores(), () => now);
  const entitlements = { rateLimitPerMinute: 1, maxConcurrentRequests: 1, monthlyQuota: 1, enabledNetworks: ['tron'] };
  const org = (await admin.createOrganization(operator, { name: 'Acme', assignment: { entitlements } }))._unsafeUnwrap()
    .organization;
  const as = (role: 'admin' | 'developer') => ({ kind: 'member', organizationId: org.id, role }) as const;
  return { admin, org, as, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
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
});
