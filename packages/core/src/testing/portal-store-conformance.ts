import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe } from 'node:test';
import type { SafetyStores } from '../stores/index.js';
import type { MemberChangeOutcome, MemberRecord, MemberRole } from '../stores/members.js';
import type { SessionRecord } from '../stores/sessions.js';
import { tiedIds } from './stores/support.js';

// The portal's stores (members, sessions, sign-in failures) in the store conformance suite: every
// store package runs these through `runStoreConformance`. Ids, emails and hashes are random, so
// the cases may share one database.

/** The suite's way to run a case on fresh stores (closed after it). */
type WithStores = (title: string, body: (stores: SafetyStores) => Promise<void>) => void;

const T0 = new Date('2026-05-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const MINUTE = 60_000;
const hash = () => randomBytes(32).toString('hex');
/** Why a member change did nothing, or `changed`. */
const refusal = (outcome: MemberChangeOutcome) => (outcome.isErr() ? outcome.error : 'changed');

function member(organizationId: string, role: MemberRole, overrides: Partial<MemberRecord> = {}): MemberRecord {
  return {
    id: randomUUID(),
    organizationId,
    email: `${randomUUID()}@example.com`,
    role,
    passwordHash: 'scrypt$1$1$1$c2FsdA$a2V5',
    invitation: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

function session(memberId: string, organizationId: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    tokenHash: hash(),
    memberId,
    organizationId,
    createdAt: T0,
    expiresAt: at(720 * MINUTE),
    idleExpiresAt: at(30 * MINUTE),
    ...overrides,
  };
}

export function runPortalStoreConformance(withStores: WithStores): void {
  describe('portal members', () => {
    withStores(
      'insert once per id and email, find by email, read within the organization, list oldest first',
      async ({ members }) => {
        const orgId = randomUUID();
        const second = member(orgId, 'viewer', { createdAt: at(1000), updatedAt: at(1000) });
        const first = member(orgId, 'owner');
        assert.equal(await members.insertMember(second), true);
        assert.equal(await members.insertMember(first), true);
        assert.equal(await members.insertMember({ ...member(randomUUID(), 'owner'), email: first.email }), false);
        assert.equal(await members.insertMember({ ...member(orgId, 'owner'), id: first.id }), false);
        assert.deepEqual(await members.findMemberByEmail(first.email), first);
        assert.equal(await members.findMemberByEmail(`${randomUUID()}@example.com`), null);
        assert.deepEqual(await members.getMember(orgId, second.id), second);
        assert.equal(await members.getMember(randomUUID(), second.id), null, 'another organization does not see it');
        assert.deepEqual(
          (await members.listMembers(orgId)).map((m) => m.id),
          [first.id, second.id],
        );
        assert.deepEqual(await members.listMembers(randomUUID()), []);
      },
    );

    withStores(
      'Lists: members created in the same millisecond are listed by id, in code units',
      async ({ members }) => {
        const orgId = randomUUID();
        const { inserted, listed } = tiedIds();
        for (const id of inserted) assert.equal(await members.insertMember(member(orgId, 'viewer', { id })), true);
        assert.deepEqual(
          (await members.listMembers(orgId)).map((m) => m.id),
          listed,
        );
      },
    );

    withStores(
      'one member per invitation link: a second member with its token hash is not inserted',
      async ({ members }) => {
        const orgId = randomUUID();
        const invitation = { tokenHash: hash(), expiresAt: at(MINUTE) };
        const first = member(orgId, 'viewer', { passwordHash: null, invitation });
        const second = member(randomUUID(), 'developer', { passwordHash: null, invitation: { ...invitation } });
        assert.equal(await members.insertMember(first), true);
        assert.equal(await members.insertMember(second), false);
        assert.equal(await members.findMemberByEmail(second.email), null);
        assert.deepEqual(
          await members.findInvitation(invitation.tokenHash, at(0)),
          first,
          'the link still opens the first',
        );
      },
    );

    withStores('an invitation is found until it expires and accepted once', async ({ members }) => {
      const orgId = randomUUID();
      const tokenHash = hash();
      const invited = member(orgId, 'developer', {
        passwordHash: null,
        invitation: { tokenHash, expiresAt: at(MINUTE) },
      });
      const late = member(orgId, 'viewer', {
        passwordHash: null,
        invitation: { tokenHash: hash(), expiresAt: at(MINUTE) },
      });
      await members.insertMember(invited);
      await members.insertMember(late);
      assert.deepEqual(await members.findInvitation(tokenHash, at(0)), invited);
      assert.equal(await members.findInvitation(tokenHash, at(MINUTE)), null, 'expired at its end');
      assert.equal(await members.findInvitation(hash(), at(0)), null);

      const uses = await Promise.all(
        ['h1', 'h2', 'h3'].map((passwordHash) => members.acceptInvitation({ tokenHash, passwordHash, now: at(1000) })),
      );
      const accepted = uses.filter((m) => m !== null);
      assert.equal(accepted.length, 1, 'one of concurrent uses of a link wins');
      assert.equal(accepted[0]!.invitation, null);
      assert.deepEqual(accepted[0]!.updatedAt, at(1000));
      const stored = await members.getMember(orgId, invited.id);
      assert.equal(stored?.passwordHash, accepted[0]!.passwordHash);
      assert.equal(stored?.invitation, null);
      assert.equal(await members.findInvitation(tokenHash, at(1000)), null, 'a used link is gone');
      assert.equal(await members.acceptInvitation({ tokenHash, passwordHash: 'h4', now: at(2000) }), null);

      const expired = late.invitation!.tokenHash;
      assert.equal(await members.acceptInvitation({ tokenHash: expired, passwordHash: 'h', now: at(MINUTE) }), null);
      assert.equal((await members.getMember(orgId, late.id))?.passwordHash, null);
    });

    withStores('roles change within the organization, never leaving it without an owner', async ({ members }) => {
      const orgId = randomUUID();
      const owner = member(orgId, 'owner');
      const dev = member(orgId, 'developer');
      await members.insertMember(owner);
      await members.insertMember(dev);
      const params = (memberId: string, role: MemberRole, expectedRole: MemberRole) => ({
        organizationId: orgId,
        memberId,
        role,
        expectedRole,
        now: at(5),
      });
      const remove = { organizationId: orgId, memberId: owner.id, expectedRole: 'owner' as const, now: at(5) };
      assert.equal(refusal(await members.setMemberRole(params(owner.id, 'admin', 'owner'))), 'last_owner');
      assert.equal(refusal(await members.removeMember(remove)), 'last_owner');
      const elsewhere = { ...params(dev.id, 'owner', 'developer'), organizationId: randomUUID() };
      assert.equal(refusal(await members.setMemberRole(elsewhere)), 'not_found');
      assert.equal(refusal(await members.setMemberRole(params(randomUUID(), 'owner', 'developer'))), 'not_found');

      const promoted = (await members.setMemberRole(params(dev.id, 'owner', 'developer')))._unsafeUnwrap();
      assert.equal(promoted.role, 'owner');
      assert.deepEqual(promoted.updatedAt, at(5));
      assert.equal(
        refusal(await members.setMemberRole(params(owner.id, 'owner', 'owner'))),
        'changed',
        'an owner stays owner',
      );

      // Both owners demote each other at once: one of them must stay owner.
      const both = await Promise.all([
        members.setMemberRole(params(owner.id, 'viewer', 'owner')),
        members.setMemberRole(params(dev.id, 'billing', 'owner')),
      ]);
      assert.deepEqual(both.map(refusal).sort(), ['changed', 'last_owner']);
      const owners = (await members.listMembers(orgId)).filter((m) => m.role === 'owner');
      assert.equal(owners.length, 1);
    });

    withStores(
      'a role change or removal applies only while the member still has the role it was decided on',
      async ({ members }) => {
        const orgId = randomUUID();
        const owner = member(orgId, 'owner');
        const dev = member(orgId, 'developer');
        for (const m of [owner, dev]) await members.insertMember(m);
        // An admin decided to demote a developer; meanwhile an owner made the developer an owner.
        const promote = {
          organizationId: orgId,
          memberId: dev.id,
          role: 'owner' as const,
          expectedRole: 'developer' as const,
          now: at(5),
        };
        assert.ok((await members.setMemberRole(promote)).isOk());
        const demote = { ...promote, role: 'viewer' as const, now: at(6) };
        assert.equal(refusal(await members.setMemberRole(demote)), 'role_changed');
        const remove = { organizationId: orgId, memberId: dev.id, expectedRole: 'developer' as const, now: at(6) };
        assert.equal(refusal(await members.removeMember(remove)), 'role_changed');
        const stored = await members.getMember(orgId, dev.id);
        assert.equal(stored?.role, 'owner', 'neither the stale demotion nor the stale removal applied');
        assert.deepEqual(stored?.updatedAt, at(5));
      },
    );

    withStores('an owner who can sign in stays while the other owners are only invited', async ({ members }) => {
      const orgId = randomUUID();
      const active = member(orgId, 'owner');
      const invited = member(orgId, 'owner', {
        passwordHash: null,
        invitation: { tokenHash: randomUUID(), expiresAt: at(60 * MINUTE) },
      });
      const other = member(orgId, 'owner', {
        passwordHash: null,
        invitation: { tokenHash: randomUUID(), expiresAt: at(60 * MINUTE) },
      });
      for (const m of [active, invited, other]) await members.insertMember(m);
      const ofOwner = (memberId: string) => ({
        organizationId: orgId,
        memberId,
        expectedRole: 'owner' as const,
        now: at(5),
      });
      const params = (memberId: string) => ({ ...ofOwner(memberId), role: 'viewer' as const });
      assert.equal(refusal(await members.setMemberRole(params(active.id))), 'last_owner');
      assert.equal(refusal(await members.removeMember(ofOwner(active.id))), 'last_owner');
      assert.ok((await members.removeMember(ofOwner(invited.id))).isOk());
      assert.ok((await members.setMemberRole(params(other.id))).isOk(), 'an invited owner may go');
      await members.removeMember(ofOwner(active.id));
      const owners = (await members.listMembers(orgId)).filter((m) => m.role === 'owner');
      assert.deepEqual(
        owners.map((m) => m.id),
        [active.id],
      );
      // Only invited owners: one of them stays.
      const seeded = randomUUID();
      const pending = { passwordHash: null, invitation: { tokenHash: randomUUID(), expiresAt: at(60 * MINUTE) } };
      const first = member(seeded, 'owner', pending);
      const second = member(seeded, 'owner', {
        ...pending,
        invitation: { ...pending.invitation, tokenHash: randomUUID() },
      });
      for (const m of [first, second]) await members.insertMember(m);
      const seededOwner = (memberId: string) => ({
        organizationId: seeded,
        memberId,
        expectedRole: 'owner' as const,
        now: at(5),
      });
      assert.ok((await members.removeMember(seededOwner(first.id))).isOk());
      assert.equal(refusal(await members.removeMember(seededOwner(second.id))), 'last_owner');
    });

    withStores('removal keeps an owner, also when owners remove each other at once', async ({ members }) => {
      const orgId = randomUUID();
      const a = member(orgId, 'owner');
      const b = member(orgId, 'owner');
      const viewer = member(orgId, 'viewer');
      for (const m of [a, b, viewer]) await members.insertMember(m);
      const of = (m: MemberRecord, organizationId = orgId) => ({
        organizationId,
        memberId: m.id,
        expectedRole: m.role,
        now: at(5),
      });
      assert.equal(refusal(await members.removeMember(of(viewer, randomUUID()))), 'not_found');
      const removed = (await members.removeMember(of(viewer)))._unsafeUnwrap();
      assert.equal(removed.id, viewer.id);
      assert.equal(await members.findMemberByEmail(viewer.email), null);
      assert.equal(refusal(await members.removeMember(of(viewer))), 'not_found');
      const both = await Promise.all([members.removeMember(of(a)), members.removeMember(of(b))]);
      assert.equal(both.filter((o) => o.isOk()).length, 1);
      assert.equal((await members.listMembers(orgId)).length, 1);
      assert.equal(await members.insertMember({ ...viewer, id: randomUUID() }), true, 'a removed email is free again');
    });
    withStores(
      'a removal is recorded for its organization and email, counted once per email: a seed insert stays refused, an invitation is not',
      async ({ members }) => {
        const orgId = randomUUID();
        const viewer = member(orgId, 'viewer');
        await members.insertMember(viewer);
        const remove = { organizationId: orgId, memberId: viewer.id, expectedRole: 'viewer' as const };
        (await members.removeMember({ ...remove, now: at(7) }))._unsafeUnwrap();
        assert.deepEqual(await members.removedAt(orgId, viewer.email), at(7));
        assert.equal(await members.removedAt(randomUUID(), viewer.email), null, 'only in its organization');
        assert.equal(await members.removedAt(orgId, `${randomUUID()}@example.com`), null);
        assert.equal(await members.countRemovals(orgId), 1);
        assert.equal(await members.countRemovals(randomUUID()), 0, 'counted for its organization only');
        assert.equal(await members.getMember(orgId, viewer.id), null);
        assert.deepEqual(await members.listMembers(orgId), []);

        const again = { ...viewer, id: randomUUID() };
        assert.equal(await members.insertMember(again, { unlessRemoved: true }), false, 'the seed brings none back');
        assert.equal(await members.findMemberByEmail(viewer.email), null);
        const fresh = member(orgId, 'viewer');
        assert.equal(await members.insertMember(fresh, { unlessRemoved: true }), true, 'an email never removed');
        assert.equal(await members.insertMember(again), true, 'invited back');
        assert.deepEqual(await members.findMemberByEmail(viewer.email), again);
        (await members.removeMember({ ...remove, memberId: again.id, now: at(9) }))._unsafeUnwrap();
        assert.deepEqual(await members.removedAt(orgId, viewer.email), at(9), 'the latest removal');
        assert.equal(await members.countRemovals(orgId), 1, 'one record per email');

        const elsewhere = member(randomUUID(), 'owner', { email: viewer.email });
        assert.equal(await members.insertMember(elsewhere, { unlessRemoved: true }), true, 'another organization');
      },
    );

    withStores(
      'Sweep: invitations that expired unaccepted are deleted, at most limit per call; their emails are free again',
      async ({ members }) => {
        // Before T0, which no other case uses: the purge finds this case's invitations only.
        const DAY = 1440 * MINUTE;
        const orgId = randomUUID();
        const invited = (expiresAt: Date) =>
          member(orgId, 'viewer', { passwordHash: null, invitation: { tokenHash: hash(), expiresAt } });
        const expired = [invited(at(-3 * DAY)), invited(at(-3 * DAY + MINUTE))];
        const pending = invited(at(-DAY));
        const active = member(orgId, 'owner');
        for (const m of [...expired, pending, active]) assert.equal(await members.insertMember(m), true);
        const sweepAt = at(-2 * DAY);
        assert.equal(await members.purgeExpiredInvitations(sweepAt, 1), 1, 'at most limit');
        assert.equal(await members.purgeExpiredInvitations(sweepAt), 1);
        assert.equal(await members.purgeExpiredInvitations(sweepAt), 0);
        assert.deepEqual(
          (await members.listMembers(orgId)).map((m) => m.id).sort(),
          [active.id, pending.id].sort(),
          'a pending invitation and a member with a password stay',
        );
        const gone = expired[0]!;
        assert.equal(await members.findInvitation(gone.invitation!.tokenHash, at(-4 * DAY)), null);
        assert.equal(await members.removedAt(orgId, gone.email), null, 'not recorded as a removal');
        const again = member(orgId, 'viewer', { email: gone.email });
        assert.equal(await members.insertMember(again, { unlessRemoved: true }), true, 'the email is free');
      },
    );
    withStores(
      'Limits: the invitation caps hold under concurrent inserts, checked before anything else',
      async ({ members }) => {
        const orgId = randomUUID();
        const caps = { pending: 10, removals: 3, now: T0 };
        const invited = (expiresAt = at(MINUTE)) =>
          member(orgId, 'viewer', { passwordHash: null, invitation: { tokenHash: hash(), expiresAt } });
        assert.equal(await members.insertMember(invited(T0)), true, 'expired at now: not pending');
        assert.equal(await members.insertMember(member(orgId, 'owner')), true, 'accepted: not pending');
        const outcomes = await Promise.all(Array.from({ length: 30 }, () => members.insertMember(invited(), { caps })));
        assert.equal(outcomes.filter((o) => o === true).length, 10, 'of 30 at once, 10');
        assert.ok(outcomes.every((o) => o === true || o === 'pending_invitations'));
        assert.equal((await members.listMembers(orgId)).length, 12, 'nothing else inserted');
        const existing = (await members.listMembers(orgId))[0]!;
        assert.equal(
          await members.insertMember({ ...invited(), email: existing.email }, { caps }),
          'pending_invitations',
        );
        assert.equal(await members.insertMember(invited()), true, 'an insert without caps (a seed file) is not capped');

        const other = randomUUID();
        const removable = Array.from({ length: 3 }, () => member(other, 'viewer'));
        for (const m of [member(other, 'owner'), ...removable]) await members.insertMember(m);
        for (const m of removable)
          await members.removeMember({ organizationId: other, memberId: m.id, expectedRole: 'viewer', now: T0 });
        const next = member(other, 'viewer', {
          passwordHash: null,
          invitation: { tokenHash: hash(), expiresAt: at(MINUTE) },
        });
        assert.equal(await members.insertMember(next, { caps }), 'removals');
        assert.equal(await members.insertMember(next, { caps: { ...caps, removals: 4 } }), true);
      },
    );
  });

  describe('portal sessions', () => {
    withStores('a session lives until its idle or its absolute end, whichever comes first', async ({ sessions }) => {
      const memberId = randomUUID();
      const s = session(memberId, randomUUID());
      await sessions.createSession(s);
      const touched = await sessions.touchSession({
        tokenHash: s.tokenHash,
        now: at(MINUTE),
        idleExpiresAt: at(31 * MINUTE),
      });
      assert.deepEqual(touched, { ...s, idleExpiresAt: at(31 * MINUTE) });
      assert.equal(
        await sessions.touchSession({ tokenHash: s.tokenHash, now: at(31 * MINUTE), idleExpiresAt: at(61 * MINUTE) }),
        null,
        'idle for the whole idle period: ended',
      );
      assert.equal(await sessions.touchSession({ tokenHash: hash(), now: at(0), idleExpiresAt: at(MINUTE) }), null);

      // Used every few minutes, it still ends at its absolute end.
      const busy = session(memberId, randomUUID(), { expiresAt: at(60 * MINUTE) });
      await sessions.createSession(busy);
      for (let minute = 20; minute < 60; minute += 20) {
        const live = await sessions.touchSession({
          tokenHash: busy.tokenHash,
          now: at(minute * MINUTE),
          idleExpiresAt: at((minute + 30) * MINUTE),
        });
        assert.ok(live, `live at minute ${minute}`);
        assert.ok(live.idleExpiresAt <= busy.expiresAt, 'the idle end never passes the absolute end');
      }
      assert.equal(
        await sessions.touchSession({
          tokenHash: busy.tokenHash,
          now: at(60 * MINUTE),
          idleExpiresAt: at(90 * MINUTE),
        }),
        null,
      );
    });

    withStores('sign-out ends one session; removing a member ends all of its sessions', async ({ sessions }) => {
      const memberId = randomUUID();
      const orgId = randomUUID();
      const [one, two, three] = [session(memberId, orgId), session(memberId, orgId), session(randomUUID(), orgId)];
      for (const s of [one!, two!, three!]) await sessions.createSession(s);
      const live = (s: SessionRecord) =>
        sessions.touchSession({ tokenHash: s.tokenHash, now: at(1), idleExpiresAt: at(MINUTE) });
      await sessions.deleteSession(one!.tokenHash);
      await sessions.deleteSession(one!.tokenHash);
      assert.equal(await live(one!), null);
      assert.ok(await live(two!));
      assert.equal(await sessions.deleteMemberSessions(memberId), 1);
      assert.equal(await live(two!), null);
      assert.ok(await live(three!), "another member's session is untouched");
    });

    withStores('failed sign-ins are counted per key and window', async ({ sessions }) => {
      const email = `email:${randomUUID()}`;
      const client = `client:${randomUUID()}`;
      const window = { windowStart: T0, expiresAt: at(15 * MINUTE) };
      const counts = await Promise.all([1, 2, 3].map(() => sessions.addSignInFailure({ key: email, ...window })));
      assert.deepEqual(counts.sort(), [1, 2, 3], 'concurrent failures are all counted');
      assert.equal(await sessions.addSignInFailure({ key: client, ...window }), 1, 'another key counts on its own');
      assert.equal(await sessions.addSignInFailure({ key: email, ...window }), 4);
      const next = { windowStart: at(15 * MINUTE), expiresAt: at(30 * MINUTE) };
      assert.equal(await sessions.addSignInFailure({ key: email, ...next }), 1, 'a new window starts at 0');
    });

    withStores('a counted failure can be taken back, never below 0', async ({ sessions }) => {
      const key = `email:${randomUUID()}`;
      await sessions.addSignInFailure({ key, windowStart: T0, expiresAt: at(15 * MINUTE) });
      await sessions.addSignInFailure({ key, windowStart: T0, expiresAt: at(15 * MINUTE) });
      await Promise.all([1, 2, 3].map(() => sessions.forgiveSignInFailure({ key, windowStart: T0 })));
      await sessions.forgiveSignInFailure({ key: `email:${randomUUID()}`, windowStart: T0 });
      assert.equal(await sessions.addSignInFailure({ key, windowStart: T0, expiresAt: at(15 * MINUTE) }), 1);
    });

    withStores(
      'Sweep: a purge deletes at most limit ended sessions and limit ended failure windows per call',
      async ({ sessions }) => {
        // Other suites' rows may share the store, so this case counts by its own rows' liveness.
        const ended = [1, 2].map(() => session(randomUUID(), randomUUID(), { idleExpiresAt: at(MINUTE) }));
        for (const s of ended) await sessions.createSession(s);
        const keys = [1, 2].map(() => `client:${randomUUID()}`);
        for (const key of keys) await sessions.addSignInFailure({ key, windowStart: T0, expiresAt: at(MINUTE) });
        const later = at(30 * MINUTE);
        const alive = async () => {
          let n = 0;
          for (const s of ended)
            n += (await sessions.touchSession({ tokenHash: s.tokenHash, now: at(0), idleExpiresAt: at(MINUTE) }))
              ? 1
              : 0;
          return n;
        };
        // At most 1 of each per call; a sweeper repeats while a call deletes `limit` or more.
        let calls = 0;
        for (let n = 1; n >= 1; calls++) {
          n = await sessions.purgeExpired(later, 1);
          assert.ok(n <= 2, `${n} rows deleted by one call with limit 1`);
        }
        assert.ok(calls >= 3, 'a backlog of two of each needs two calls, and one that finds nothing');
        assert.equal(await alive(), 0);
        for (const key of keys)
          assert.equal(await sessions.addSignInFailure({ key, windowStart: T0, expiresAt: at(MINUTE) }), 1, 'swept');
      },
    );

    withStores('the sweep deletes ended sessions and failure windows only', async ({ sessions }) => {
      const s = session(randomUUID(), randomUUID());
      const kept = session(randomUUID(), randomUUID(), { idleExpiresAt: at(60 * MINUTE) });
      await sessions.createSession(s);
      await sessions.createSession(kept);
      const key = `email:${randomUUID()}`;
      await sessions.addSignInFailure({ key, windowStart: T0, expiresAt: at(15 * MINUTE) });
      assert.ok((await sessions.purgeExpired(at(30 * MINUTE))) >= 2);
      assert.equal(await sessions.addSignInFailure({ key, windowStart: T0, expiresAt: at(15 * MINUTE) }), 1);
      assert.equal(
        await sessions.touchSession({ tokenHash: s.tokenHash, now: at(0), idleExpiresAt: at(MINUTE) }),
        null,
      );
      assert.ok(
        await sessions.touchSession({
          tokenHash: kept.tokenHash,
          now: at(30 * MINUTE),
          idleExpiresAt: at(40 * MINUTE),
        }),
      );
    });
  });
}
