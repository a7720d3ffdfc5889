// `tron-safety-admin members …`: portal members through the core's admin API (the same
// validation, invitation tokens and role rules as the portal). `add` prints the one-time link that
// sets the member's password.
import type { AdminApi, AdminError, MemberView } from '@tron-safety/core';
import { MEMBER_ROLES, tokenHash } from '@tron-safety/core/internal';
import { type Command, Option } from 'commander';
import { err, type Result } from 'neverthrow';
import { parseConfig, publicOriginProblem } from './config.js';
import type { SeedMemberSecret } from './seed-file.js';

const OPERATOR = { kind: 'operator' } as const;

/** What the members commands need of the CLI: its opened state, its error mapping and output. */
export interface MemberCommandContext {
  open(): Promise<{ admin: AdminApi; members: Map<string, SeedMemberSecret>; save(): Promise<void> }>;
  unwrap<T>(result: Result<T, AdminError>): T;
  print(value: unknown, human: string): void;
  /** The CLI's error with its exit code (1 refused, 2 cannot run, 64 wrong command line). */
  exit(code: number, message: string): Error;
}

/** Where a host listens by default (HOST, PORT): the link's origin when nothing names another. */
const DEFAULT_PORTAL_URL = 'http://127.0.0.1:8080';

const memberLine = (m: MemberView) =>
  `${m.id}  ${m.role.padEnd(9)}  ${m.status === 'active' ? 'active ' : 'invited'}  ${m.email}`;
const roleOption = () =>
  new Option('--role <role>', 'owner, admin, developer, billing or viewer').choices(MEMBER_ROLES).makeOptionMandatory();

/** The member of the organization named by its id or its email. */
async function resolve(cli: MemberCommandContext, admin: AdminApi, orgId: string, member: string): Promise<MemberView> {
  const members = cli.unwrap(await admin.members.listMembers(OPERATOR, orgId));
  const wanted = member.trim().toLowerCase();
  const found = members.find((m) => m.id === wanted || m.email === wanted);
  return found ?? cli.unwrap<MemberView>(err({ code: 'not_found', message: `no member ${member} in ${orgId}` }));
}

/** `--url`: an origin by PORTAL_PUBLIC_URL's rule (the link carries a one-time token, the password is posted there). */
const originOf = (cli: MemberCommandContext) => (raw: string) => {
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || !['http:', 'https:'].includes(url.protocol))
    throw cli.exit(64, `--url must be an http(s) origin such as https://safety.example.com, got '${raw}'`);
  const problem = publicOriginProblem(url);
  if (problem !== null) throw cli.exit(64, `--url ${problem}, got '${raw}'`);
  return url.origin;
};

/**
 * The origin of an invitation link without `--url`: PORTAL_PUBLIC_URL, read by the host's rules (a wrong one
 * is a wrong setting, 64, found before anyone is invited), else the host's default address.
 */
function defaultOrigin(cli: MemberCommandContext): string {
  const config = parseConfig({ PORTAL_PUBLIC_URL: process.env.PORTAL_PUBLIC_URL });
  if (config.isErr()) throw cli.exit(64, config.error.message);
  return config.value.portalPublicUrl ?? DEFAULT_PORTAL_URL;
}

export function registerMemberCommands(program: Command, cli: MemberCommandContext): void {
  const members = program.command('members').description('portal members (invitation by a one-time link)');
  members
    .command('add <orgId>')
    .description('invite a member: prints the one-time link that sets the password')
    .requiredOption('--email <email>')
    .addOption(roleOption())
    .option(
      '--url <origin>',
      `origin browsers reach the portal at (default: PORTAL_PUBLIC_URL, else ${DEFAULT_PORTAL_URL})`,
      originOf(cli),
    )
    .action(async (orgId: string, o: { email: string; role: string; url?: string }) => {
      const origin = o.url ?? defaultOrigin(cli);
      const s = await cli.open();
      const invited = cli.unwrap(await s.admin.members.inviteMember(OPERATOR, orgId, { email: o.email, role: o.role }));
      const expiresAt = invited.expiresAt.toISOString();
      s.members.set(invited.member.id, {
        invitation: { token_sha256: tokenHash(invited.token), expires_at: expiresAt },
      });
      await s.save();
      const link = `${origin}/portal/invitation?token=${invited.token}`;
      cli.print(
        { member: invited.member, invitation_url: link, expires_at: expiresAt },
        `${link}\n(member ${invited.member.id}, ${invited.member.email} as ${invited.member.role}; the link works once, until ${expiresAt}: send it now)`,
      );
    });
  members.command('list <orgId>').action(async (orgId: string) => {
    const s = await cli.open();
    const list = cli.unwrap(await s.admin.members.listMembers(OPERATOR, orgId));
    cli.print(list, list.map(memberLine).join('\n') || '(no members)');
  });
  members
    .command('set-role <orgId> <member>')
    .description('change the role of a member (id or email); the last owner stays owner')
    .addOption(roleOption())
    .action(async (orgId: string, member: string, o: { role: string }) => {
      const s = await cli.open();
      const target = await resolve(cli, s.admin, orgId, member);
      const changed = cli.unwrap(await s.admin.members.setMemberRole(OPERATOR, orgId, target.id, o.role));
      await s.save();
      cli.print(changed, memberLine(changed));
    });
  members
    .command('remove <orgId> <member>')
    .description('remove a member (id or email) and end its portal sessions; the last owner stays')
    .action(async (orgId: string, member: string) => {
      const s = await cli.open();
      const target = await resolve(cli, s.admin, orgId, member);
      const removed = cli.unwrap(await s.admin.members.removeMember(OPERATOR, orgId, target.id));
      s.members.delete(removed.id);
      await s.save();
      cli.print(removed, `removed ${removed.email}`);
    });
}
