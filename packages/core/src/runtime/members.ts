import { randomUUID } from 'node:crypto';
import { err, ok, type Result } from 'neverthrow';
import type { SafetyStores } from '../stores/index.js';
import type { Invitation, InvitationCapReached, MemberRecord, MemberRole } from '../stores/members.js';
import type { AdminActor, AdminError } from './admin.js';
import { hasControlCharacter, type TextRule } from './stored-text.js';
import { decoyPasswordHash, hashPassword, passwordProblem, verifyPassword } from './passwords.js';
import { newToken, tokenHash } from './tokens.js';

/** What lists and pages show of a member: never a password or invitation hash. */
export interface MemberView {
  id: string;
  organizationId: string;
  email: string;
  role: MemberRole;
  /** `invited` until the invitation is accepted (then the member can sign in). */
  status: 'invited' | 'active';
  invitationExpiresAt: Date | null;
  createdAt: Date;
}

/**
 * What a seed file's member is in the store: the member (inserted now or before), or an email the
 * organization has removed since, which stays removed (as a revoked key stays revoked).
 */
export type SeededMember = { removed: false; member: MemberView } | { removed: true; removedAt: Date };

/** A new member and the one-time token of its invitation link, shown once. */
export interface IssuedInvitation {
  member: MemberView;
  token: string;
  expiresAt: Date;
}

export const MEMBER_ROLES: readonly MemberRole[] = ['owner', 'admin', 'developer', 'billing', 'viewer'];
/** How long an invitation link works. */
export const INVITATION_TTL_MS = 72 * 3_600_000;
/** Invitations pending at once per organization: a script cannot grow the member table without limit. */
export const MAX_PENDING_INVITATIONS = 100;
/**
 * Removal records per organization (`MemberStore.countRemovals`), past which it invites no one: they are
 * kept (a seed file must not bring a removed member back), so an invite-and-remove loop would grow them
 * without limit. One per email, and far more than an organization's turnover in decades.
 */
export const MAX_MEMBER_REMOVALS = 10_000;
const INVITATION_UNUSABLE = 'this invitation link is used, expired or unknown';
const MEMBER_MANAGERS: readonly MemberRole[] = ['owner', 'admin'];
const MAX_EMAIL_LENGTH = 254;
const EMAIL = /^[^\s@<>()[\]\\,;:"']+@[^\s@<>()[\]\\,;:"']+\.[^\s@<>()[\]\\,;:"'.]+$/;

const fail = <T>(code: AdminError['code'], message: string): Result<T, AdminError> => err({ code, message });

/** Why the store did not apply a role change or removal, as the admin API says it. */
function refusedChange<T>(reason: 'not_found' | 'last_owner' | 'role_changed', change: string): Result<T, AdminError> {
  if (reason === 'not_found') return fail('not_found', 'no such member');
  if (reason === 'last_owner')
    return fail('conflict', `the last owner cannot be ${change}: make another member owner first`);
  // The permission was decided on the role read before; another change came in between.
  return fail('conflict', "the member's role changed meanwhile: look at the members again");
}

export function memberView(record: MemberRecord): MemberView {
  const { id, organizationId, email, role, createdAt } = record;
  return {
    id,
    organizationId,
    email,
    role,
    status: record.passwordHash === null ? 'invited' : 'active',
    invitationExpiresAt: record.invitation?.expiresAt ?? null,
    createdAt,
  };
}

/**
 * The email as stored (trimmed, lower case), or null when it is not an address (or holds a control
 * character of the rule: see `TextRule`).
 */
export function normalizeEmail(email: string, rule: TextRule = 'given'): string | null {
  const normalized = email.trim().toLowerCase();
  const address = normalized.length <= MAX_EMAIL_LENGTH && EMAIL.test(normalized);
  return address && !hasControlCharacter(normalized, rule) ? normalized : null;
}

/** Whether a member of this role may invite, change and remove members. */
export const mayManageMembers = (role: MemberRole) => MEMBER_MANAGERS.includes(role);

