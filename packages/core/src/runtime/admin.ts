import { randomUUID } from 'node:crypto';
import { decode, formatDecodeError } from '@tron-safety/codec';
import * as t from 'io-ts';
import { err, ok, type Result } from 'neverthrow';
import { Network } from '../contract/enums.js';
import type { UsageResponse } from '../contract/models.js';
import type { ApiKeyRecord, KeyCapReached, KeyCaps } from '../stores/api-keys.js';
import type { MemberRole } from '../stores/members.js';
import type { SafetyStores } from '../stores/index.js';
import type {
  EntitlementAssignment,
  Entitlements,
  Organization,
  OrganizationAccess,
  OrganizationStatus,
  Plan,
} from '../stores/organizations.js';
import { MAX_ENTITLEMENT } from '../stores/organizations.js';
import { entitlementsOf } from './access.js';
import { displayPrefix, generateApiKey, hashApiKey, MAX_API_KEY_LENGTH } from './keys.js';
import { createMembersApi } from './members.js';
import { buildUsageReport } from './usage-report.js';
import { hasControlCharacter, type TextRule } from './stored-text.js';
import { readUsageStatistics, type UsageStatistics } from './usage-statistics.js';

/** Member roles of an organization (spec Authentication 4). */
export type { MemberRole };

/**
 * Who calls the admin API. The host authenticates the person (portal session, CLI operator)
 * and says who it is; the core enforces what that actor may do. `operator` runs the service
 * (creates organizations and plans); a `member` acts only on its own organization.
 */
export type AdminActor = { kind: 'operator' } | { kind: 'member'; organizationId: string; role: MemberRole };

/** `busy`: the process has too much of this work at once (password derivations): try again shortly. */
export interface AdminError {
  code: 'forbidden' | 'not_found' | 'invalid' | 'conflict' | 'busy';
  message: string;
}

/** What a key list shows: never the key or its hash. */
export interface ApiKeyMetadata {
  id: string;
  organizationId: string;
  label: string;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  replacedBy: string | null;
  /** When a request last authenticated with it (to the minute), null if never. */
  lastUsedAt: Date | null;
}

/** A key as shown once, at creation or rotation. */
export interface IssuedApiKey {
  key: string;
  metadata: ApiKeyMetadata;
}

export interface OrganizationView {
  organization: Organization;
  plan: Plan | null;
  entitlements: Entitlements | null;
}

/** A plan assignment (latest version when `version` is omitted) or custom entitlements. */
export type AssignmentInput = { plan: string; version?: number } | { entitlements: Entitlements };

const KEY_MANAGERS: readonly MemberRole[] = ['owner', 'admin', 'developer'];
/** Whether a member of this role may create, rotate and revoke keys (spec Authentication 4). */
export const mayManageApiKeys = (role: MemberRole) => KEY_MANAGERS.includes(role);
/** Whether a member of this role may run checks in the portal: the same roles (spec Authentication 4). */
export const mayRunChecks = (role: MemberRole) => KEY_MANAGERS.includes(role);
/** Unrevoked keys per organization: a script cannot grow the key table without limit (rotation keeps the count). */
export const MAX_ACTIVE_API_KEYS = 100;
/**
 * Keys per organization, revoked ones included, past which it creates and rotates none: revoked keys are
 * kept (a seed file must not bring them back), so a rotation loop would grow them without limit. Far more
 * than any legitimate use: a rotation a day for 27 years.
 */
export const MAX_KEPT_API_KEYS = 10_000;
const MAX_TEXT_LENGTH = 200;
/** Imported keys are hashed with plain SHA-256, which is only sound for high-entropy keys. */
const MIN_IMPORTED_KEY_LENGTH = 24;
/** Longest display prefix an imported key hash may come with (ours are 17 characters). */
const MAX_PREFIX_LENGTH = 64;
/** A name or label: not blank, at most 200 characters, no control character of the rule (see `TextRule`). */
const textOk = (text: string, rule: TextRule = 'given') =>
  text.trim().length > 0 && text.length <= MAX_TEXT_LENGTH && !hasControlCharacter(text, rule);
const LABEL_RULE = 'label must be 1 to 200 characters, without control characters';
const NAME_RULE = 'organization name must be 1 to 200 characters, without control characters';

