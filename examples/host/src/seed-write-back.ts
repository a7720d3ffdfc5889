// Memory mode with a seed file (SAFETY_SEED_FILE): the file is the host's only durable state, so a
// change the portal makes to API keys or members is made in the file too, or not at all. Without
// this, a restart brought a revoked (leaked) key back, undid a rotation, let a removed member sign
// in again and dropped created keys and invitations.
//
// The key and member stores are wrapped below the core's admin API: the core has checked the role
// and the input, and the store call is where the change happens. Each change holds the seed file's
// lock (the admin CLI's) and edits the one entry it concerns in the file as it is now, so an admin
// CLI command run meanwhile is kept. Nothing is written for the keys and members the seed itself
// loads at start (`arm` comes after that). Of a key the file gets what the store keeps: its hash and
// display prefix, never the key; of a member its id, so the member keeps it after a restart.
//
// If the file cannot be changed, the store call rejects with `SeedFileNotUpdated` and memory is as it
// was, so memory never holds a change a restart would undo:
// - keys (create, rotate, revoke): the file first, then memory, which cannot refuse what it was
//   checked to allow under the lock; a rotation's new key and the old key's revocation are one write;
// - invitations: the file first (an email the file already has is refused like one in memory);
// - role changes and removals: memory first, since the store decides the last-owner rule, then the
//   file; when the file fails the change is undone in memory (the same record put back, which nothing
//   else can race under the lock). Writing the file first would write for a refused removal of the
//   last owner and need a second write, which could fail too, to put it back.
// The host's sweep deletes invitations that expired unaccepted from the file and from memory alike
// (`sweep`), holding the lock, so neither the file nor memory grows with them.
import type {
  ApiKeyRecord,
  ApiKeyStore,
  InvitationCaps,
  KeyCaps,
  MemberChangeOutcome,
  MemberRecord,
  MemberStore,
  SafetyStores,
} from '@tron-safety/core';
import { countKeys, countPendingInvitations, invitationCapReached, keyCapReached } from '@tron-safety/core/internal';
import {
  emailOf,
  keyHashOf,
  loadSeedFile,
  type SeedFile,
  type SeedMember,
  type SeedOrganization,
} from './seed-file.js';
import { editSeedFile } from './seed-file-edit.js';
import { lockSeedFile } from './seed-file-lock.js';

/** The seed file could not be locked, read or written: the change was not made. */
export class SeedFileNotUpdated extends Error {}

/** What a member of the portal reads when its change could not be saved. */
export const NOT_SAVED_MESSAGE =
  "Nothing was changed: the service could not save this change durably (its seed file could not be updated). Try again in a moment; if it keeps failing, tell the service's operator.";

export interface SeedWriteBack {
  /** The stores to build the service on: key and member changes are written to the seed file once armed. */
  stores: SafetyStores;
  /** Starts writing changes to the file; call it once the seed file itself is loaded. */
  arm(): void;
  /**
   * Once armed, deletes the invitations that expired unaccepted at `now` from the file and from memory
   * (`sweptInvitations`); answers how many entries left the file. Nothing without a seed file (the
   * stores' own sweep deletes them from memory, or PostgreSQL).
   */
  sweep(now: Date): Promise<number>;
}

