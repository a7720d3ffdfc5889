// tron-safety-admin: organizations, API keys, plans and usage, through the core's admin API.
//
// Memory mode (no DATABASE_URL): the host's state lives in its process and is rebuilt from the
// seed file at every start, so the seed file *is* the durable state. Each command loads the seed
// file into in-memory stores, runs through the same admin API the host uses, and writes the file
// back (atomically, mode 0600: it may hold passwords), holding the file's lock from load to write so
// that commands run at once do not lose each other's changes. Keys are written as their SHA-256 and
// display prefix only, as the portal writes them: a copy of the file is no credential. Restart the host
// to apply a change. Usage counts live only in the running host: `usage` asks it over HTTP with
// TRON_SAFETY_API_KEY (one of the organization's active keys).
// PostgreSQL mode (DATABASE_URL): the commands act on the database the hosts share (schema
// created or upgraded first); changes apply to running hosts at once, and `usage` reads the
// database.
//
// Exit codes: 0 done; 1 refused by the service (invalid, not found, conflict); 2 cannot run
// (configuration, unreadable seed file, host unreachable, the service busy); 64 wrong command line (a usage
// --url of plain http to another host without --insecure-http included; and,
// for the sanctions commands, a SANCTIONS_LIST_MAX_AGE_DAYS that is not a whole number from 1 to 30; for
// members add, a PORTAL_PUBLIC_URL the host would refuse).
import { existsSync } from 'node:fs';
import type { AdminApi, AdminError, ApiKeyMetadata, Entitlements, Organization, Plan } from '@tron-safety/core';
import {
  createRiskProviders,
  createSafetyService,
  decode,
  ErrorResponse,
  formatDecodeError,
  hashApiKey,
  UsageResponse,
} from '@tron-safety/core';
import { createMemoryStores } from '@tron-safety/store-memory';
import { Command, CommanderError, Option } from 'commander';
import type { Result } from 'neverthrow';
import { request } from 'undici';
import { registerMemberCommands } from './admin-members.js';
import { addSanctionsCommands, MEMORY_MODE_SANCTIONS } from './admin-sanctions.js';
import { HOST_VERSION } from './cli-flags.js';
import { isLoopback, parseConfig } from './config.js';
import {
  applySeed,
  keyHashOf,
  limitsOf,
  loadSeedFile,
  type SeedFile,
  type SeedKeySecret,
  type SeedMemberSecret,
} from './seed-file.js';
import { replaceSeedFile } from './seed-file-edit.js';
import { lockSeedFile, SeedFileBusy } from './seed-file-lock.js';
import { openStores, type HostStores } from './stores.js';

const OPERATOR = { kind: 'operator' } as const;

class Exit extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

interface Session {
  mode: 'memory' | 'postgres';
  admin: AdminApi;
  /** Keys by id, in full or as hashes (as the seed file gave them, or created by this command): the stores keep only hashes. */
  keys: Map<string, SeedKeySecret>;
  /** Members' passwords or pending invitations by member id, likewise. */
  members: Map<string, SeedMemberSecret>;
  /** Makes the change durable: writes the seed file back (memory), nothing (PostgreSQL). */
  save(): Promise<void>;
}

/** Stores opened by this run, closed when the command ends. */
const opened: HostStores[] = [];
/** Seed file locks taken by this run, released when the command ends. */
const locks: (() => void)[] = [];

// Only the admin API is used: no chain provider, and risk providers that are never called.
const adminOf = (stores: HostStores['stores'], now?: () => Date) =>
  createSafetyService(stores, { chain: null, risk: createRiskProviders()._unsafeUnwrap() }, now ? { now } : {}).admin;

/**
 * A clock that never gives a millisecond twice. Lists are oldest first, ties by id (random for members),
 * so entries a memory session loads in the same millisecond would be written back in another order
 * each time; with a creation time each, the seed file keeps its order, and new entries come last.
 */
function clockWithoutTies(): () => Date {
  let last = 0;
  return () => new Date((last = Math.max(Date.now(), last + 1)));
}