const Count = t.refinement(t.number, (n) => Number.isInteger(n) && n >= 0 && n <= MAX_ENTITLEMENT, 'Count');
const EntitlementsCodec = t.type({
  rateLimitPerMinute: Count,
  maxConcurrentRequests: Count,
  monthlyQuota: Count,
  enabledNetworks: t.array(Network),
});
const planCodec = (rule: TextRule) =>
  t.intersection([
    EntitlementsCodec,
    t.type({
      code: t.refinement(t.string, (s) => /^[a-z0-9][a-z0-9_.-]{0,63}$/.test(s), 'PlanCode'),
      version: t.refinement(t.number, (n) => Number.isInteger(n) && n >= 1 && n <= MAX_ENTITLEMENT, 'PlanVersion'),
      // A blank name shows as nothing in lists and usage answers (and the seed file refuses it); see textOk.
      name: t.refinement(t.string, (name) => textOk(name, rule), 'PlanName'),
    }),
  ]);
const PlanCodec = planCodec('given');
/** A seed file's plan: its name as stored before (see `TextRule`). */
const SeedPlanCodec = planCodec('stored');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const fail = <T>(code: AdminError['code'], message: string): Result<T, AdminError> => err({ code, message });

function decodeInput<T>(codec: t.Decoder<unknown, T>, value: unknown, what: string): Result<T, AdminError> {
  return decode(codec, value).mapErr((e) => ({
    code: 'invalid' as const,
    message: `invalid ${what}: ${formatDecodeError(e)}`,
  }));
}

function copyEntitlements(e: Entitlements): Entitlements {
  return {
    rateLimitPerMinute: e.rateLimitPerMinute,
    maxConcurrentRequests: e.maxConcurrentRequests,
    monthlyQuota: e.monthlyQuota,
    enabledNetworks: [...new Set(e.enabledNetworks)],
  };
}

export function keyMetadata(record: ApiKeyRecord): ApiKeyMetadata {
  const { id, organizationId, label, prefix, createdAt, revokedAt, replacedBy, lastUsedAt } = record;
  return { id, organizationId, label, prefix, createdAt, revokedAt, replacedBy, lastUsedAt };
}

type Permission = 'read' | 'manage_keys' | 'operate';

function permit(actor: AdminActor, organizationId: string | null, permission: Permission): Result<void, AdminError> {
  if (actor.kind === 'operator') return ok(undefined);
  if (permission === 'operate' || actor.organizationId !== organizationId) {
    return fail('forbidden', 'not allowed for this member');
  }
  if (permission === 'manage_keys' && !mayManageApiKeys(actor.role)) {
    return fail('forbidden', `role '${actor.role}' cannot manage API keys`);
  }
  return ok(undefined);
}

/**
 * The typed admin API of the core (organizations, plans, keys, usage) with roles enforced,
 * plus `seed` for hosts that load organizations, plans and known keys from a file.
 * Expected refusals are `Result` errors; a rejected promise means a store failed.
 */
export function createAdminApi(stores: SafetyStores, now: () => Date) {
  const admin = adminContext(stores, now);
  return {
    ...planAdmin(admin),
    ...organizationAdmin(admin),
    ...apiKeyAdmin(admin),
    ...usageAdmin(admin),
    /** Members, their invitations and roles, and the portal's password check. */
    members: createMembersApi(stores, now),
    /** For hosts loading a seed file: idempotent upserts, no actor (the host is the operator). */
    seed: seedAdmin(admin),
  };
}

/** What every part of the admin API works with: the stores, the clock and the shared lookups. */
type AdminContext = ReturnType<typeof adminContext>;

