import type {
  AcceptInvitationParams,
  InsertMemberOptions,
  InvitationCapReached,
  MemberChangeOutcome,
  MemberRecord,
  MemberRole,
  MemberStore,
  RemoveMemberParams,
  SetMemberRoleParams,
} from '@tron-safety/core';
import { invitationCapReached } from '@tron-safety/core/internal';
import * as t from 'io-ts';
import { err, ok } from 'neverthrow';
import type pg from 'pg';
import { inTransaction } from './connection.js';
import { Count, decodeRow, decodeRows, PgDate } from './rows.js';

const Role = t.keyof({ owner: null, admin: null, developer: null, billing: null, viewer: null });
const MemberRoleRow = t.type({ role: Role });
const RemovalRow = t.type({ removed_at: PgDate });
const CountRow = t.type({ count: Count });
const InvitationCountsRow = t.type({ pending: Count, removals: Count });
const MemberRow = t.type({
  id: t.string,
  organization_id: t.string,
  email: t.string,
  role: Role,
  password_hash: t.union([t.string, t.null]),
  invitation_hash: t.union([t.string, t.null]),
  invitation_expires_at: t.union([PgDate, t.null]),
  created_at: PgDate,
  updated_at: PgDate,
});

const COLUMNS =
  'id, organization_id, email, role, password_hash, invitation_hash, invitation_expires_at, created_at, updated_at';

/**
 * Advisory lock class of an organization's member changes ("memb" in ASCII), object = hash of the
 * organization id: a role change or removal counts the owners and writes under it, so two
 * concurrent demotions cannot both see another owner; a seed insert reads the removals under it, and
 * a capped insert (an invitation) counts the pending invitations and removals under it, so
 * concurrent invitations cannot pass a cap by their number.
 */
const MEMBERS_LOCK_CLASS = 1835361634;

/** Portal members; passwords as scrypt hashes, invitation tokens as SHA-256 (hashed by the core). */
export class PostgresMemberStore implements MemberStore {
  constructor(private readonly pool: pg.Pool) {}

  async insertMember(record: MemberRecord, options: InsertMemberOptions = {}): Promise<boolean | InvitationCapReached> {
    const { unlessRemoved, caps } = options;
    if (!unlessRemoved && !caps) return insertRow(this.pool, record);
    // Under the organization's member lock, which a removal and every capped insert hold until they commit:
    // a removal either came first (and is seen here) or comes after this insert (and removes the member).
    return inTransaction(this.pool, async (client) => {
      const { organizationId, email } = record;
      await lockMembers(client, organizationId);
      if (caps) {
        const { rows } = await client.query(
          `SELECT (SELECT count(*) FROM portal_members WHERE organization_id = $1 AND password_hash IS NULL
                     AND invitation_expires_at > $2) AS pending,
                  (SELECT count(*) FROM portal_member_removals WHERE organization_id = $1) AS removals`,
          [organizationId, caps.now],
        );
        const capReached = invitationCapReached(decodeRow(InvitationCountsRow, rows, 'portal_members')!, caps);
        if (capReached) return capReached;
      }
      if (unlessRemoved) {
        const removed = await client.query(
          'SELECT 1 FROM portal_member_removals WHERE organization_id = $1 AND email = $2',
          [organizationId, email],
        );
        if (removed.rowCount !== 0) return false;
      }
      return insertRow(client, record);
    });
  }

  findMemberByEmail(email: string): Promise<MemberRecord | null> {
    return this.#one(`SELECT ${COLUMNS} FROM portal_members WHERE email = $1`, [email]);
  }