const isRole = (role: string): role is MemberRole => (MEMBER_ROLES as readonly string[]).includes(role);

/**
 * Who may manage the members of `organizationId`: the operator, or its owners and admins. Only
 * an owner (or the operator) touches the owner role: an admin can neither make, demote nor
 * remove an owner.
 */
function permitMembers(
  actor: AdminActor,
  organizationId: string,
  ownerRoleInvolved: boolean,
): Result<void, AdminError> {
  if (actor.kind === 'operator') return ok(undefined);
  if (actor.organizationId !== organizationId) return fail('forbidden', 'not allowed for this member');
  if (!mayManageMembers(actor.role)) return fail('forbidden', `role '${actor.role}' cannot manage members`);
  if (ownerRoleInvolved && actor.role !== 'owner') return fail('forbidden', 'only an owner can change owners');
  return ok(undefined);
}

/**
 * Members of organizations, through the same roles as the rest of the admin API: invitations
 * (one-time links), roles with at least one owner kept, removal, and the password check the
 * portal signs in with. Expected refusals are `Result` errors; a rejected promise means a store failed.
 */
export function createMembersApi(stores: SafetyStores, now: () => Date) {
  const context = membersContext(stores, now);
  return {
    ...memberManagement(context),
    ...memberSignIn(context),
    /** For hosts loading a seed file: no actor (the host is the operator). */
    seed: memberSeed(context),
  };
}

/** What every part of the members API works with: the stores, the clock and the shared steps. */
type MembersContext = ReturnType<typeof membersContext>;

function membersContext(stores: SafetyStores, now: () => Date) {
  const { members, organizations } = stores;

  async function newMember(input: {
    organizationId: string;
    email: string;
    role: string;
    passwordHash: string | null;
    invitation: Invitation | null;
    /** See `InsertMemberOptions`. */
    unlessRemoved?: boolean;
    /** Checks the invitation caps (`MAX_PENDING_INVITATIONS`, `MAX_MEMBER_REMOVALS`) as the store inserts. */
    capped?: boolean;
    /** A seed file's id for the member; a new one otherwise. */
    id?: string;
    /** The email's rule: `stored` for a seed file's (see `TextRule`). */
    emailRule?: TextRule;
  }): Promise<Result<MemberRecord, AdminError>> {
    const email = normalizeEmail(input.email, input.emailRule);
    if (!email) return fail('invalid', 'email must be an email address');
    if (!isRole(input.role)) return fail('invalid', `role must be one of ${MEMBER_ROLES.join(', ')}`);
    if (!(await organizations.getOrganization(input.organizationId))) return fail('not_found', 'no such organization');
    const at = now();
    const record: MemberRecord = {
      id: input.id ?? randomUUID(),
      organizationId: input.organizationId,
      email,
      role: input.role,
      passwordHash: input.passwordHash,
      invitation: input.invitation,
      createdAt: at,
      updatedAt: at,
    };
    const caps = input.capped
      ? { pending: MAX_PENDING_INVITATIONS, removals: MAX_MEMBER_REMOVALS, now: at }
      : undefined;
    const inserted = await members.insertMember(record, { unlessRemoved: input.unlessRemoved ?? false, caps });
    if (inserted === true) return ok(record);
    return inserted === false
      ? fail('conflict', 'a member with this email or invitation exists')
      : capConflict(inserted);
  }

  /** The member of the organization, with the permission to change it checked. */
  async function changeable(
    actor: AdminActor,
    organizationId: string,
    memberId: string,
    newRole: MemberRole | null,
  ): Promise<Result<MemberRecord, AdminError>> {
    const allowed = permitMembers(actor, organizationId, newRole === 'owner');
    if (allowed.isErr()) return err(allowed.error);
    const member = await members.getMember(organizationId, memberId);
    if (!member) return fail('not_found', 'no such member');
    const ownerInvolved = permitMembers(actor, organizationId, member.role === 'owner');
    return ownerInvolved.isErr() ? err(ownerInvolved.error) : ok(member);
  }

  return { stores, members, now, newMember, changeable };
}