function adminContext(stores: SafetyStores, now: () => Date) {
  const { organizations, apiKeys } = stores;

  async function resolveAssignment(input: AssignmentInput): Promise<Result<EntitlementAssignment, AdminError>> {
    if ('entitlements' in input) {
      return decodeInput(EntitlementsCodec, input.entitlements, 'entitlements').map((e) => ({
        kind: 'custom',
        entitlements: copyEntitlements(e),
      }));
    }
    const plan =
      input.version === undefined
        ? await organizations.latestPlan(input.plan)
        : await organizations.getPlan(input.plan, input.version);
    if (!plan)
      return fail(
        'not_found',
        `no plan ${input.plan}${input.version === undefined ? '' : ` version ${input.version}`}`,
      );
    return ok({ kind: 'plan', code: plan.code, version: plan.version });
  }

  async function view(id: string): Promise<Result<OrganizationView, AdminError>> {
    const access = await organizations.getOrganization(id);
    return access ? ok(viewOf(access)) : fail('not_found', 'no such organization');
  }

  async function update(
    actor: AdminActor,
    id: string,
    change: { status?: OrganizationStatus; assignment?: EntitlementAssignment },
  ): Promise<Result<OrganizationView, AdminError>> {
    const allowed = permit(actor, id, 'operate');
    if (allowed.isErr()) return err(allowed.error);
    const updated = await organizations.updateOrganization(id, { ...change, updatedAt: now() });
    return updated ? view(id) : fail('not_found', 'no such organization');
  }

  /** Inserts the key, within `caps` when given (a seed file's keys are not capped). */
  async function insertKey(
    organizationId: string,
    key: ImportedApiKey,
    label: string,
    options: { id?: string; caps?: KeyCaps } = {},
  ): Promise<Result<ApiKeyRecord, AdminError>> {
    const record = newKeyRecord({ ...key, id: options.id ?? randomUUID(), organizationId, label, at: now() });
    const inserted = await apiKeys.insertKey(record, options.caps);
    if (inserted === true) return ok(record);
    return inserted === false ? fail('conflict', 'a key with this id or value exists') : keyCapConflict(inserted);
  }

  async function organizationExists(id: string): Promise<boolean> {
    return (await organizations.getOrganization(id)) !== null;
  }

  return { stores, organizations, apiKeys, now, resolveAssignment, view, update, insertKey, organizationExists };
}

/** A new, unrevoked key's stored record: its hash and display prefix, never the key. */
function newKeyRecord(
  k: ImportedApiKey & { id: string; organizationId: string; label: string; at: Date },
): ApiKeyRecord {
  return {
    id: k.id,
    organizationId: k.organizationId,
    label: k.label,
    ...storedSecret(k),
    createdAt: k.at,
    revokedAt: null,
    replacedBy: null,
    lastUsedAt: null,
  };
}

/** A decoded plan as stored: its own copy of the entitlements. */
const storedPlan = (plan: Plan): Plan => ({
  code: plan.code,
  version: plan.version,
  name: plan.name,
  ...copyEntitlements(plan),
});

/** Plan versions: created and listed by the operator. */
function planAdmin({ organizations }: AdminContext) {
  return {
    /** A new plan version (the next after the latest of `code` when `version` is omitted). */
    async createPlanVersion(
      actor: AdminActor,
      input: Omit<Plan, 'version'> & { version?: number },
    ): Promise<Result<Plan, AdminError>> {
      const allowed = permit(actor, null, 'operate');
      if (allowed.isErr()) return err(allowed.error);
      const latest = await organizations.latestPlan(input.code);
      const version = input.version ?? (latest ? latest.version + 1 : 1);
      if (await organizations.getPlan(input.code, version))
        return fail('conflict', `plan ${input.code} version ${version} exists`);
      const plan = decodeInput(PlanCodec, { ...input, version }, 'plan');
      if (plan.isErr()) return err(plan.error);
      const stored = storedPlan({ ...plan.value, version });
      await organizations.putPlan(stored);
      return ok(stored);
    },

    async listPlans(actor: AdminActor): Promise<Result<Plan[], AdminError>> {
      const allowed = permit(actor, null, 'operate');
      return allowed.isErr() ? err(allowed.error) : ok(await organizations.listPlans());
    },
  };
}