  getMember(organizationId: string, memberId: string): Promise<MemberRecord | null> {
    return this.#one(`SELECT ${COLUMNS} FROM portal_members WHERE organization_id = $1 AND id = $2`, [
      organizationId,
      memberId,
    ]);
  }

  async listMembers(organizationId: string): Promise<MemberRecord[]> {
    const { rows } = await this.pool.query(
      `SELECT ${COLUMNS} FROM portal_members WHERE organization_id = $1 ORDER BY created_at, id COLLATE "C"`,
      [organizationId],
    );
    return decodeRows(MemberRow, rows, 'portal_members').map(toRecord);
  }

  findInvitation(tokenHash: string, now: Date): Promise<MemberRecord | null> {
    return this.#one(
      `SELECT ${COLUMNS} FROM portal_members WHERE invitation_hash = $1 AND invitation_expires_at > $2`,
      [tokenHash, now],
    );
  }

  acceptInvitation(params: AcceptInvitationParams): Promise<MemberRecord | null> {
    // One conditional UPDATE: of two uses of one link, only the first still finds the invitation.
    return this.#one(
      `UPDATE portal_members
          SET password_hash = $2, invitation_hash = NULL, invitation_expires_at = NULL, updated_at = $3
        WHERE invitation_hash = $1 AND invitation_expires_at > $3
        RETURNING ${COLUMNS}`,
      [params.tokenHash, params.passwordHash, params.now],
    );
  }

  setMemberRole(params: SetMemberRoleParams): Promise<MemberChangeOutcome> {
    return this.#changeKeepingAnOwner(
      params,
      `UPDATE portal_members m SET role = $4, updated_at = $5
        WHERE m.organization_id = $1 AND m.id = $2 AND m.role = $3 AND ($4 = 'owner' OR ${KEEPS_AN_OWNER})
        RETURNING ${COLUMNS}`,
      [params.role, params.now],
    );
  }

  removeMember(params: RemoveMemberParams): Promise<MemberChangeOutcome> {
    return this.#changeKeepingAnOwner(
      params,
      `WITH removed AS (
         DELETE FROM portal_members m
          WHERE m.organization_id = $1 AND m.id = $2 AND m.role = $3 AND ${KEEPS_AN_OWNER}
          RETURNING ${COLUMNS}),
       recorded AS (
         INSERT INTO portal_member_removals (organization_id, email, member_id, removed_at)
         SELECT organization_id, email, id, $4 FROM removed
         ON CONFLICT (organization_id, email)
           DO UPDATE SET member_id = EXCLUDED.member_id, removed_at = EXCLUDED.removed_at)
       SELECT ${COLUMNS} FROM removed`,
      [params.now],
    );
  }

  async removedAt(organizationId: string, email: string): Promise<Date | null> {
    const { rows } = await this.pool.query(
      'SELECT removed_at FROM portal_member_removals WHERE organization_id = $1 AND email = $2',
      [organizationId, email],
    );
    return decodeRow(RemovalRow, rows, 'portal_member_removals')?.removed_at ?? null;
  }

  async countRemovals(organizationId: string): Promise<number> {
    const { rows } = await this.pool.query(
      'SELECT count(*) AS count FROM portal_member_removals WHERE organization_id = $1',
      [organizationId],
    );
    return decodeRow(CountRow, rows, 'portal_member_removals')?.count ?? 0;
  }

  async purgeExpiredInvitations(now: Date, limit = 2_147_483_647): Promise<number> {
    // The outer DELETE checks the condition again: a row the subquery chose may be accepted (a password set)
    // while the DELETE waits for its lock, and is then re-read and kept rather than deleted by its id alone.
    const result = await this.pool.query(
      `DELETE FROM portal_members WHERE password_hash IS NULL AND invitation_expires_at <= $1 AND id IN (
         SELECT id FROM portal_members WHERE password_hash IS NULL AND invitation_expires_at <= $1 LIMIT $2)`,
      [now, limit],
    );
    return result.rowCount ?? 0;
  }

  /** Runs the conditional change under the organization's lock; tells why it did not apply. */
  #changeKeepingAnOwner(
    params: { organizationId: string; memberId: string; expectedRole: MemberRole },
    sql: string,
    extra: unknown[],
  ): Promise<MemberChangeOutcome> {
    return inTransaction(this.pool, async (client) => {
      await lockMembers(client, params.organizationId);
      // Each statement after the lock sees every change committed before it was granted.
      const { organizationId, memberId, expectedRole } = params;
      const changed = await client.query(sql, [organizationId, memberId, expectedRole, ...extra]);
      const row = decodeRow(MemberRow, changed.rows, 'portal_members');
      if (row) return ok(toRecord(row));
      const now = await client.query('SELECT role FROM portal_members WHERE organization_id = $1 AND id = $2', [
        organizationId,
        memberId,
      ]);
      const current = decodeRow(MemberRoleRow, now.rows, 'portal_members');
      if (!current) return err('not_found');
      return err(current.role === expectedRole ? 'last_owner' : 'role_changed');
    });
  }

  async #one(sql: string, params: unknown[]): Promise<MemberRecord | null> {
    const { rows } = await this.pool.query(sql, params);
    const row = decodeRow(MemberRow, rows, 'portal_members');
    return row ? toRecord(row) : null;
  }
}

/** Takes the organization's member lock until the transaction ends. */
async function lockMembers(client: pg.PoolClient, organizationId: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MEMBERS_LOCK_CLASS, organizationId]);
}

/** Inserts the row; false when its id, email or invitation exists. */
async function insertRow(db: pg.Pool | pg.PoolClient, record: MemberRecord): Promise<boolean> {
  // No conflict target: a clash on the id, the email or the invitation all mean "not inserted".
  const result = await db.query(
    `INSERT INTO portal_members (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
    [
      record.id,
      record.organizationId,
      record.email,
      record.role,
      record.passwordHash,
      record.invitation?.tokenHash ?? null,
      record.invitation?.expiresAt ?? null,
      record.createdAt,
      record.updatedAt,
    ],
  );
  return result.rowCount === 1;
}

/**
 * Changing or removing the row m keeps an owner: it is not an owner, or another owner who can sign in
 * remains, or it has never signed in itself and another (invited) owner remains.
 */
const KEEPS_AN_OWNER = `(m.role <> 'owner' OR EXISTS (
  SELECT 1 FROM portal_members o WHERE o.organization_id = m.organization_id AND o.role = 'owner' AND o.id <> m.id
    AND (o.password_hash IS NOT NULL OR m.password_hash IS NULL)))`;

function toRecord(row: t.TypeOf<typeof MemberRow>): MemberRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    role: row.role,
    passwordHash: row.password_hash,
    invitation:
      row.invitation_hash !== null && row.invitation_expires_at !== null
        ? { tokenHash: row.invitation_hash, expiresAt: row.invitation_expires_at }
        : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
