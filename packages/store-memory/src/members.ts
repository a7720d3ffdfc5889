import type {
  AcceptInvitationParams,
  InsertMemberOptions,
  InvitationCapReached,
  MemberChangeOutcome,
  MemberRecord,
  MemberStore,
  RemoveMemberParams,
  SetMemberRoleParams,
} from '@tron-safety/core';
import { countPendingInvitations, invitationCapReached } from '@tron-safety/core/internal';
import { err, ok } from 'neverthrow';
import { byCreation } from './order.js';

const copyMember = (m: MemberRecord): MemberRecord => ({ ...m, invitation: m.invitation && { ...m.invitation } });

/** Members in memory; each method reads and writes without yielding, so it is one atomic step. */
export class MemoryMemberStore implements MemberStore {
  readonly #byId = new Map<string, MemberRecord>();
  readonly #idByEmail = new Map<string, string>();
  readonly #idByInvitation = new Map<string, string>();
  /** When each organization last removed a member's email, by organization and email: as few as removals. */
  readonly #removedAt = new Map<string, Map<string, Date>>();

  async insertMember(record: MemberRecord, options: InsertMemberOptions = {}): Promise<boolean | InvitationCapReached> {
    const { caps } = options;
    if (caps) {
      const pending = countPendingInvitations(this.#membersOf(record.organizationId), caps.now);
      const capReached = invitationCapReached({ pending, removals: this.#removals(record.organizationId) }, caps);
      if (capReached) return capReached;
    }
    if (this.#byId.has(record.id) || this.#idByEmail.has(record.email)) return false;
    // One member per invitation link, as PostgreSQL's UNIQUE (invitation_hash).
    if (record.invitation && this.#idByInvitation.has(record.invitation.tokenHash)) return false;
    if (options.unlessRemoved && this.#removedAt.get(record.organizationId)?.has(record.email)) return false;
    this.#byId.set(record.id, copyMember(record));
    this.#idByEmail.set(record.email, record.id);
    if (record.invitation) this.#idByInvitation.set(record.invitation.tokenHash, record.id);
    return true;
  }

  async findMemberByEmail(email: string): Promise<MemberRecord | null> {
    return this.#copyOf(this.#idByEmail.get(email));
  }

  async getMember(organizationId: string, memberId: string): Promise<MemberRecord | null> {
    const member = this.#byId.get(memberId);
    return member?.organizationId === organizationId ? copyMember(member) : null;
  }

  async listMembers(organizationId: string): Promise<MemberRecord[]> {
    return this.#membersOf(organizationId).sort(byCreation).map(copyMember);
  }

  async findInvitation(tokenHash: string, now: Date): Promise<MemberRecord | null> {
    const member = this.#invited(tokenHash, now);
    return member ? copyMember(member) : null;
  }

  async acceptInvitation(params: AcceptInvitationParams): Promise<MemberRecord | null> {
    const member = this.#invited(params.tokenHash, params.now);
    if (!member) return null;
    this.#idByInvitation.delete(params.tokenHash);
    member.passwordHash = params.passwordHash;
    member.invitation = null;
    member.updatedAt = params.now;
    return copyMember(member);
  }

  async setMemberRole(params: SetMemberRoleParams): Promise<MemberChangeOutcome> {
    const member = this.#byId.get(params.memberId);
    if (member?.organizationId !== params.organizationId) return err('not_found');
    if (member.role !== params.expectedRole) return err('role_changed');
    if (params.role !== 'owner' && this.#isLastOwner(member)) return err('last_owner');
    member.role = params.role;
    member.updatedAt = params.now;
    return ok(copyMember(member));
  }

  async removeMember(params: RemoveMemberParams): Promise<MemberChangeOutcome> {
    const member = this.#byId.get(params.memberId);
    if (member?.organizationId !== params.organizationId) return err('not_found');
    if (member.role !== params.expectedRole) return err('role_changed');
    if (this.#isLastOwner(member)) return err('last_owner');
    this.#byId.delete(member.id);
    this.#idByEmail.delete(member.email);
    if (member.invitation) this.#idByInvitation.delete(member.invitation.tokenHash);
    const removals = this.#removedAt.get(member.organizationId) ?? new Map<string, Date>();
    this.#removedAt.set(member.organizationId, removals.set(member.email, new Date(params.now)));
    return ok(copyMember(member));
  }

  async removedAt(organizationId: string, email: string): Promise<Date | null> {
    const at = this.#removedAt.get(organizationId)?.get(email);
    return at ? new Date(at) : null;
  }

  async countRemovals(organizationId: string): Promise<number> {
    return this.#removals(organizationId);
  }

  async purgeExpiredInvitations(now: Date, limit = Infinity): Promise<number> {
    let purged = 0;
    for (const member of this.#byId.values()) {
      if (purged >= limit) break;
      if (member.passwordHash !== null || !member.invitation || member.invitation.expiresAt > now) continue;
      this.#byId.delete(member.id);
      this.#idByEmail.delete(member.email);
      this.#idByInvitation.delete(member.invitation.tokenHash);
      purged++;
    }
    return purged;
  }

  #membersOf(organizationId: string): MemberRecord[] {
    return [...this.#byId.values()].filter((m) => m.organizationId === organizationId);
  }

  #removals(organizationId: string): number {
    return this.#removedAt.get(organizationId)?.size ?? 0;
  }

  #copyOf(id: string | undefined): MemberRecord | null {
    const member = id === undefined ? undefined : this.#byId.get(id);
    return member ? copyMember(member) : null;
  }

  #invited(tokenHash: string, now: Date): MemberRecord | null {
    const id = this.#idByInvitation.get(tokenHash);
    const member = id === undefined ? undefined : this.#byId.get(id);
    return member?.invitation && member.invitation.expiresAt > now ? member : null;
  }

  /** See `MemberChangeOutcome`'s `last_owner`. */
  #isLastOwner(member: MemberRecord): boolean {
    if (member.role !== 'owner') return false;
    let anotherOwner = false;
    for (const other of this.#byId.values()) {
      if (other.id === member.id || other.organizationId !== member.organizationId || other.role !== 'owner') continue;
      if (other.passwordHash !== null) return false;
      anotherOwner = true;
    }
    return member.passwordHash !== null || !anotherOwner;
  }
}
