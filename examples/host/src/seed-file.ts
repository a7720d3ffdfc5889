import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as t from 'io-ts';
import {
  decode,
  formatDecodeError,
  hashApiKey,
  type AdminApi,
  type EntitlementAssignment,
  type Entitlements,
  MAX_ENTITLEMENT,
} from '@tron-safety/core';
import { err, ok, type Result } from 'neverthrow';
import type { ConfigError } from './config.js';
import { jsonSyntaxErrorAt } from './json-syntax.js';

// The seed file (SAFETY_SEED_FILE): plans, organizations and their API keys, inserted at start when missing.

// Bounded like the core's admin API: what a PostgreSQL store can keep.
const PositiveInt = t.refinement(
  t.number,
  (n) => Number.isInteger(n) && n >= 1 && n <= MAX_ENTITLEMENT,
  'positive integer',
);
const NonNegativeInt = t.refinement(
  t.number,
  (n) => Number.isInteger(n) && n >= 0 && n <= MAX_ENTITLEMENT,
  'nonnegative integer',
);
const NonEmpty = t.refinement(t.string, (s) => s.trim() !== '', 'nonempty string');
const Uuid = t.refinement(
  t.string,
  (s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s),
  'uuid',
);

// 0 is allowed where the core's admin API allows it (a limit of 0 refuses every check).
const Limits = {
  rate_limit_per_minute: NonNegativeInt,
  max_concurrent_requests: NonNegativeInt,
  monthly_quota: NonNegativeInt,
  enabled_networks: t.array(t.literal('tron')),
};

export const SeedPlan = t.strict({ code: NonEmpty, version: PositiveInt, name: NonEmpty, ...Limits }, 'SeedPlan');
export const SeedEntitlements = t.strict(Limits, 'SeedEntitlements');
const Sha256Hex = t.refinement(t.string, (s) => /^[0-9a-f]{64}$/.test(s), 'sha256 hex');

/**
 * `id` is optional (the admin CLI writes it; without it the key is loaded under `seedKeyId`). The key is
 * given in full (`key`, hand-written) or by its SHA-256 and display prefix (`key_sha256`, `prefix`), as the
 * admin CLI and a memory-mode host's portal write every key (a copy of the file is no credential).
 */
export const SeedApiKey = t.exact(
  t.intersection([
    t.type({ label: NonEmpty, revoked: t.boolean }),
    t.partial({ id: Uuid, key: NonEmpty, key_sha256: Sha256Hex, prefix: NonEmpty }),
  ]),
  'SeedApiKey',
);
/**
 * A portal member: with a `password` (hashed at load, like keys) or, as the admin CLI writes for
 * `members add` in memory mode, the pending `invitation` (the SHA-256 of its link's token). `id` is
 * optional, as for keys: the admin CLI and the portal write it; without it the member is loaded under
 * `seedMemberId`.
 */
export const SeedMember = t.exact(
  t.intersection([
    t.type({
      email: NonEmpty,
      role: t.keyof({ owner: null, admin: null, developer: null, billing: null, viewer: null }),
    }),
    t.partial({
      id: Uuid,
      password: NonEmpty,
      invitation: t.strict({
        token_sha256: t.refinement(t.string, (s) => /^[0-9a-f]{64}$/.test(s), 'sha256 hex'),
        expires_at: t.refinement(
          t.string,
          (s) => /^\d{4}-\d\d-\d\dT/.test(s) && !Number.isNaN(Date.parse(s)),
          'ISO time',
        ),
      }),
    }),
  ]),
  'SeedMember',
);
export const SeedOrganization = t.exact(
  t.intersection([
    t.type({
      id: Uuid,
      name: NonEmpty,
      status: t.keyof({ active: null, suspended: null }),
      plan: t.union([t.strict({ code: NonEmpty, version: PositiveInt }), t.null]),
      custom_entitlements: t.union([SeedEntitlements, t.null]),
      api_keys: t.array(SeedApiKey),
    }),
    t.partial({ members: t.array(SeedMember) }),
  ]),
  'SeedOrganization',
);
export const SeedFile = t.strict({ plans: t.array(SeedPlan), organizations: t.array(SeedOrganization) }, 'SeedFile');
export type SeedPlan = t.TypeOf<typeof SeedPlan>;
export type SeedOrganization = t.TypeOf<typeof SeedOrganization>;
export type SeedApiKey = t.TypeOf<typeof SeedApiKey>;
/** What the seed file keeps of a key beside its id, label and revocation. */
export type SeedKeySecret = Pick<SeedApiKey, 'key' | 'key_sha256' | 'prefix'>;
export type SeedMember = t.TypeOf<typeof SeedMember>;
/** What the seed file keeps of a member beside its email and role. */
export type SeedMemberSecret = Pick<SeedMember, 'password' | 'invitation'>;
export type SeedFile = t.TypeOf<typeof SeedFile>;