/**
 * The conflict a reached invitation cap answers. The store checks the caps as it inserts, so invitations
 * sent at once cannot pass them by their number.
 */
function capConflict(cap: InvitationCapReached): Result<never, AdminError> {
  return cap === 'pending_invitations'
    ? fail(
        'conflict',
        `the organization has ${MAX_PENDING_INVITATIONS} pending invitations, the most it may have: remove one, or wait until one is accepted or expires`,
      )
    : fail(
        'conflict',
        `the organization has removed ${MAX_MEMBER_REMOVALS} members, the most it may record (removals are kept): it can invite no one more, ask the operator of the service`,
      );
}

/** Invitations, roles and removal, by the operator and an organization's owners and admins. */
function memberManagement({ stores, members, now, newMember, changeable }: MembersContext) {
  return {
    /** A member without a password and the one-time link token that lets it set one. */
    async inviteMember(
      actor: AdminActor,
      organizationId: string,
      input: { email: string; role: string },
    ): Promise<Result<IssuedInvitation, AdminError>> {
      const allowed = permitMembers(actor, organizationId, input.role === 'owner');
      if (allowed.isErr()) return err(allowed.error);
      const token = newToken();
      const expiresAt = new Date(now().getTime() + INVITATION_TTL_MS);
      const created = await newMember({
        organizationId,
        ...input,
        passwordHash: null,
        invitation: { tokenHash: tokenHash(token), expiresAt },
        capped: true,
      });
      return created.map((record) => ({ member: memberView(record), token, expiresAt }));
    },

    async listMembers(actor: AdminActor, organizationId: string): Promise<Result<MemberView[], AdminError>> {
      if (actor.kind === 'member' && actor.organizationId !== organizationId)
        return fail('forbidden', 'not allowed for this member');
      return ok((await members.listMembers(organizationId)).map(memberView));
    },

    async setMemberRole(
      actor: AdminActor,
      organizationId: string,
      memberId: string,
      role: string,
    ): Promise<Result<MemberView, AdminError>> {
      if (!isRole(role)) return fail('invalid', `role must be one of ${MEMBER_ROLES.join(', ')}`);
      const member = await changeable(actor, organizationId, memberId, role);
      if (member.isErr()) return err(member.error);
      const expectedRole = member.value.role;
      const changed = await members.setMemberRole({ organizationId, memberId, role, expectedRole, now: now() });
      return changed.isOk() ? ok(memberView(changed.value)) : refusedChange(changed.error, 'demoted');
    },

    /** Removes the member and ends its portal sessions. */
    async removeMember(
      actor: AdminActor,
      organizationId: string,
      memberId: string,
    ): Promise<Result<MemberView, AdminError>> {
      const member = await changeable(actor, organizationId, memberId, null);
      if (member.isErr()) return err(member.error);
      const expectedRole = member.value.role;
      const removed = await members.removeMember({ organizationId, memberId, expectedRole, now: now() });
      if (removed.isErr()) return refusedChange(removed.error, 'removed');
      await stores.sessions.deleteMemberSessions(memberId);
      return ok(memberView(removed.value));
    },
  };
}