/** The write-back of a memory-mode host with a seed file; the stores unchanged otherwise. */
export function withSeedWriteBack(
  stores: SafetyStores,
  host: { kind: 'memory' | 'postgres'; seedFile: string | null },
): SeedWriteBack {
  if (host.kind !== 'memory' || host.seedFile === null) return { stores, arm: () => {}, sweep: async () => 0 };
  const file = seedFileOf(host.seedFile);
  let armed = false;
  const durable = { keys: durableKeys(stores.apiKeys, file), members: durableMembers(stores.members, file) };
  const current = () => (armed ? durable : { keys: stores.apiKeys, members: stores.members });
  const apiKeys: ApiKeyStore = {
    insertKey: (record, caps) => current().keys.insertKey(record, caps),
    findKeyByHash: (hash) => stores.apiKeys.findKeyByHash(hash),
    listKeys: (organizationId) => stores.apiKeys.listKeys(organizationId),
    revokeKey: (organizationId, keyId, now) => current().keys.revokeKey(organizationId, keyId, now),
    rotateKey: (params) => current().keys.rotateKey(params),
  };
  const members: MemberStore = {
    insertMember: (record, options) => current().members.insertMember(record, options),
    findMemberByEmail: (email) => stores.members.findMemberByEmail(email),
    getMember: (organizationId, memberId) => stores.members.getMember(organizationId, memberId),
    listMembers: (organizationId) => stores.members.listMembers(organizationId),
    findInvitation: (tokenHash, now) => stores.members.findInvitation(tokenHash, now),
    acceptInvitation: (params) => current().members.acceptInvitation(params),
    setMemberRole: (params) => current().members.setMemberRole(params),
    removeMember: (params) => current().members.removeMember(params),
    removedAt: (organizationId, email) => stores.members.removedAt(organizationId, email),
    countRemovals: (organizationId) => stores.members.countRemovals(organizationId),
    // The host sweeps through `sweep` in this mode, which keeps the file in step (see openStores).
    purgeExpiredInvitations: (now, limit) => stores.members.purgeExpiredInvitations(now, limit),
  };
  return {
    stores: { ...stores, apiKeys, members },
    arm: () => void (armed = true),
    sweep: async (now) => (armed ? sweptInvitations(stores.members, file, now) : 0),
  };
}

/** The seed file as the write-back changes it: under its lock, one entry at a time. */
interface SeedFileAccess {
  /** Runs `change` holding the file's lock. */
  locked<T>(change: () => Promise<T>): Promise<T>;
  /** The file as it is now. */
  read(): Promise<SeedFile>;
  /** One edit of the file (see `editSeedFile`). */
  edit(change: (seed: SeedFile) => boolean): Promise<void>;
}

function seedFileOf(path: string): SeedFileAccess {
  const notUpdated = (e: unknown) =>
    new SeedFileNotUpdated(`the seed file ${path} was not updated: ${(e as Error).message}`, { cause: e });
  return {
    async locked(change) {
      const release = await lockSeedFile(path).catch((e: unknown) => Promise.reject(notUpdated(e)));
      try {
        return await change();
      } finally {
        release();
      }
    },
    async read() {
      const loaded = await loadSeedFile(path);
      if (loaded.isErr()) throw notUpdated(new Error(loaded.error.message));
      return loaded.value;
    },
    edit: (change) => editSeedFile(path, change).catch((e: unknown) => Promise.reject(notUpdated(e))),
  };
}

/** The organization's entry; a change to an organization the file lacks cannot be kept, so it is refused. */
function organizationIn(seed: SeedFile, organizationId: string): SeedOrganization {
  const org = seed.organizations.find((o) => o.id.toLowerCase() === organizationId);
  if (!org) throw new Error(`organization ${organizationId} is not in the seed file`);
  return org;
}

/**
 * Marks the key revoked in the file, keeping only its hash and prefix (a hand-written entry gave it in
 * full); false when the file does not list it (absent, it is gone after a restart anyway).
 */
function revokeIn(seed: SeedFile, key: ApiKeyRecord): boolean {
  const org = seed.organizations.find((o) => o.id.toLowerCase() === key.organizationId);
  const entry = org?.api_keys.find((k) => k.id?.toLowerCase() === key.id || keyHashOf(k) === key.hash);
  if (!entry || entry.revoked) return false;
  entry.revoked = true;
  delete entry.key;
  entry.key_sha256 = key.hash;
  entry.prefix = key.prefix;
  return true;
}

/** A key's seed entry: its hash and prefix, as the store keeps them. */
const keyEntry = (record: ApiKeyRecord) => ({
  id: record.id,
  label: record.label,
  key_sha256: record.hash,
  prefix: record.prefix,
  revoked: false,
});