/** Decodes a seed document; the error names the first wrong field, e.g. `organizations[0].plan.version`. */
export function decodeSeed(value: unknown): Result<SeedFile, ConfigError> {
  return decode(SeedFile, value)
    .mapErr((e): ConfigError => ({ field: `seed:${e.path}`, message: `seed file: ${formatDecodeError(e)}` }))
    .andThen(checkReferences);
}

/** Reads and decodes the seed file at `path`. */
export async function loadSeedFile(path: string): Promise<Result<SeedFile, ConfigError>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    return err({
      field: 'SAFETY_SEED_FILE',
      message: `SAFETY_SEED_FILE: cannot read ${path} (${(e as Error).message})`,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Never the parser's message: it quotes the text around the error, which may be a password or a key.
    const at = jsonSyntaxErrorAt(text);
    const where = at ? `: a syntax error at line ${at.line}, column ${at.column}` : '';
    return err({ field: 'SAFETY_SEED_FILE', message: `SAFETY_SEED_FILE: ${path} is not JSON${where}` });
  }
  return decodeSeed(json);
}

/**
 * Rules a codec does not express: plan xor custom entitlements, known plan versions, unique organization
 * and member ids, keys, emails and invitations.
 */
function checkReferences(seed: SeedFile): Result<SeedFile, ConfigError> {
  const fail = (field: string, message: string) =>
    err({ field: `seed:${field}`, message: `seed file: ${field} ${message}` });
  const plans = new Set<string>();
  for (const [i, plan] of seed.plans.entries()) {
    const id = `${plan.code}@${plan.version}`;
    if (plans.has(id)) return fail(`plans[${i}]`, `repeats plan ${plan.code} version ${plan.version}`);
    plans.add(id);
  }
  const orgIds = new Set<string>();
  const keys = new Set<string>();
  const emails = new Set<string>();
  const memberIds = new Set<string>();
  const invitations = new Set<string>();
  for (const [i, org] of seed.organizations.entries()) {
    const at = `organizations[${i}]`;
    if (orgIds.has(org.id.toLowerCase())) return fail(`${at}.id`, `repeats organization ${org.id}`);
    orgIds.add(org.id.toLowerCase());
    if ((org.plan === null) === (org.custom_entitlements === null)) {
      return fail(`${at}.plan`, 'and custom_entitlements: exactly one of them must be set');
    }
    if (org.plan && !plans.has(`${org.plan.code}@${org.plan.version}`)) {
      return fail(
        `${at}.plan`,
        `refers to plan ${org.plan.code} version ${org.plan.version}, which the seed file does not define`,
      );
    }
    for (const [k, key] of org.api_keys.entries()) {
      if ((key.key === undefined) === (key.key_sha256 === undefined))
        return fail(`${at}.api_keys[${k}].key`, 'or key_sha256 (with prefix): exactly one of them must be set');
      if ((key.key_sha256 === undefined) !== (key.prefix === undefined))
        return fail(`${at}.api_keys[${k}].prefix`, 'goes with key_sha256, and only with it');
      const hash = keyHashOf(key);
      if (keys.has(hash)) return fail(`${at}.api_keys[${k}].key`, 'repeats a key of another entry');
      keys.add(hash);
    }
    for (const [m, member] of (org.members ?? []).entries()) {
      const email = emailOf(member);
      if (emails.has(email)) return fail(`${at}.members[${m}].email`, 'repeats the email of another member');
      emails.add(email);
      // An id names one member in every store, across organizations.
      const id = member.id?.toLowerCase();
      if (id && memberIds.has(id)) return fail(`${at}.members[${m}].id`, 'repeats the id of another member');
      if (id) memberIds.add(id);
      if ((member.password === undefined) === (member.invitation === undefined))
        return fail(`${at}.members[${m}]`, 'needs exactly one of password and invitation');
      // One member per invitation link, as every store keeps it.
      const link = member.invitation?.token_sha256;
      if (link && invitations.has(link))
        return fail(`${at}.members[${m}].invitation`, 'repeats the invitation of another member');
      if (link) invitations.add(link);
    }
  }
  return ok(seed);
}