async function openDatabase(databaseUrl: string): Promise<HostStores['stores']> {
  const config = parseConfig({ DATABASE_URL: databaseUrl });
  if (config.isErr()) throw new Exit(2, config.error.message);
  const stores = await openStores(config.value.databaseUrl);
  if (stores.isErr()) throw new Exit(2, stores.error.message);
  opened.push(stores.value);
  return stores.value.stores;
}

/**
 * What a command does with the state: only reads it, changes it (memory mode: the seed file is locked
 * from load to write), or changes it and may create the seed file.
 */
type Intent = 'read' | 'change' | 'create';

async function openSession(path: string | undefined, intent: Intent): Promise<Session> {
  const databaseUrl = process.env.DATABASE_URL?.trim();
  if (databaseUrl) {
    const stores = await openDatabase(databaseUrl);
    return { mode: 'postgres', admin: adminOf(stores), keys: new Map(), members: new Map(), save: async () => {} };
  }
  if (!path)
    throw new Exit(2, 'no seed file: pass --seed-file <path> or set SAFETY_SEED_FILE (or DATABASE_URL for PostgreSQL)');
  const missing = () =>
    new Exit(2, `seed file ${path} does not exist (create it with \`plans create\` or \`orgs create\`)`);
  if (intent !== 'create' && !existsSync(path)) throw missing();
  if (intent !== 'read') await lock(path);
  const admin = adminOf(createMemoryStores(), clockWithoutTies());
  const keys = new Map<string, SeedKeySecret>();
  const members = new Map<string, SeedMemberSecret>();
  let seed: SeedFile = { plans: [], organizations: [] };
  if (existsSync(path)) {
    const loaded = await loadSeedFile(path);
    if (loaded.isErr()) throw new Exit(2, loaded.error.message);
    seed = loaded.value;
  } else if (intent !== 'create') {
    throw missing();
  }
  const applied = await applySeed(
    admin,
    seed,
    (id, key) => keys.set(id, key),
    (id, secret) => members.set(id, secret),
  );
  if (applied.isErr()) throw new Exit(2, applied.error.message);
  return { mode: 'memory', admin, keys, members, save: () => writeSeedFile(admin, { keys, members }, path) };
}

/** Holds the seed file's lock until the command ends (another command's change waits, or is exit 2 after 30 s). */
async function lock(path: string): Promise<void> {
  try {
    locks.push(await lockSeedFile(path));
  } catch (e) {
    if (e instanceof SeedFileBusy) throw new Exit(2, e.message);
    throw new Exit(2, `cannot lock the seed file ${path} (${(e as Error).message})`);
  }
}

/** Serializes the stores back into the seed file format and replaces the file. */
async function writeSeedFile(
  admin: AdminApi,
  { keys, members }: Pick<Session, 'keys' | 'members'>,
  path: string,
): Promise<void> {
  const plans = (await admin.listPlans(OPERATOR))._unsafeUnwrap();
  const orgs = (await admin.listOrganizations(OPERATOR))._unsafeUnwrap();
  const seed = {
    plans: plans.map((p) => ({ code: p.code, version: p.version, name: p.name, ...limitsOf(p) })),
    organizations: await Promise.all(
      orgs.map(async (o: Organization) => ({
        id: o.id,
        name: o.name,
        status: o.status,
        plan: o.assignment.kind === 'plan' ? { code: o.assignment.code, version: o.assignment.version } : null,
        custom_entitlements: o.assignment.kind === 'custom' ? limitsOf(o.assignment.entitlements) : null,
        api_keys: (await admin.listApiKeys(OPERATOR, o.id))._unsafeUnwrap().map((k) => seedKeyOf(k, keys.get(k.id))),
        ...(await seedMembersOf(admin, o.id, members)),
      })),
    ),
  };
  replaceSeedFile(path, seed);
}

/**
 * A key's seed entry: its SHA-256 and display prefix, never the key, whether the file gave it in full
 * (a hand-written file) or the command just created it. Throws on a key the session did not load.
 */
function seedKeyOf(k: ApiKeyMetadata, secret: SeedKeySecret | undefined) {
  if (!secret) throw new Error(`internal: key ${k.id} is neither in the seed file nor created by this command`);
  return { id: k.id, label: k.label, key_sha256: keyHashOf(secret), prefix: k.prefix, revoked: k.revokedAt !== null };
}