/** What the portal's sign-in pages need: invitation links and the password check. */
function memberSignIn({ members, now }: MembersContext) {
  return {
    /** The pending invitation of a link token (for the set-password page). */
    async invitation(token: string): Promise<Result<MemberView, AdminError>> {
      const member = await members.findInvitation(tokenHash(token), now());
      return member ? ok(memberView(member)) : fail('not_found', INVITATION_UNUSABLE);
    },

    /**
     * Sets the password of the invited member; the link works once. An unknown, used or expired link
     * is refused before the password is hashed, so it costs no scrypt work.
     */
    async acceptInvitation(token: string, password: string): Promise<Result<MemberView, AdminError>> {
      if (!(await members.findInvitation(tokenHash(token), now()))) return fail('not_found', INVITATION_UNUSABLE);
      const problem = passwordProblem(password);
      if (problem) return fail('invalid', problem);
      const passwordHash = await hashPassword(password);
      if (passwordHash.isErr()) return err(passwordHash.error);
      // Still the store's one atomic step: of two uses of the link, only the first sets the password.
      const accepted = await members.acceptInvitation({
        tokenHash: tokenHash(token),
        passwordHash: passwordHash.value,
        now: now(),
      });
      return accepted ? ok(memberView(accepted)) : fail('not_found', INVITATION_UNUSABLE);
    },

    /**
     * The member whose email and password these are, or null; `busy` when every password derivation place
     * is taken. An unknown email is checked against a decoy hash, so the answer takes as long either way.
     */
    async checkPassword(email: string, password: string): Promise<Result<MemberView | null, AdminError>> {
      const normalized = normalizeEmail(email);
      const member = normalized ? await members.findMemberByEmail(normalized) : null;
      const own = member?.passwordHash ?? null;
      const stored = own === null ? await decoyPasswordHash() : ok(own);
      if (stored.isErr()) return err(stored.error);
      const matches = await verifyPassword(password, stored.value);
      return matches.map((match) => (member && own !== null && match ? memberView(member) : null));
    },
  };
}

function memberSeed({ members, newMember }: MembersContext) {
  /** What the store holds of a seed member's email for the organization; null when nothing (insert it). */
  async function stored(organizationId: string, email: string): Promise<Result<SeededMember, AdminError> | null> {
    const member = await members.findMemberByEmail(email);
    if (member?.organizationId === organizationId) return ok({ removed: false, member: memberView(member) });
    // Removed here, then perhaps invited elsewhere: removed for this organization, never a conflict.
    const removedAt = await members.removedAt(organizationId, email);
    if (removedAt) return ok({ removed: true, removedAt });
    return member ? fail('conflict', 'this email is a member of another organization') : null;
  }

  return {
    /**
     * Inserts the member when the store has nothing of its email for the organization (hashing a
     * given password), under `id` when given (a seed file's, so ids last across memory-mode starts); a
     * member of the organization already stored is returned as it is (its id too), an email the
     * organization removed stays removed, and a member of another organization, or an `id` another
     * member has, is a conflict.
     */
    async importMember(input: {
      organizationId: string;
      email: string;
      role: string;
      password?: string;
      invitation?: Invitation;
      id?: string;
    }): Promise<Result<SeededMember, AdminError>> {
      // An email given back as stored before (see `TextRule`): the stored member is found by it.
      const email = normalizeEmail(input.email, 'stored');
      if (!email) return fail('invalid', 'email must be an email address');
      const before = await stored(input.organizationId, email);
      if (before) return before;
      if (input.password !== undefined) {
        const problem = passwordProblem(input.password);
        if (problem) return fail('invalid', problem);
      } else if (!input.invitation) return fail('invalid', 'a member needs a password or an invitation');
      const passwordHash: Result<string | null, AdminError> =
        input.password === undefined ? ok(null) : await hashPassword(input.password);
      if (passwordHash.isErr()) return err(passwordHash.error);
      const invitation = input.invitation ?? null;
      const created = await newMember({
        ...input,
        email,
        emailRule: 'stored',
        passwordHash: passwordHash.value,
        invitation,
        unlessRemoved: true,
      });
      // Another host seeding at once, or a removal meanwhile: the store now holds what won. Else the id or
      // the invitation is another member's, which is never overwritten.
      if (created.isErr() && created.error.code === 'conflict')
        return (
          (await stored(input.organizationId, email)) ??
          fail('conflict', `another member has ${input.id === undefined ? '' : 'this id or '}this invitation`)
        );
      return created.map((record): SeededMember => ({ removed: false, member: memberView(record) }));
    },
  };
}

export type MembersApi = ReturnType<typeof createMembersApi>;
