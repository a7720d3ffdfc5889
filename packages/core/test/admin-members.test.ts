import assert from 'node:assert/strict';
import crypto, { randomBytes } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { describe, test, type TestContext } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createAdminApi, type AdminActor, type MemberRole } from '../src/runtime/admin.js';
import { INVITATION_TTL_MS } from '../src/runtime/members.js';
import { hashPassword, passwordProblem, verifyPassword } from '../src/runtime/passwords.js';
import { fillDerivations } from './password-support.js';

const operator = { kind: 'operator' } as const;

/** Counts node:crypto scrypt calls (passwords.ts imports it as a named binding: synced to the mock). */
function countScrypt(t: TestContext): { calls: () => number } {
  const mocked = t.mock.method(crypto, 'scrypt');
  syncBuiltinESMExports();
  t.after(() => {
    mocked.mock.restore();
    syncBuiltinESMExports();
  });
  return { calls: () => mocked.mock.callCount() };
}
const PASSWORD = 'correct horse battery';

/** An organization without members. */
async function anotherOrganization(admin: ReturnType<typeof createAdminApi>, name: string) {
  const entitlements = { rateLimitPerMinute: 1, maxConcurrentRequests: 1, monthlyQuota: 1, enabledNetworks: ['tron'] };
  return (await admin.createOrganization(operator, { name, assignment: { entitlements } }))._unsafeUnwrap()
    .organization;
}