/**
 * The organization's members as seed entries (`members` only when there are any), with their ids, so
 * the id a command prints names the member in the next one.
 */
async function seedMembersOf(admin: AdminApi, organizationId: string, secrets: Map<string, SeedMemberSecret>) {
  const list = (await admin.members.listMembers(OPERATOR, organizationId))._unsafeUnwrap();
  const entries = list.map((m) => ({ id: m.id, email: m.email, role: m.role, ...secrets.get(m.id) }));
  return entries.length ? { members: entries } : {};
}

function unwrap<T>(result: Result<T, AdminError>): T {
  // Busy is no refusal of the request: the command could not run now.
  if (result.isErr())
    throw new Exit(result.error.code === 'busy' ? 2 : 1, `${result.error.code}: ${result.error.message}`);
  return result.value;
}

let json = false;
function print(value: unknown, human: string): void {
  console.log(json ? JSON.stringify(value, null, 2) : human);
}

const int = (name: string) => (raw: string) => {
  if (!/^\d+$/.test(raw)) throw new Exit(64, `${name} must be a nonnegative integer, got '${raw}'`);
  return Number(raw);
};
const planRef = (raw: string) => {
  const [code, version] = raw.split('@');
  if (!code || (version !== undefined && !/^\d+$/.test(version)))
    throw new Exit(64, `--plan must be CODE or CODE@VERSION, got '${raw}'`);
  return version === undefined ? { code } : { code, version: Number(version) };
};

interface LimitOptions {
  rateLimit?: number;
  concurrency?: number;
  quota?: number;
  networks?: string;
}
function limitOptions(cmd: Command, required: boolean): Command {
  const opt = (flags: string, text: string, parse: (raw: string) => unknown) => {
    const o = new Option(flags, text).argParser(parse);
    if (required) o.makeOptionMandatory();
    return cmd.addOption(o);
  };
  opt('--rate-limit <n>', 'requests per minute', int('--rate-limit'));
  opt('--concurrency <n>', 'concurrent checks', int('--concurrency'));
  opt('--quota <n>', 'monthly quota (complete checks)', int('--quota'));
  return cmd.option('--networks <list>', 'enabled networks, comma-separated', 'tron');
}
function entitlements(o: LimitOptions): Entitlements | null {
  if (o.rateLimit === undefined && o.concurrency === undefined && o.quota === undefined) return null;
  if (o.rateLimit === undefined || o.concurrency === undefined || o.quota === undefined) {
    throw new Exit(64, 'custom entitlements need --rate-limit, --concurrency and --quota together');
  }
  const networks = (o.networks ?? 'tron')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    rateLimitPerMinute: o.rateLimit,
    maxConcurrentRequests: o.concurrency,
    monthlyQuota: o.quota,
    enabledNetworks: networks,
  };
}

const planLine = (p: Plan) =>
  `${p.code}@${p.version}  ${p.name}  rate=${p.rateLimitPerMinute}/min concurrency=${p.maxConcurrentRequests} quota=${p.monthlyQuota}/month networks=${p.enabledNetworks.join(',')}`;
const orgLine = (o: Organization) =>
  `${o.id}  ${o.status.padEnd(9)}  ${o.assignment.kind === 'plan' ? `plan ${o.assignment.code}@${o.assignment.version}` : 'custom entitlements'}  ${o.name}`;

export function buildProgram(): Command {
  const program = new Command('tron-safety-admin')
    .description(
      'Manage organizations, API keys, plans and usage of the TRON safety host (memory mode: edits the seed file)',
    )
    .version(HOST_VERSION, '-V, --version', "the host package's version")
    // The program's options stand before the command: `plans create --version N` is the plan's version.
    .enablePositionalOptions()
    // With --json, runAdmin prints commander's own errors as JSON instead.
    .configureOutput({ writeErr: (text) => void (json || process.stderr.write(text)) })
    .exitOverride()
    .showHelpAfterError();
  addCommonOptions(program);
  // Given after a command's name, they are that command's own (see addCommonOptions).
  let seedFile: string | undefined;
  program.hook('preAction', (_program, command) => {
    seedFile = command.optsWithGlobals().seedFile as string | undefined;
  });

  const open: OpenSession = (intent) => openSession(seedFile ?? process.env.SAFETY_SEED_FILE, intent);
  addPlanCommands(program, open);
  addOrganizationCommands(program, open);
  addKeyCommands(program, open);
  registerMemberCommands(program, {
    open: () => open('change'),
    unwrap,
    print,
    exit: (code, message) => new Exit(code, message),
  });
  addUsageCommand(program, open);
  addSanctionsCommands(program, {
    print,
    exit: (code, message) => new Exit(code, message),
    store: async () => {
      const databaseUrl = process.env.DATABASE_URL?.trim();
      if (!databaseUrl) throw new Exit(2, MEMORY_MODE_SANCTIONS);
      return (await openDatabase(databaseUrl)).sanctionsLists;
    },
  });
  forEachCommand(program, addCommonOptions);
  return program;
}