function durableKeys(
  keys: ApiKeyStore,
  file: SeedFileAccess,
): Pick<ApiKeyStore, 'insertKey' | 'revokeKey' | 'rotateKey'> {
  const active = async (organizationId: string, keyId: string) =>
    (await keys.listKeys(organizationId)).find((k) => k.id === keyId && k.revokedAt === null);
  // Memory changes keys only under the lock held here, so a cap not reached now is not reached when memory inserts.
  const capReached = async (organizationId: string, caps: KeyCaps | undefined) =>
    caps ? keyCapReached(countKeys(await keys.listKeys(organizationId)), caps) : null;
  return {
    insertKey: (record, caps) =>
      file.locked(async () => {
        const reached = await capReached(record.organizationId, caps);
        if (reached) return reached;
        if (await keys.findKeyByHash(record.hash)) return false;
        let known = false;
        await file.edit((seed) => {
          known = seed.organizations.some((o) => o.api_keys.some((k) => keyHashOf(k) === record.hash));
          if (!known) organizationIn(seed, record.organizationId).api_keys.push(keyEntry(record));
          return !known;
        });
        return !known && keys.insertKey(record, caps);
      }),
    revokeKey: (organizationId, keyId, now) =>
      file.locked(async () => {
        const key = await active(organizationId, keyId);
        if (key) await file.edit((seed) => revokeIn(seed, key));
        return keys.revokeKey(organizationId, keyId, now);
      }),
    rotateKey: (params) =>
      file.locked(async () => {
        const key = await active(params.organizationId, params.keyId);
        // At the cap memory refuses it too, with the cap's answer: nothing to write.
        if (key && !(await capReached(params.organizationId, params.caps)))
          await file.edit((seed) => {
            revokeIn(seed, key);
            organizationIn(seed, params.organizationId).api_keys.push(keyEntry(params.replacement));
            return true;
          });
        return keys.rotateKey(params);
      }),
  };
}

const sameEmail = (entry: { email: string }, email: string) => emailOf(entry) === email;

/** The member's entry in the file, in any organization (an email belongs to one member), or undefined. */
function memberIn(seed: SeedFile, email: string) {
  for (const org of seed.organizations) {
    const entry = org.members?.find((m) => sameEmail(m, email));
    if (entry) return { org, entry };
  }
  return undefined;
}

/**
 * The member's entry in its own organization, or undefined: a role change or removal must never reach a
 * member of the same email that an admin CLI command put in another organization meanwhile.
 */
function memberOf(seed: SeedFile, member: { organizationId: string; email: string }) {
  const org = organizationIn(seed, member.organizationId);
  const entry = org.members?.find((m) => sameEmail(m, member.email));
  return entry && { org, entry };
}

/** A member change made in memory goes to the file, or is undone in memory (`undo` says whether it could be). */
async function thenFile(
  file: SeedFileAccess,
  change: {
    outcome: MemberChangeOutcome;
    edit: (seed: SeedFile, member: MemberRecord) => boolean;
    undo: (member: MemberRecord) => Promise<boolean>;
  },
): Promise<MemberChangeOutcome> {
  const { outcome } = change;
  if (outcome.isErr()) return outcome;
  try {
    await file.edit((seed) => change.edit(seed, outcome.value));
  } catch (e) {
    if (await change.undo(outcome.value)) throw e;
    throw new SeedFileNotUpdated(`${(e as Error).message}; the change could not be undone in memory either`, {
      cause: e,
    });
  }
  return outcome;
}

/**
 * The file has no password hash to keep, so a used link is expired there first: after a restart the member
 * is pending again with a dead link (an owner re-invites), never with a link that sets a password twice.
 */
function acceptedInFileFirst(members: MemberStore, file: SeedFileAccess): MemberStore['acceptInvitation'] {
  return (params) =>
    file.locked(async () => {
      const invited = await members.findInvitation(params.tokenHash, params.now);
      if (invited)
        await file.edit((seed) => {
          const entry = memberOf(seed, invited)?.entry;
          if (entry?.invitation?.token_sha256 !== params.tokenHash) return false;
          entry.invitation.expires_at = params.now.toISOString();
          return true;
        });
      return members.acceptInvitation(params);
    });
}

/** The invitation cap memory has reached, or null; memory changes members only under the lock held here, as for keys. */
async function invitationCapIn(members: MemberStore, organizationId: string, caps: InvitationCaps | undefined) {
  if (!caps) return null;
  const pending = countPendingInvitations(await members.listMembers(organizationId), caps.now);
  return invitationCapReached({ pending, removals: await members.countRemovals(organizationId) }, caps);
}