/** Organizations: created, listed and moved between plans and statuses by the operator; read by members. */
function organizationAdmin({ organizations, now, resolveAssignment, view, update }: AdminContext) {
  return {
    async createOrganization(
      actor: AdminActor,
      input: { name: string; assignment: AssignmentInput; status?: OrganizationStatus },
    ): Promise<Result<OrganizationView, AdminError>> {
      const allowed = permit(actor, null, 'operate');
      if (allowed.isErr()) return err(allowed.error);
      if (!textOk(input.name)) return fail('invalid', NAME_RULE);
      const assignment = await resolveAssignment(input.assignment);
      if (assignment.isErr()) return err(assignment.error);
      const at = now();
      const organization: Organization = {
        id: randomUUID(),
        name: input.name,
        status: input.status ?? 'active',
        assignment: assignment.value,
        createdAt: at,
        updatedAt: at,
      };
      if (!(await organizations.createOrganization(organization))) return fail('conflict', 'organization id exists');
      return view(organization.id);
    },

    async listOrganizations(actor: AdminActor): Promise<Result<Organization[], AdminError>> {
      const allowed = permit(actor, null, 'operate');
      return allowed.isErr() ? err(allowed.error) : ok(await organizations.listOrganizations());
    },

    async getOrganization(actor: AdminActor, id: string): Promise<Result<OrganizationView, AdminError>> {
      const allowed = permit(actor, id, 'read');
      return allowed.isErr() ? err(allowed.error) : view(id);
    },

    setOrganizationStatus(actor: AdminActor, id: string, status: OrganizationStatus) {
      return update(actor, id, { status });
    },

    suspendOrganization(actor: AdminActor, id: string) {
      return update(actor, id, { status: 'suspended' });
    },

    activateOrganization(actor: AdminActor, id: string) {
      return update(actor, id, { status: 'active' });
    },

    /** Moves the organization to a plan version (latest when omitted): affects later requests only. */
    async setOrganizationPlan(actor: AdminActor, id: string, plan: { code: string; version?: number }) {
      const allowed = permit(actor, id, 'operate');
      if (allowed.isErr()) return err(allowed.error);
      const assignment = await resolveAssignment({
        plan: plan.code,
        ...(plan.version === undefined ? {} : { version: plan.version }),
      });
      return assignment.isErr() ? err(assignment.error) : update(actor, id, { assignment: assignment.value });
    },

    async setCustomEntitlements(actor: AdminActor, id: string, entitlements: Entitlements) {
      const allowed = permit(actor, id, 'operate');
      if (allowed.isErr()) return err(allowed.error);
      const assignment = await resolveAssignment({ entitlements });
      return assignment.isErr() ? err(assignment.error) : update(actor, id, { assignment: assignment.value });
    },
  };
}

/**
 * A new key's caps: `MAX_KEPT_API_KEYS` keys, revoked ones included, and `MAX_ACTIVE_API_KEYS` unrevoked
 * ones; a rotation's replacement only the first (it keeps the count). The store checks them as it inserts,
 * so requests sent at once cannot pass them by their number.
 */
const NEW_KEY_CAPS: KeyCaps = { kept: MAX_KEPT_API_KEYS, active: MAX_ACTIVE_API_KEYS };
const ROTATION_CAPS = { kept: MAX_KEPT_API_KEYS };

/** The conflict a reached key cap answers. */
function keyCapConflict(cap: KeyCapReached): Result<never, AdminError> {
  return cap === 'kept_keys'
    ? fail(
        'conflict',
        `the organization has ${MAX_KEPT_API_KEYS} API keys, revoked ones included (they are kept), the most it may have: it can create or rotate no key, ask the operator of the service`,
      )
    : fail(
        'conflict',
        `the organization has ${MAX_ACTIVE_API_KEYS} active API keys, the most it may have: revoke one it no longer uses first`,
      );
}