/**
 * `--seed-file` and `--json`, which every command takes before or after its name: each command has
 * them, as the program's own options stand only before the command.
 */
function addCommonOptions(command: Command): void {
  command
    .option('--seed-file <path>', 'seed file of the memory-mode host (default: $SAFETY_SEED_FILE)')
    .option('--json', 'machine-readable output');
}

function forEachCommand(command: Command, visit: (command: Command) => void): void {
  for (const sub of command.commands) {
    visit(sub);
    forEachCommand(sub, visit);
  }
}

/** Opens the session of one command: the seed file's stores or the database. */
type OpenSession = (intent: Intent) => Promise<Session>;

function addPlanCommands(program: Command, open: OpenSession): void {
  const plans = program.command('plans').description('versioned plans');
  plans.command('list').action(async () => {
    const s = await open('read');
    const list = unwrap(await s.admin.listPlans(OPERATOR));
    print(list, list.map(planLine).join('\n') || '(no plans)');
  });
  limitOptions(
    plans
      .command('create')
      .description('create a plan version (the next version of CODE unless --version)')
      .requiredOption('--code <code>')
      .requiredOption('--name <name>')
      .option('--version <n>', 'explicit version (1 or more)', int('--version')),
    true,
  ).action(async (o: LimitOptions & { code: string; name: string; version?: number }) => {
    const s = await open('create');
    const e = entitlements(o)!;
    const plan = unwrap(
      await s.admin.createPlanVersion(OPERATOR, {
        code: o.code,
        name: o.name,
        // 0 goes to the core, which refuses it: it is no version, not "the next one".
        ...(o.version !== undefined ? { version: o.version } : {}),
        ...e,
      }),
    );
    await s.save();
    print(plan, `created ${planLine(plan)}`);
  });
}

function addOrganizationCommands(program: Command, open: OpenSession): void {
  const orgs = program.command('orgs').alias('organizations').description('organizations (tenants)');
  orgs.command('list').action(async () => {
    const s = await open('read');
    const list = unwrap(await s.admin.listOrganizations(OPERATOR));
    print(list, list.map(orgLine).join('\n') || '(no organizations)');
  });
  addOrganizationCreate(orgs, open);
  for (const [name, status] of [
    ['suspend', 'suspended'],
    ['activate', 'active'],
  ] as const) {
    orgs.command(`${name} <orgId>`).action(async (id: string) => {
      const s = await open('change');
      const view = unwrap(await s.admin.setOrganizationStatus(OPERATOR, id, status));
      await s.save();
      print(view, orgLine(view.organization));
    });
  }
  orgs
    .command('set-plan <orgId>')
    .requiredOption('--plan <code[@version]>', 'plan (latest version when omitted)', planRef)
    .action(async (id: string, o: { plan: { code: string; version?: number } }) => {
      const s = await open('change');
      const view = unwrap(await s.admin.setOrganizationPlan(OPERATOR, id, o.plan));
      await s.save();
      print(view, orgLine(view.organization));
    });
  limitOptions(
    orgs.command('set-entitlements <orgId>').description('custom entitlements instead of a plan'),
    true,
  ).action(async (id: string, o: LimitOptions) => {
    const s = await open('change');
    const view = unwrap(await s.admin.setCustomEntitlements(OPERATOR, id, entitlements(o)!));
    await s.save();
    print(view, orgLine(view.organization));
  });
}