/** The SHA-256 of a seed key entry's key, given in full or as its hash. */
export const keyHashOf = (key: SeedKeySecret): string => key.key_sha256 ?? hashApiKey(key.key!);

/** A member entry's email as it names one member (the core compares emails trimmed, in lower case). */
export const emailOf = (member: Pick<SeedMember, 'email'>) => member.email.trim().toLowerCase();

/**
 * The id an entry without one is inserted under: derived from what names it in the file, so the host and
 * every admin CLI run (memory mode loads the file into new stores each time) agree on it, and the id one
 * command prints names the entry in the next. A UUID (RFC 9562 version 8) of the entry's SHA-256.
 */
function derivedId(kind: 'member' | 'key', organizationId: string, name: string): string {
  const hex = createHash('sha256').update(`${kind}\n${organizationId.toLowerCase()}\n${name}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const [time, mid, node] = [hex.slice(0, 8), hex.slice(8, 12), hex.slice(20, 32)];
  return `${time}-${mid}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${node}`;
}

/** The id a member entry is inserted under: its own, else derived from its organization and email. */
const seedMemberId = (organizationId: string, member: SeedMember): string =>
  member.id?.toLowerCase() ?? derivedId('member', organizationId, emailOf(member));

/** The id a key entry is inserted under: its own, else derived from its organization and key hash. */
const seedKeyId = (organizationId: string, key: SeedApiKey): string =>
  key.id?.toLowerCase() ?? derivedId('key', organizationId, keyHashOf(key));

/** The part of the core's admin API a seed is loaded through. */
export interface SeedTarget {
  seed: Pick<AdminApi['seed'], 'upsertPlanVersion' | 'upsertOrganization' | 'importApiKey'>;
  listPlans: AdminApi['listPlans'];
  getOrganization: AdminApi['getOrganization'];
  listApiKeys: AdminApi['listApiKeys'];
  revokeApiKey: AdminApi['revokeApiKey'];
  members: Pick<AdminApi['members'], 'listMembers' | 'seed'>;
}

/** A stored value the seed file disagrees with; the stored one is kept. */
export interface SeedDifference {
  /** The seed field, e.g. `organizations[0].status`. */
  field: string;
  stored: unknown;
  seed: unknown;
}

export interface SeedSummary {
  /** Entries in the seed file. */
  plans: number;
  organizations: number;
  keys: number;
  members: number;
  /** Entries that did not exist yet and were inserted. */
  inserted: { plans: number; organizations: number; keys: number; members: number };
  differences: SeedDifference[];
}

const OPERATOR = { kind: 'operator' } as const;

/**
 * Loads the seed without undoing changes made since (admin CLI, another host): plans, then
 * organizations, then keys are inserted only when they do not exist yet; an existing entry that
 * differs from the seed keeps its stored values and is reported in `differences`. The one change
 * applied to existing state is a revocation (a key the seed marks revoked is revoked), since the
 * seed may only tighten access, never reopen it. Into empty stores (memory mode) this loads the
 * whole file. The error names the failing entry. `onKey` learns each key's id with its full value or hash,
 * `onMember` each member's id with its password or invitation (the admin CLI writes the file back).
 */
export async function applySeed(
  admin: SeedTarget,
  seed: SeedFile,
  onKey: (id: string, key: SeedKeySecret) => void = () => {},
  onMember: (id: string, secret: SeedMemberSecret) => void = () => {},
): Promise<Result<SeedSummary, ConfigError>> {
  const run: SeedRun = {
    admin,
    onKey,
    onMember,
    inserted: { plans: 0, organizations: 0, keys: 0, members: 0 },
    differences: [],
  };
  const plans = await applyPlans(run, seed.plans);
  if (plans.isErr()) return err(plans.error);
  let keys = 0;
  for (const [i, org] of seed.organizations.entries()) {
    const applied = await applyOrganization(run, org, `organizations[${i}]`);
    if (applied.isErr()) return err(applied.error);
    keys += applied.value.keys;
  }
  const members = seed.organizations.reduce((n, o) => n + (o.members?.length ?? 0), 0);
  return ok({
    plans: seed.plans.length,
    organizations: seed.organizations.length,
    keys,
    members,
    inserted: run.inserted,
    differences: run.differences,
  });
}

/** One application of a seed file: where it writes, whom it tells of secrets, and what it has found so far. */
interface SeedRun {
  admin: SeedTarget;
  onKey: (id: string, key: SeedKeySecret) => void;
  onMember: (id: string, secret: SeedMemberSecret) => void;
  inserted: SeedSummary['inserted'];
  differences: SeedDifference[];
}

const refuse = (field: string, message: string) =>
  err({ field: `seed:${field}`, message: `seed file: ${field}: ${message}` });

/** Records each field of `wanted` whose stored value differs. */
function compare(run: SeedRun, at: string, stored: Record<string, unknown>, wanted: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(wanted)) {
    if (JSON.stringify(stored[field]) !== JSON.stringify(value))
      run.differences.push({ field: `${at}.${field}`, stored: stored[field], seed: value });
  }
}

/** Plan versions not stored yet are inserted; a stored one is compared. */
async function applyPlans(run: SeedRun, plans: SeedPlan[]): Promise<Result<void, ConfigError>> {
  const stored = await run.admin.listPlans(OPERATOR);
  if (stored.isErr()) return refuse('plans', stored.error.message);
  const storedPlans = new Map(stored.value.map((p) => [`${p.code}@${p.version}`, p]));
  for (const [i, plan] of plans.entries()) {
    const existing = storedPlans.get(`${plan.code}@${plan.version}`);
    if (existing) {
      compare(
        run,
        `plans[${i}]`,
        { name: existing.name, ...limitsOf(existing) },
        { name: plan.name, ...limitsOf(entitlementsOf(plan)) },
      );
      continue;
    }
    const put = await run.admin.seed.upsertPlanVersion({
      code: plan.code,
      version: plan.version,
      name: plan.name,
      ...entitlementsOf(plan),
    });
    if (put.isErr()) return refuse(`plans[${i}]`, put.error.message);
    run.inserted.plans++;
  }
  return ok(undefined);
}

/** The organization (inserted or compared), then its keys, then its members. */
async function applyOrganization(
  run: SeedRun,
  org: SeedOrganization,
  at: string,
): Promise<Result<{ keys: number }, ConfigError>> {
  const id = org.id.toLowerCase();
  const placed = await placeOrganization(run, org, at);
  if (placed.isErr()) return err(placed.error);
  const keys = await applyKeys(run, org, at);
  if (keys.isErr()) return err(keys.error);
  const members = await applyMembers(run.admin, { at, organizationId: id, members: org.members ?? [] }, run.onMember);
  if (members.isErr()) return refuse(members.error.field, members.error.message);
  run.inserted.members += members.value.inserted;
  run.differences.push(...members.value.differences);
  return ok({ keys: org.api_keys.length });
}

/** Inserts the organization when it is confirmed absent, else compares the stored one. */
async function placeOrganization(run: SeedRun, org: SeedOrganization, at: string): Promise<Result<void, ConfigError>> {
  const id = org.id.toLowerCase();
  const existing = await run.admin.getOrganization(OPERATOR, id);
  // Only a confirmed absence inserts: any other failure could overwrite a stored organization.
  if (existing.isErr() && existing.error.code !== 'not_found') {
    return refuse(
      at,
      `cannot read organization ${id} (${org.name}), so it is not written: ${existing.error.code}: ${existing.error.message}`,
    );
  }
  if (existing.isOk()) {
    const stored = existing.value.organization;
    const assignment = (a: EntitlementAssignment) =>
      a.kind === 'plan'
        ? { plan: { code: a.code, version: a.version }, custom_entitlements: null }
        : { plan: null, custom_entitlements: limitsOf(a.entitlements) };
    compare(
      run,
      at,
      { name: stored.name, status: stored.status, ...assignment(stored.assignment) },
      {
        name: org.name,
        status: org.status,
        plan: org.plan,
        custom_entitlements: org.custom_entitlements && limitsOf(entitlementsOf(org.custom_entitlements)),
      },
    );
    return ok(undefined);
  }
  const put = await run.admin.seed.upsertOrganization({
    id,
    name: org.name,
    status: org.status,
    assignment: org.plan
      ? { plan: org.plan.code, version: org.plan.version }
      : { entitlements: entitlementsOf(org.custom_entitlements!) },
  });
  if (put.isErr()) return refuse(at, put.error.message);
  run.inserted.organizations++;
  return ok(undefined);
}

/**
 * The organization's keys: imported (a repeat of a stored key is a no-op that returns it; a key of
 * another organization is refused), revoked when the seed says so, never reopened.
 */
async function applyKeys(run: SeedRun, org: SeedOrganization, at: string): Promise<Result<void, ConfigError>> {
  const id = org.id.toLowerCase();
  const before = await run.admin.listApiKeys(OPERATOR, id);
  if (before.isErr()) return refuse(at, before.error.message);
  const known = new Set(before.value.map((k) => k.id));
  for (const [k, key] of org.api_keys.entries()) {
    const keyAt = `${at}.api_keys[${k}]`;
    const imported = await run.admin.seed.importApiKey({
      organizationId: id,
      ...(key.key !== undefined ? { key: key.key } : { keyHash: key.key_sha256!, prefix: key.prefix! }),
      label: key.label,
      id: seedKeyId(id, key),
    });
    if (imported.isErr()) return refuse(keyAt, imported.error.message);
    const stored = imported.value;
    run.onKey(stored.id, secretOf(key));
    if (known.has(stored.id)) compare(run, keyAt, { label: stored.label }, { label: key.label });
    else run.inserted.keys++;
    if (key.revoked && stored.revokedAt === null) {
      const revoked = await run.admin.revokeApiKey(OPERATOR, id, stored.id);
      if (revoked.isErr()) return refuse(keyAt, revoked.error.message);
    } else if (!key.revoked && stored.revokedAt !== null) {
      run.differences.push({ field: `${keyAt}.revoked`, stored: true, seed: false });
    }
  }
  return ok(undefined);
}

/**
 * The organization's members, inserted when their email is new (a password hashed, an invitation
 * kept pending), under the file's `id` or else `seedMemberId`'s; a stored member keeps its role and id,
 * and a different one in the file is a difference, as is a member the organization has removed (never
 * inserted again, whatever its id). An id another member has is refused (the core's conflict).
 */
async function applyMembers(
  admin: SeedTarget,
  org: { at: string; organizationId: string; members: SeedMember[] },
  onMember: (id: string, secret: SeedMemberSecret) => void,
): Promise<Result<{ inserted: number; differences: SeedDifference[] }, { field: string; message: string }>> {
  const before = await admin.members.listMembers(OPERATOR, org.organizationId);
  if (before.isErr()) return err({ field: org.at, message: before.error.message });
  const known = new Set(before.value.map((m) => m.id));
  const differences: SeedDifference[] = [];
  let inserted = 0;
  for (const [m, member] of org.members.entries()) {
    const at = `${org.at}.members[${m}]`;
    const imported = await admin.members.seed.importMember({
      organizationId: org.organizationId,
      email: member.email,
      role: member.role,
      id: seedMemberId(org.organizationId, member),
      ...(member.password === undefined ? {} : { password: member.password }),
      ...(member.invitation
        ? {
            invitation: {
              tokenHash: member.invitation.token_sha256,
              expiresAt: new Date(member.invitation.expires_at),
            },
          }
        : {}),
    });
    if (imported.isErr()) return err({ field: at, message: imported.error.message });
    if (imported.value.removed) {
      // Removed since (portal, admin CLI): it stays removed, as a revoked key is never reopened.
      differences.push({ field: `${at}.removed`, stored: true, seed: false });
      continue;
    }
    const stored = imported.value.member;
    onMember(stored.id, { password: member.password, invitation: member.invitation });
    if (!known.has(stored.id)) inserted++;
    else if (stored.role !== member.role)
      differences.push({ field: `${at}.role`, stored: stored.role, seed: member.role });
    // Only an id the file gives: a member stored before ids were derived keeps its random id silently.
    if (member.id && member.id.toLowerCase() !== stored.id)
      differences.push({ field: `${at}.id`, stored: stored.id, seed: member.id });
  }
  return ok({ inserted, differences });
}

/** The entry's key as the seed file gives it: in full, or its hash and prefix. */
const secretOf = (key: SeedApiKey): SeedKeySecret =>
  key.key !== undefined ? { key: key.key } : { key_sha256: key.key_sha256, prefix: key.prefix };

/** Entitlements under the seed file's field names. */
export function limitsOf(e: Entitlements) {
  return {
    rate_limit_per_minute: e.rateLimitPerMinute,
    max_concurrent_requests: e.maxConcurrentRequests,
    monthly_quota: e.monthlyQuota,
    enabled_networks: [...e.enabledNetworks],
  };
}

function entitlementsOf(limits: t.TypeOf<typeof SeedEntitlements>): Entitlements {
  return {
    rateLimitPerMinute: limits.rate_limit_per_minute,
    maxConcurrentRequests: limits.max_concurrent_requests,
    monthlyQuota: limits.monthly_quota,
    enabledNetworks: limits.enabled_networks,
  };
}