/** An organization with its owner (signed up through an invitation) and a clock the test moves. */
async function organization() {
  const stores = createMemoryStores();
  let now = new Date('2026-06-01T12:00:00Z');
  const admin = createAdminApi(stores, () => now);
  const org = await anotherOrganization(admin, 'Acme');
  const invited = (
    await admin.members.inviteMember(operator, org.id, { email: ' Owner@Example.COM ', role: 'owner' })
  )._unsafeUnwrap();
  const owner = (await admin.members.acceptInvitation(invited.token, PASSWORD))._unsafeUnwrap();
  const as = (role: MemberRole): AdminActor => ({ kind: 'member', organizationId: org.id, role });
  return { stores, admin, org, owner, as, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

describe('Members: invitations', () => {
  test('an invitation link sets the password once; the email is stored normalized', async () => {
    const { admin, org, owner } = await organization();
    assert.equal(owner.email, 'owner@example.com');
    assert.equal(owner.status, 'active');
    const issued = (
      await admin.members.inviteMember(operator, org.id, { email: 'dev@example.com', role: 'developer' })
    )._unsafeUnwrap();
    assert.equal(issued.member.status, 'invited');
    assert.equal((await admin.members.invitation(issued.token))._unsafeUnwrap().email, 'dev@example.com');
    assert.equal(
      (await admin.members.checkPassword('dev@example.com', ''))._unsafeUnwrap(),
      null,
      'no password before the link is used',
    );
    assert.equal((await admin.members.acceptInvitation(issued.token, 'short'))._unsafeUnwrapErr().code, 'invalid');
    assert.ok(
      (await admin.members.acceptInvitation(issued.token, PASSWORD)).isOk(),
      'a refused password leaves the link usable',
    );
    assert.equal(
      (await admin.members.acceptInvitation(issued.token, `${PASSWORD}!`))._unsafeUnwrapErr().code,
      'not_found',
    );
    assert.equal((await admin.members.invitation(issued.token))._unsafeUnwrapErr().code, 'not_found');
    assert.equal((await admin.members.checkPassword('DEV@example.com', PASSWORD))._unsafeUnwrap()?.role, 'developer');
  });

  test('an invitation expires', async () => {
    const { admin, org, advance } = await organization();
    const issued = (
      await admin.members.inviteMember(operator, org.id, { email: 'late@example.com', role: 'viewer' })
    )._unsafeUnwrap();
    advance(INVITATION_TTL_MS);
    assert.equal((await admin.members.invitation(issued.token))._unsafeUnwrapErr().code, 'not_found');
    assert.equal((await admin.members.acceptInvitation(issued.token, PASSWORD))._unsafeUnwrapErr().code, 'not_found');
  });

  test('an unknown, used or expired invitation link is refused before its password is hashed (no scrypt work)', async (t) => {
    const { admin, org, advance } = await organization();
    const used = (
      await admin.members.inviteMember(operator, org.id, { email: 'used@example.com', role: 'viewer' })
    )._unsafeUnwrap();
    (await admin.members.acceptInvitation(used.token, PASSWORD))._unsafeUnwrap();
    const late = (
      await admin.members.inviteMember(operator, org.id, { email: 'late@example.com', role: 'viewer' })
    )._unsafeUnwrap();
    advance(INVITATION_TTL_MS);
    const scrypt = countScrypt(t);
    for (const token of [randomBytes(32).toString('base64url'), used.token, late.token])
      assert.equal((await admin.members.acceptInvitation(token, PASSWORD))._unsafeUnwrapErr().code, 'not_found');
    assert.equal(scrypt.calls(), 0);
  });

  test('an email is one member across organizations; bad emails, roles and organizations are refused', async () => {
    const { admin, org } = await organization();
    const other = (
      await admin.createOrganization(operator, {
        name: 'Other',
        assignment: {
          entitlements: { rateLimitPerMinute: 1, maxConcurrentRequests: 1, monthlyQuota: 1, enabledNetworks: [] },
        },
      })
    )._unsafeUnwrap().organization;
    const code = async (orgId: string, email: string, role: string) =>
      (await admin.members.inviteMember(operator, orgId, { email, role }))._unsafeUnwrapErr().code;
    assert.equal(await code(other.id, 'OWNER@example.com', 'viewer'), 'conflict');
    assert.equal(await code(org.id, 'not-an-email', 'viewer'), 'invalid');
    assert.equal(await code(org.id, 'a@example.com', 'root'), 'invalid');
    assert.equal(await code('2b9f0c36-5a55-4b1e-8c53-7f1c2de1a001', 'b@example.com', 'viewer'), 'not_found');
  });
});

describe('Members: roles', () => {
  test('only owners and admins manage members; an admin cannot touch owners', async () => {
    const { admin, org, owner, as } = await organization();
    for (const role of ['developer', 'billing', 'viewer'] as const) {
      const refused = await admin.members.inviteMember(as(role), org.id, {
        email: `${role}@example.com`,
        role: 'viewer',
      });
      assert.equal(refused._unsafeUnwrapErr().code, 'forbidden', role);
      assert.ok((await admin.members.listMembers(as(role), org.id)).isOk(), `${role} still sees the members`);
    }
    const dev = (
      await admin.members.inviteMember(as('admin'), org.id, { email: 'dev@example.com', role: 'developer' })
    )._unsafeUnwrap().member;
    assert.equal(
      (
        await admin.members.inviteMember(as('admin'), org.id, { email: 'o2@example.com', role: 'owner' })
      )._unsafeUnwrapErr().code,
      'forbidden',
    );
    assert.equal(
      (await admin.members.setMemberRole(as('admin'), org.id, dev.id, 'owner'))._unsafeUnwrapErr().code,
      'forbidden',
    );
    assert.equal(
      (await admin.members.setMemberRole(as('admin'), org.id, owner.id, 'viewer'))._unsafeUnwrapErr().code,
      'forbidden',
    );
    assert.equal(
      (await admin.members.removeMember(as('admin'), org.id, owner.id))._unsafeUnwrapErr().code,
      'forbidden',
    );
    assert.equal(
      (await admin.members.setMemberRole(as('admin'), org.id, dev.id, 'billing'))._unsafeUnwrap().role,
      'billing',
    );
    assert.equal(
      (await admin.members.setMemberRole(as('owner'), org.id, dev.id, 'owner'))._unsafeUnwrap().role,
      'owner',
    );
  });

  test("an admin's change applies only to the role it was allowed on: a promotion to owner in between wins", async () => {
    const { stores, admin, org, as } = await organization();
    const developer = async (email: string) =>
      (await admin.members.inviteMember(operator, org.id, { email, role: 'developer' }))._unsafeUnwrap().member;
    /** An owner's promotion lands after the admin's permission check read the member as a developer. */
    const promotedAfterTheRead = () => {
      const read = stores.members.getMember.bind(stores.members);
      stores.members.getMember = async (organizationId, memberId) => {
        const seen = await read(organizationId, memberId);
        stores.members.getMember = read;
        assert.ok((await admin.members.setMemberRole(as('owner'), org.id, memberId, 'owner')).isOk());
        return seen;
      };
    };
    const [demoted, removed] = [await developer('d1@example.com'), await developer('d2@example.com')];
    promotedAfterTheRead();
    const demotion = await admin.members.setMemberRole(as('admin'), org.id, demoted.id, 'viewer');
    assert.equal(demotion._unsafeUnwrapErr().code, 'conflict');
    assert.match(demotion._unsafeUnwrapErr().message, /role changed meanwhile/);
    promotedAfterTheRead();
    assert.equal(
      (await admin.members.removeMember(as('admin'), org.id, removed.id))._unsafeUnwrapErr().code,
      'conflict',
    );
    for (const m of [demoted, removed]) {
      assert.equal(
        (await stores.members.getMember(org.id, m.id))?.role,
        'owner',
        'an admin never demotes or removes an owner',
      );
    }
  });

  test('the last owner cannot be demoted or removed', async () => {
    const { admin, org, owner, as } = await organization();
    const demote = await admin.members.setMemberRole(as('owner'), org.id, owner.id, 'admin');
    assert.equal(demote._unsafeUnwrapErr().code, 'conflict');
    assert.match(demote._unsafeUnwrapErr().message, /last owner/);
    assert.equal((await admin.members.removeMember(operator, org.id, owner.id))._unsafeUnwrapErr().code, 'conflict');
    assert.equal(
      (await admin.members.setMemberRole(as('owner'), org.id, owner.id, 'god'))._unsafeUnwrapErr().code,
      'invalid',
    );
  });

  test('a member of another organization can neither see nor change this one', async () => {
    const { admin, org, owner } = await organization();
    const stranger: AdminActor = {
      kind: 'member',
      organizationId: '2b9f0c36-5a55-4b1e-8c53-7f1c2de1a001',
      role: 'owner',
    };
    assert.equal((await admin.members.listMembers(stranger, org.id))._unsafeUnwrapErr().code, 'forbidden');
    assert.equal((await admin.members.removeMember(stranger, org.id, owner.id))._unsafeUnwrapErr().code, 'forbidden');
    assert.equal(
      (await admin.members.setMemberRole(stranger, org.id, owner.id, 'viewer'))._unsafeUnwrapErr().code,
      'forbidden',
    );
  });

  test('removing a member ends its portal sessions', async () => {
    const { admin, org, as, stores } = await organization();
    const dev = (
      await admin.members.inviteMember(operator, org.id, { email: 'dev@example.com', role: 'developer' })
    )._unsafeUnwrap().member;
    const at = new Date('2026-06-01T12:00:00Z');
    const session = {
      memberId: dev.id,
      organizationId: org.id,
      createdAt: at,
      expiresAt: new Date(at.getTime() + 60_000),
    };
    await stores.sessions.createSession({ ...session, tokenHash: 'a'.repeat(64), idleExpiresAt: session.expiresAt });
    assert.equal((await admin.members.removeMember(as('admin'), org.id, dev.id))._unsafeUnwrap().id, dev.id);
    assert.equal(await stores.sessions.touchSession({ tokenHash: 'a'.repeat(64), now: at, idleExpiresAt: at }), null);
    assert.equal((await admin.members.removeMember(as('admin'), org.id, dev.id))._unsafeUnwrapErr().code, 'not_found');
  });
});

describe('Members: passwords and the seed', () => {
  test('scrypt with a salt per password; wrong passwords, unknown emails and foreign hashes do not match', async () => {
    const [a, b] = (await Promise.all([hashPassword(PASSWORD), hashPassword(PASSWORD)])).map((h) => h._unsafeUnwrap());
    assert.notEqual(a, b, 'a salt per password');
    assert.match(a!, /^scrypt\$32768\$8\$3\$/);
    assert.equal((await verifyPassword(PASSWORD, a!))._unsafeUnwrap(), true);
    assert.equal((await verifyPassword(`${PASSWORD} `, a!))._unsafeUnwrap(), false);
    for (const foreign of ['', 'plain', '$2b$10$abcdefghijklmnopqrstuv', 'scrypt$1073741824$8$1$c2FsdA$a2V5'])
      assert.equal((await verifyPassword(PASSWORD, foreign))._unsafeUnwrap(), false, foreign);
    assert.match(passwordProblem('eleven char') ?? '', /at least 12/);
    assert.match(passwordProblem(' '.repeat(12)) ?? '', /spaces/);
    assert.equal(passwordProblem('twelve chars'), null);
    const { admin } = await organization();
    assert.equal((await admin.members.checkPassword('nobody@example.com', PASSWORD))._unsafeUnwrap(), null);
    assert.equal((await admin.members.checkPassword('owner@example.com', 'wrong password!'))._unsafeUnwrap(), null);
  });

  test('a seeded member is inserted with its password hashed, once, and only in its organization', async () => {
    const { admin, org, stores } = await organization();
    const input = { organizationId: org.id, email: 'Seeded@example.com', role: 'billing', password: PASSWORD };
    const seeded = (await admin.members.seed.importMember(input))._unsafeUnwrap();
    assert.equal(!seeded.removed && seeded.member.status, 'active');
    const stored = await stores.members.findMemberByEmail('seeded@example.com');
    assert.ok(stored?.passwordHash?.startsWith('scrypt$') && !stored.passwordHash.includes(PASSWORD));
    const again = (await admin.members.seed.importMember({ ...input, role: 'viewer' }))._unsafeUnwrap();
    assert.equal(!again.removed && again.member.role, 'billing', 'stored state is kept');
    const elsewhere = { ...input, organizationId: '2b9f0c36-5a55-4b1e-8c53-7f1c2de1a001' };
    assert.equal((await admin.members.seed.importMember(elsewhere))._unsafeUnwrapErr().code, 'conflict');
    assert.equal(
      (
        await admin.members.seed.importMember({ ...input, email: 'x@example.com', password: 'short' })
      )._unsafeUnwrapErr().code,
      'invalid',
    );
    assert.equal(
      (
        await admin.members.seed.importMember({ organizationId: org.id, email: 'y@example.com', role: 'viewer' })
      )._unsafeUnwrapErr().code,
      'invalid',
    );
  });

  test("a seeded member keeps the seed's id; a stored member keeps its own, and an id another member has is a conflict, never overwritten", async () => {
    const { admin, org, owner, stores } = await organization();
    const id = '0b5e1c2a-7d3f-4e6a-9b8c-1d2e3f4a5b6c';
    const input = { organizationId: org.id, email: 'kept@example.com', role: 'viewer', password: PASSWORD, id };
    const seeded = (await admin.members.seed.importMember(input))._unsafeUnwrap();
    assert.equal(!seeded.removed && seeded.member.id, id);
    const again = (await admin.members.seed.importMember({ ...input, id: owner.id }))._unsafeUnwrap();
    assert.equal(!again.removed && again.member.id, id, 'the stored member, under its stored id');
    const clash = await admin.members.seed.importMember({ ...input, email: 'other@example.com', id: owner.id });
    assert.deepEqual(clash._unsafeUnwrapErr(), {
      code: 'conflict',
      message: 'another member has this id or this invitation',
    });
    assert.equal(await stores.members.findMemberByEmail('other@example.com'), null);
    assert.equal((await stores.members.getMember(org.id, owner.id))?.email, 'owner@example.com');
  });

  test('a member removed since stays removed when the seed file lists it again, as a revoked key stays revoked', async () => {
    const { admin, org, stores, advance } = await organization();
    const input = { organizationId: org.id, email: 'ex@example.com', role: 'admin', password: PASSWORD };
    const seeded = (await admin.members.seed.importMember(input))._unsafeUnwrap();
    assert.ok(!seeded.removed);
    const removedAt = advance(1000);
    (await admin.members.removeMember(operator, org.id, seeded.member.id))._unsafeUnwrap();
    advance(1000);
    assert.deepEqual((await admin.members.seed.importMember(input))._unsafeUnwrap(), { removed: true, removedAt });
    assert.equal(await stores.members.findMemberByEmail('ex@example.com'), null, 'not inserted again');
    assert.equal((await admin.members.checkPassword('ex@example.com', PASSWORD))._unsafeUnwrap(), null);
    const listed = (await admin.members.listMembers(operator, org.id))._unsafeUnwrap();
    assert.deepEqual(
      listed.map((m) => m.email),
      ['owner@example.com'],
    );
  });

  test('a removed email is free for a new invitation, here or in another organization, and the seed of the first is no conflict', async () => {
    const { admin, org } = await organization();
    const input = { organizationId: org.id, email: 'ex@example.com', role: 'admin', password: PASSWORD };
    const seeded = (await admin.members.seed.importMember(input))._unsafeUnwrap();
    assert.ok(!seeded.removed);
    (await admin.members.removeMember(operator, org.id, seeded.member.id))._unsafeUnwrap();
    const other = await anotherOrganization(admin, 'Other');
    const elsewhere = (
      await admin.members.inviteMember(operator, other.id, { email: 'ex@example.com', role: 'viewer' })
    )._unsafeUnwrap();
    assert.equal((await admin.members.seed.importMember(input))._unsafeUnwrap().removed, true);
    (await admin.members.removeMember(operator, other.id, elsewhere.member.id))._unsafeUnwrap();
    const back = (
      await admin.members.inviteMember(operator, org.id, { email: 'ex@example.com', role: 'viewer' })
    )._unsafeUnwrap();
    const now = (await admin.members.seed.importMember(input))._unsafeUnwrap();
    assert.deepEqual(now, { removed: false, member: back.member }, 'invited back: the stored member, its role kept');
  });

  test("a password derivation refused because every place is taken is `busy`, an answer (never a rejection), from acceptInvitation, a seed import and a known member's checkPassword; nothing is stored and the link still works", async (t) => {
    const { admin, org, stores } = await organization();
    const invited = (
      await admin.members.inviteMember(operator, org.id, { email: 'late@example.com', role: 'viewer' })
    )._unsafeUnwrap();
    const seed = { organizationId: org.id, email: 'seeded@example.com', role: 'viewer', password: PASSWORD };
    const flood = await fillDerivations(t);
    const accepted = (await admin.members.acceptInvitation(invited.token, PASSWORD))._unsafeUnwrapErr();
    assert.deepEqual(accepted, {
      code: 'busy',
      message: 'too many password derivations at once: try again in a moment',
    });
    assert.equal((await admin.members.seed.importMember(seed))._unsafeUnwrapErr().code, 'busy');
    assert.deepEqual((await admin.members.checkPassword('owner@example.com', PASSWORD))._unsafeUnwrapErr(), accepted);
    await flood.release();
    assert.ok((await admin.members.checkPassword('owner@example.com', PASSWORD)).isOk(), 'answered once free again');
    assert.equal(await stores.members.findMemberByEmail('seeded@example.com'), null);
    assert.equal((await admin.members.acceptInvitation(invited.token, PASSWORD))._unsafeUnwrap().status, 'active');
    assert.ok((await admin.members.seed.importMember(seed)).isOk());
  });
});