function addOrganizationCreate(orgs: Command, open: OpenSession): void {
  limitOptions(
    orgs
      .command('create')
      .description('create an organization on a plan or with custom entitlements')
      .requiredOption('--name <name>')
      .option('--plan <code[@version]>', 'plan (latest version when omitted)', planRef)
      .option('--suspended', 'create suspended'),
    false,
  ).action(
    async (o: LimitOptions & { name: string; plan?: { code: string; version?: number }; suspended?: boolean }) => {
      const s = await open('create');
      const custom = entitlements(o);
      if ((o.plan === undefined) === (custom === null))
        throw new Exit(64, 'give either --plan or custom entitlements (--rate-limit, --concurrency, --quota)');
      const assignment = o.plan
        ? { plan: o.plan.code, ...(o.plan.version !== undefined ? { version: o.plan.version } : {}) }
        : { entitlements: custom! };
      const view = unwrap(
        await s.admin.createOrganization(OPERATOR, {
          name: o.name,
          assignment,
          status: o.suspended ? 'suspended' : 'active',
        }),
      );
      await s.save();
      print(view, `created ${orgLine(view.organization)}`);
    },
  );
}

function addKeyCommands(program: Command, open: OpenSession): void {
  const keys = program.command('keys').description('API keys (the full key is printed once, at create and rotate)');
  keys
    .command('create <orgId>')
    .requiredOption('--label <label>')
    .action(async (orgId: string, o: { label: string }) => {
      const s = await open('change');
      const issued = unwrap(await s.admin.createApiKey(OPERATOR, orgId, o.label));
      s.keys.set(issued.metadata.id, { key: issued.key });
      await s.save();
      print(
        issued,
        `${issued.key}\n(key id ${issued.metadata.id}, label '${issued.metadata.label}'; shown once: store it now)`,
      );
    });
  keys
    .command('list <orgId>')
    .description('list keys by prefix')
    .action(async (orgId: string) => {
      const s = await open('read');
      const list = unwrap(await s.admin.listApiKeys(OPERATOR, orgId));
      print(
        list,
        list.map((k) => `${k.id}  ${k.prefix}…  ${k.revokedAt ? 'revoked' : 'active '}  ${k.label}`).join('\n') ||
          '(no keys)',
      );
    });
  keys
    .command('rotate <orgId> <keyId>')
    .description('revoke the key and issue its replacement, atomically')
    .action(async (orgId: string, keyId: string) => {
      const s = await open('change');
      const rotated = unwrap(await s.admin.rotateApiKey(OPERATOR, orgId, keyId));
      s.keys.set(rotated.metadata.id, { key: rotated.key });
      await s.save();
      print(rotated, `${rotated.key}\n(new key id ${rotated.metadata.id}; ${keyId} revoked; shown once: store it now)`);
    });
  keys.command('revoke <orgId> <keyId>').action(async (orgId: string, keyId: string) => {
    const s = await open('change');
    const revoked = unwrap(await s.admin.revokeApiKey(OPERATOR, orgId, keyId));
    await s.save();
    print(revoked, `revoked ${revoked.id} (${revoked.prefix}…)`);
  });
}

function addUsageCommand(program: Command, open: OpenSession): void {
  program
    .command('usage <orgId>')
    .description(
      "the organization's usage: from the database (PostgreSQL), or from the running host (memory: GET /v1/usage with TRON_SAFETY_API_KEY, one of the organization's active keys)",
    )
    .option(
      '--url <url>',
      'base URL of the running host: https, or plain http to this machine (localhost, 127.x.x.x, [::1])',
      'http://127.0.0.1:8080',
    )
    .option('--insecure-http', 'allow a plain http --url to another host: the API key crosses the network in clear')
    .option('--days <n>', 'rolling period, 1 to 90', int('--days'), 30)
    .action(async (orgId: string, o: { url: string; days: number; insecureHttp?: boolean }) => {
      checkHostUrl(o.url, o.insecureHttp === true);
      const s = await open('read');
      if (s.mode === 'postgres') return printUsage(unwrap(await s.admin.usage(OPERATOR, orgId, o.days)));
      printUsage(await usageFromHost(s, orgId, o));
    });
}

/**
 * `usage --url`, checked before anything runs (in either mode, as any wrong command line): an http(s) URL, and
 * plain http only to this machine unless `--insecure-http`, since the request carries an API key.
 */