/** API keys: created, rotated and revoked by the operator and key-managing members; listed by members. */
function apiKeyAdmin({ apiKeys, now, insertKey, organizationExists }: AdminContext) {
  return {
    /** A new key, shown in full only in this answer. */
    async createApiKey(
      actor: AdminActor,
      organizationId: string,
      label: string,
    ): Promise<Result<IssuedApiKey, AdminError>> {
      const allowed = permit(actor, organizationId, 'manage_keys');
      if (allowed.isErr()) return err(allowed.error);
      if (!textOk(label)) return fail('invalid', LABEL_RULE);
      if (!(await organizationExists(organizationId))) return fail('not_found', 'no such organization');
      const key = generateApiKey();
      const inserted = await insertKey(organizationId, { key }, label, { caps: NEW_KEY_CAPS });
      return inserted.map((record) => ({ key, metadata: keyMetadata(record) }));
    },

    async listApiKeys(actor: AdminActor, organizationId: string): Promise<Result<ApiKeyMetadata[], AdminError>> {
      const allowed = permit(actor, organizationId, 'read');
      if (allowed.isErr()) return err(allowed.error);
      // An unknown organization is not one without keys (a mistyped id would read as "no keys").
      if (!(await organizationExists(organizationId))) return fail('not_found', 'no such organization');
      return ok((await apiKeys.listKeys(organizationId)).map(keyMetadata));
    },

    /** Atomically revokes `keyId` and issues its replacement (same label unless given). */
    async rotateApiKey(
      actor: AdminActor,
      organizationId: string,
      keyId: string,
      label?: string,
    ): Promise<Result<IssuedApiKey & { revoked: ApiKeyMetadata }, AdminError>> {
      const allowed = permit(actor, organizationId, 'manage_keys');
      if (allowed.isErr()) return err(allowed.error);
      if (label !== undefined && !textOk(label)) return fail('invalid', LABEL_RULE);
      const keys = await apiKeys.listKeys(organizationId);
      const current = keys.find((k) => k.id === keyId);
      if (!current) return fail('not_found', 'no such key');
      const key = generateApiKey();
      const at = now();
      const replacement = newKeyRecord({ id: randomUUID(), organizationId, key, label: label ?? current.label, at });
      const rotated = await apiKeys.rotateKey({ organizationId, keyId, replacement, now: at, caps: ROTATION_CAPS });
      if (rotated.isErr()) {
        if (rotated.error === 'kept_keys') return keyCapConflict(rotated.error);
        return fail(
          rotated.error === 'not_found' ? 'not_found' : 'conflict',
          `key ${rotated.error === 'revoked' ? 'already revoked' : 'not found'}`,
        );
      }
      return ok({ key, metadata: keyMetadata(rotated.value.created), revoked: keyMetadata(rotated.value.revoked) });
    },

    async revokeApiKey(
      actor: AdminActor,
      organizationId: string,
      keyId: string,
    ): Promise<Result<ApiKeyMetadata, AdminError>> {
      const allowed = permit(actor, organizationId, 'manage_keys');
      if (allowed.isErr()) return err(allowed.error);
      const revoked = await apiKeys.revokeKey(organizationId, keyId, now());
      return revoked ? ok(keyMetadata(revoked)) : fail('not_found', 'no such key');
    },
  };
}

/** An organization's usage: the API's report and the portal's statistics. */
function usageAdmin({ stores, organizations, now, organizationExists }: AdminContext) {
  return {
    /** The usage report of `GET /v1/usage` for an organization (no rate limit counted). */
    async usage(actor: AdminActor, organizationId: string, days = 30): Promise<Result<UsageResponse, AdminError>> {
      const allowed = permit(actor, organizationId, 'read');
      if (allowed.isErr()) return err(allowed.error);
      if (!Number.isSafeInteger(days) || days < 1 || days > 90)
        return fail('invalid', 'days must be an integer from 1 to 90');
      const access = await organizations.getOrganization(organizationId);
      if (!access) return fail('not_found', 'no such organization');
      const entitlements = entitlementsOf(access);
      if (!entitlements) return fail('not_found', 'the organization has no plan version');
      return ok((await buildUsageReport(stores, { access, entitlements, days, now: now() })).report);
    },

    /** The portal's statistics: the last 30 UTC days' buckets, and p50/p95 latency from 20 samples on. */
    async usageStatistics(actor: AdminActor, organizationId: string): Promise<Result<UsageStatistics, AdminError>> {
      const allowed = permit(actor, organizationId, 'read');
      if (allowed.isErr()) return err(allowed.error);
      if (!(await organizationExists(organizationId))) return fail('not_found', 'no such organization');
      return ok(await readUsageStatistics(stores.usage, organizationId, now()));
    },
  };
}

/**
 * A known key to import: its full value, or what is stored of it (its SHA-256 and display prefix),
 * for a host that keeps a key it never saw in full (a seed file the portal writes to).
 */
export type ImportedApiKey = { key: string } | { keyHash: string; prefix: string };

/** Why a key (its value, or hash and prefix) cannot be imported, null when it can. */
function importedKeyProblem(input: ImportedApiKey): string | null {
  // A key's display prefix is stored: no control character in it either. Only a seed file imports keys,
  // so its text is given back as stored before (see `TextRule`).
  const unfit = (text: string) => /\s/.test(text) || hasControlCharacter(text, 'stored');
  if ('keyHash' in input) {
    if (!/^[0-9a-f]{64}$/.test(input.keyHash)) return 'an imported key hash must be 64 lower-case hex characters';
    if (input.prefix.length < 1 || input.prefix.length > MAX_PREFIX_LENGTH || unfit(input.prefix))
      return `an imported key prefix must be 1 to ${MAX_PREFIX_LENGTH} characters, without spaces or control characters`;
  } else if (input.key.length < MIN_IMPORTED_KEY_LENGTH || input.key.length > MAX_API_KEY_LENGTH || unfit(input.key))
    return `an imported key must be ${MIN_IMPORTED_KEY_LENGTH} to ${MAX_API_KEY_LENGTH} characters, without spaces or control characters`;
  return null;
}