/** An invitation goes to the file first (an email the file already has is refused like one in memory). */
function invitedInFileFirst(members: MemberStore, file: SeedFileAccess): MemberStore['insertMember'] {
  return (record, options = {}) =>
    file.locked(async () => {
      if (!record.invitation) throw new Error('the portal only invites members');
      const reached = await invitationCapIn(members, record.organizationId, options.caps);
      if (reached) return reached;
      const invitation = {
        token_sha256: record.invitation.tokenHash,
        expires_at: record.invitation.expiresAt.toISOString(),
      };
      if (await members.findMemberByEmail(record.email)) return false;
      let known = false;
      await file.edit((seed) => {
        known = memberIn(seed, record.email) !== undefined;
        if (!known)
          (organizationIn(seed, record.organizationId).members ??= []).push({
            id: record.id,
            email: record.email,
            role: record.role,
            invitation,
          });
        return !known;
      });
      return !known && members.insertMember(record, options);
    });
}

function durableMembers(
  members: MemberStore,
  file: SeedFileAccess,
): Pick<MemberStore, 'insertMember' | 'acceptInvitation' | 'setMemberRole' | 'removeMember'> {
  return {
    insertMember: invitedInFileFirst(members, file),
    acceptInvitation: acceptedInFileFirst(members, file),
    setMemberRole: (params) =>
      file.locked(async () => {
        const changed = await members.setMemberRole(params);
        const restore = { ...params, role: params.expectedRole, expectedRole: params.role };
        return thenFile(file, {
          outcome: changed,
          edit: (seed, member) => {
            const entry = memberOf(seed, member)?.entry;
            if (!entry || entry.role === member.role) return false;
            entry.role = member.role;
            return true;
          },
          undo: async () => (await members.setMemberRole(restore)).isOk(),
        });
      }),
    removeMember: (params) =>
      file.locked(async () => {
        const removed = await members.removeMember(params);
        return thenFile(file, {
          outcome: removed,
          edit: (seed, member) => {
            const found = memberOf(seed, member);
            if (!found) return false;
            found.org.members = found.org.members!.filter((m) => m !== found.entry);
            return true;
          },
          // The very record removed, with its id, password and invitation.
          undo: async (member) => (await members.insertMember(member)) === true,
        });
      }),
  };
}

/** Whether the seed entry is an invitation that expired unaccepted at `now` (a member with a password never is). */
const expiredInFile = (entry: SeedMember, now: Date) =>
  entry.password === undefined &&
  entry.invitation !== undefined &&
  Date.parse(entry.invitation.expires_at) <= now.getTime();

/** Whether memory holds the member as one who can sign in (a password) or still accept (a live invitation). */
const liveIn = (member: MemberRecord | null, now: Date) =>
  member !== null &&
  (member.passwordHash !== null || (member.invitation !== null && member.invitation.expiresAt > now));

/**
 * PostgreSQL's sweep of invitations, on the file and memory, holding the file's lock: a member without a
 * password whose invitation expired at or before `now` is deleted, and nothing is recorded as a removal
 * (the email is free to invite again). The file holds no password and marks a used link expired
 * (`acceptedInFileFirst`), so an entry expired in the file is deleted only while memory agrees: it has
 * no member of that email, or one who never accepted and whose invitation has expired too. A member who
 * accepted in the meantime (acceptance holds the same lock) stays, in both. The file first: if it cannot
 * be written, memory keeps its invitations too, and the next sweep tries again.
 */
async function sweptInvitations(members: MemberStore, file: SeedFileAccess, now: Date): Promise<number> {
  return file.locked(async () => {
    const swept = new Set<string>();
    for (const org of (await file.read()).organizations)
      for (const entry of org.members ?? [])
        if (expiredInFile(entry, now) && !liveIn(await members.findMemberByEmail(emailOf(entry)), now))
          swept.add(emailOf(entry));
    let deleted = 0;
    if (swept.size > 0)
      await file.edit((seed) => {
        for (const org of seed.organizations) {
          if (!org.members) continue;
          const before = org.members.length;
          org.members = org.members.filter((m) => !(swept.has(emailOf(m)) && expiredInFile(m, now)));
          deleted += before - org.members.length;
        }
        return deleted > 0;
      });
    await members.purgeExpiredInvitations(now);
    return deleted;
  });
}
