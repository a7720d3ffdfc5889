import type { Result } from 'neverthrow';
/**
 * Members: the people of an organization who sign in to the developer portal (spec
 * Authentication 3–4). A member is created by invitation: until the invitation is accepted the
 * member has no password and cannot sign in. An email belongs to one member across all
 * organizations, so signing in needs no organization. Only hashes are stored: the password's
 * (scrypt, with its salt and parameters) and the invitation token's (SHA-256; it is random).
 */
export type MemberRole = 'owner' | 'admin' | 'developer' | 'billing' | 'viewer';

export interface Invitation {
  /** Lower-case hex SHA-256 of the one-time token in the invitation link. */
  tokenHash: string;
  expiresAt: Date;
}

export interface MemberRecord {
  id: string;
  organizationId: string;
  /** Trimmed and lower-cased by the core; unique across all members. */
  email: string;
  role: MemberRole;
  /** Null until an invitation is accepted. */
  passwordHash: string | null;
  /** The pending invitation; null once accepted (or for a member seeded with a password). */
  invitation: Invitation | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The changed (or removed) member; `last_owner`: the change would leave the organization without an
 * owner who can sign in (one who has set a password; an invited owner may never accept), or without
 * any owner, so nothing changed.
 */
/**
 * `role_changed`: the member no longer has `expectedRole` (another change came first), so the
 * permission decided on that role does not hold.
 */
export type MemberChangeOutcome = Result<MemberRecord, 'not_found' | 'last_owner' | 'role_changed'>;

export interface AcceptInvitationParams {
  tokenHash: string;
  passwordHash: string;
  now: Date;
}

export interface SetMemberRoleParams {
  organizationId: string;
  memberId: string;
  role: MemberRole;
  /** The role the caller's permission check saw: the change applies only while the member still has it. */
  expectedRole: MemberRole;
  now: Date;
}

export interface RemoveMemberParams {
  organizationId: string;
  memberId: string;
  /** As in `SetMemberRoleParams`. */
  expectedRole: MemberRole;
  /** When the removal is recorded (see `MemberStore.removedAt`). */
  now: Date;
}

/**
 * Caps on an organization's invitations that an insert checks in its own atomic step, so invitations
 * sent at once cannot pass them by their number.
 */
export interface InvitationCaps {
  /** Invitations of the organization that can still be accepted at `now`, at which none is inserted. */
  pending: number;
  /** Removal records of the organization (`MemberStore.countRemovals`) at which none is inserted. */
  removals: number;
  now: Date;
}

/** The cap that refused a member (see `InvitationCaps`): nothing changed. */
export type InvitationCapReached = 'pending_invitations' | 'removals';

/** Invitations among `members` that can still be accepted at `now`. */
export function countPendingInvitations(members: readonly MemberRecord[], now: Date): number {
  let pending = 0;
  for (const m of members) if (m.passwordHash === null && m.invitation && m.invitation.expiresAt > now) pending++;
  return pending;
}

/**
 * The cap of `caps` an organization with `pending` invitations (`countPendingInvitations`) and `removals`
 * removal records has reached, or null: the rule every store applies.
 */
export function invitationCapReached(
  counts: { pending: number; removals: number },
  caps: InvitationCaps,
): InvitationCapReached | null {
  if (counts.pending >= caps.pending) return 'pending_invitations';
  return counts.removals >= caps.removals ? 'removals' : null;
}

export interface InsertMemberOptions {
  /**
   * Refuse (false) when the organization has removed a member with this email, in the same atomic step
   * as the insert: a seed file still listing a member removed since must not bring it back.
   */
  unlessRemoved?: boolean;
  /** Refuse when a cap is reached (`invitationCapReached`, checked first), in the same atomic step. */
  caps?: InvitationCaps;
}

export interface MemberStore {
  /**
   * Inserts a member; false (and no change) when its id, its email or its invitation's token hash
   * exists, or (with `unlessRemoved`) when the organization removed a member with this email; the cap
   * reached (with `caps`) when one is.
   */
  insertMember(record: MemberRecord, options?: InsertMemberOptions): Promise<boolean | InvitationCapReached>;
  /** The member with this (normalized) email, in any organization, or null. */
  findMemberByEmail(email: string): Promise<MemberRecord | null>;
  /** The member `memberId` of the organization, or null (a member of another organization is null too). */
  getMember(organizationId: string, memberId: string): Promise<MemberRecord | null>;
  /** Every member of the organization, oldest first (the same creation time: by id, in code units). */
  listMembers(organizationId: string): Promise<MemberRecord[]>;
  /** The member whose invitation has this token hash and expires after `now`, or null. */
  findInvitation(tokenHash: string, now: Date): Promise<MemberRecord | null>;
  /**
   * One atomic step: when a member's invitation has `tokenHash` and expires after `now`, sets the
   * password and clears the invitation (so the link works once). Null when there is no such
   * invitation, or it expired, or it was used already.
   */
  acceptInvitation(params: AcceptInvitationParams): Promise<MemberRecord | null>;
  /**
   * One atomic step: changes the member's role while it is still `expectedRole`, unless that
   * demotes the organization's last owner. Of concurrent demotions of the last two owners, at most
   * one succeeds.
   */
  setMemberRole(params: SetMemberRoleParams): Promise<MemberChangeOutcome>;
  /**
   * One atomic step: deletes the member while its role is still `expectedRole`, unless it is the
   * organization's last owner, and records that the organization removed its email (`removedAt`).
   * A removed member is no member at all (no listing, sign-in or session), and its email is free
   * for a new invitation, in this organization or another.
   */
  removeMember(params: RemoveMemberParams): Promise<MemberChangeOutcome>;
  /**
   * When the organization last removed a member with this (normalized) email, or null: kept like a
   * revoked key, so loading a seed file never re-creates a member removed since.
   */
  removedAt(organizationId: string, email: string): Promise<Date | null>;
  /** How many emails the organization has removal records of (`removedAt`): the core caps them. */
  countRemovals(organizationId: string): Promise<number>;
  /**
   * Deletes members whose invitation expired at or before `now` and was never accepted (no
   * password): at most `limit` (default: all). Their emails are free for a new invitation; nothing
   * is recorded in `removedAt`. Returns how many; a sweeper repeats while `limit` come back.
   */
  purgeExpiredInvitations(now: Date, limit?: number): Promise<number>;
}