/** What is stored of a key: its hash and display prefix. */
const storedSecret = (key: ImportedApiKey): Pick<ApiKeyRecord, 'hash' | 'prefix'> =>
  'keyHash' in key
    ? { hash: key.keyHash, prefix: key.prefix }
    : { hash: hashApiKey(key.key), prefix: displayPrefix(key.key) };

/** The key's metadata when it is already stored for this organization; a conflict for another; else null. */
async function importedBefore(
  apiKeys: SafetyStores['apiKeys'],
  input: { organizationId: string; hash: string },
): Promise<Result<ApiKeyMetadata, AdminError> | null> {
  const existing = await apiKeys.findKeyByHash(input.hash);
  if (!existing) return null;
  return existing.organizationId === input.organizationId
    ? ok(keyMetadata(existing))
    : fail('conflict', 'this key belongs to another organization');
}

/** Seed-file loading: idempotent upserts of plans, organizations and known keys. */
function seedAdmin({
  organizations,
  apiKeys,
  now,
  resolveAssignment,
  view,
  insertKey,
  organizationExists,
}: AdminContext) {
  return {
    /** Inserts or replaces plan version `(code, version)`. */
    async upsertPlanVersion(plan: Plan): Promise<Result<Plan, AdminError>> {
      const decoded = decodeInput(SeedPlanCodec, plan, 'plan');
      if (decoded.isErr()) return err(decoded.error);
      const stored = storedPlan(decoded.value);
      await organizations.putPlan(stored);
      return ok(stored);
    },

    /** Inserts or replaces the organization `id` (a UUID), keeping its creation time. */
    async upsertOrganization(input: {
      id: string;
      name: string;
      status?: OrganizationStatus;
      assignment: AssignmentInput;
    }): Promise<Result<OrganizationView, AdminError>> {
      if (!UUID.test(input.id)) return fail('invalid', 'organization id must be a lower-case UUID');
      if (!textOk(input.name, 'stored')) return fail('invalid', NAME_RULE);
      const assignment = await resolveAssignment(input.assignment);
      if (assignment.isErr()) return err(assignment.error);
      const existing = await organizations.getOrganization(input.id);
      const at = now();
      await organizations.putOrganization({
        id: input.id,
        name: input.name,
        status: input.status ?? 'active',
        assignment: assignment.value,
        createdAt: existing?.organization.createdAt ?? at,
        updatedAt: at,
      });
      return view(input.id);
    },

    /**
     * Stores a known key (its hash) for the organization; a repeat of the same key is a no-op, whatever
     * its label (the stored one is kept, so a rule on labels newer than the key never refuses the start).
     */
    async importApiKey(
      input: ImportedApiKey & { organizationId: string; label: string; id?: string },
    ): Promise<Result<ApiKeyMetadata, AdminError>> {
      const problem = importedKeyProblem(input);
      if (problem) return fail('invalid', problem);
      if (!(await organizationExists(input.organizationId))) return fail('not_found', 'no such organization');
      const { hash } = storedSecret(input);
      const known = () => importedBefore(apiKeys, { organizationId: input.organizationId, hash });
      const before = await known();
      if (before) return before;
      if (!textOk(input.label, 'stored')) return fail('invalid', LABEL_RULE);
      const inserted = await insertKey(input.organizationId, input, input.label, { id: input.id });
      // Several hosts seeding one database at once: the one that lost the insert finds the winner's row.
      return inserted.isOk() ? ok(keyMetadata(inserted.value)) : ((await known()) ?? inserted.map(keyMetadata));
    },
  };
}

export type AdminApi = ReturnType<typeof createAdminApi>;

function viewOf(access: OrganizationAccess): OrganizationView {
  return { organization: access.organization, plan: access.plan, entitlements: entitlementsOf(access) };
}