function checkHostUrl(raw: string, insecureHttp: boolean): void {
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || !['http:', 'https:'].includes(url.protocol))
    throw new Exit(64, `--url must be an http(s) URL such as https://safety.example.com, got '${raw}'`);
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && !insecureHttp)
    throw new Exit(
      64,
      `--url ${raw} is plain http to another host: the API key would cross the network in clear. Use https, or pass --insecure-http to send it anyway`,
    );
}

/** Memory mode: usage lives in the running host, asked with one of the organization's active keys. */
async function usageFromHost(s: Session, orgId: string, o: { url: string; days: number }): Promise<UsageResponse> {
  const key = await usageKey(s, orgId);
  let res;
  try {
    res = await request(`${o.url.replace(/\/+$/, '')}/v1/usage?days=${o.days}`, { headers: { 'x-api-key': key } });
  } catch (e) {
    throw new Exit(
      2,
      `cannot reach the host at ${o.url} (${(e as Error).message}); usage lives in the running host's memory`,
    );
  }
  return usageAnswer(res.statusCode, await res.body.json().catch(() => null));
}

/**
 * The key `usage` asks the host with: TRON_SAFETY_API_KEY, which must be an active key of the organization
 * in the seed file (so the answer is that organization's), else an active key a hand-written file holds in
 * full (the CLI and the portal write only hashes).
 */
async function usageKey(s: Session, orgId: string): Promise<string> {
  const active = unwrap(await s.admin.listApiKeys(OPERATOR, orgId))
    .filter((k) => k.revokedAt === null)
    .map((k) => s.keys.get(k.id));
  const given = process.env.TRON_SAFETY_API_KEY;
  if (given) {
    const hash = hashApiKey(given);
    if (active.some((secret) => secret && keyHashOf(secret) === hash)) return given;
    throw new Exit(1, `not_found: TRON_SAFETY_API_KEY is not an active key of organization ${orgId} in the seed file`);
  }
  const full = active.find((secret) => secret?.key !== undefined)?.key;
  if (full) return full;
  throw new Exit(
    1,
    "not_found: set TRON_SAFETY_API_KEY to one of the organization's active keys to ask the host with (the seed file keeps only their hashes)",
  );
}

/** The host's `/v1/usage` answer through its codecs: the usage, or the API's refusal as exit 1. */
function usageAnswer(status: number, body: unknown): UsageResponse {
  const usage = decode(UsageResponse, body);
  if (status === 200) {
    if (usage.isOk()) return usage.value;
    throw new Exit(1, `the host's usage answer is unreadable (${formatDecodeError(usage.error)})`);
  }
  const refused = decode(ErrorResponse, body);
  if (refused.isErr()) throw new Exit(1, `${status}: usage request failed`);
  throw new Exit(1, `${refused.value.error.code}: ${refused.value.error.message}`);
}

function printUsage(u: UsageResponse): void {
  const p = u.period;
  const r = u.recent;
  print(
    u,
    `period ${p.start} .. ${p.end}: used ${p.used}, reserved ${p.reserved}, limit ${p.limit}, remaining ${p.remaining}\nlast ${r.days} days: ${r.requests} checks, ${r.billable} billable, ${r.limited_data} limited data, ${r.errors} errors`,
  );
}

export async function runAdmin(argv: string[]): Promise<number> {
  // Read before parsing: an error of the command line itself must be JSON too when asked.
  const end = argv.indexOf('--');
  json = (end === -1 ? argv : argv.slice(0, end)).includes('--json');
  // With --json a script reads the failure as JSON too (on stderr; the exit code says which kind).
  const fail = (code: number, message: string) => {
    console.error(json ? JSON.stringify({ error: { exit_code: code, message } }) : `error: ${message}`);
    return code;
  };
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0;
      // commander has printed its text already unless --json
      return json ? fail(64, error.message.replace(/^error: /, '')) : 64;
    }
    if (error instanceof Exit) return fail(error.code, error.message);
    return fail(2, error instanceof Error ? error.message : String(error));
  } finally {
    for (const release of locks.splice(0)) release();
    await Promise.all(opened.splice(0).map((stores) => stores.close()));
  }
}
