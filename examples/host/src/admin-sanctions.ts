// tron-safety-admin sanctions status | load FILE [--force] [--as-of DATE]: the shared sanctions list of
// the hosts on one PostgreSQL database (README "Operations"). A memory-mode host keeps its list in its
// own process, out of the CLI's reach.
import { closeSync, createReadStream, openSync, readFileSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { riskConfigFromEnv, type SanctionsListStore } from '@tron-safety/core';
import { futureDate, notInFuture } from '@tron-safety/core/internal';
import {
  checkMaxAgeDays,
  DEFAULT_OFAC_DOWNLOAD_LIMITS,
  DEFAULT_SANCTIONS_LIST_MAX_AGE_DAYS,
  MAX_SANCTIONS_LIST_MAX_AGE_DAYS,
  OfacRefresher,
  parseOfacXml,
  parseSanctionsList,
  type CandidateList,
} from '@tron-safety/core/sanctions';
import type { Command } from 'commander';
import { describeSanctions } from './sanctions-refresh.js';

export interface SanctionsCommandContext {
  /** The shared store; throws the CLI's exit-2 error in memory mode or when the database cannot be reached. */
  store(): Promise<SanctionsListStore>;
  print(value: unknown, human: string): void;
  /** The CLI's error with its exit code (1 refused, 2 cannot run, 64 wrong command line). */
  exit(code: number, message: string): Error;
}

export const MEMORY_MODE_SANCTIONS =
  'memory mode: the host keeps its sanctions list in its own process. Set DATABASE_URL to manage the list the hosts share, ' +
  "or, air-gapped without PostgreSQL, point the host at a copy of OFAC's file with OFAC_SDN_URL=file:///path/sdn.xml (re-read every OFAC_REFRESH_SECONDS)";

/** A file as a candidate list: OFAC XML (either format) or a plain list dated by `# as-of` (or --as-of). */
async function readListFile(path: string, asOf: Date | null, ctx: SanctionsCommandContext): Promise<CandidateList> {
  const source = resolve(path);
  const start = Buffer.alloc(64);
  try {
    const fd = openSync(source, 'r');
    readSync(fd, start, 0, start.length, 0);
    closeSync(fd);
  } catch (e) {
    throw ctx.exit(2, `cannot read ${source} (${(e as Error).message})`);
  }
  const head = start.toString('utf8').replace(/\0+$/, '').trimStart();
  if (head.replace(/^\uFEFF/, '').startsWith('<')) {
    const parsed = await parseOfacXml(createReadStream(source), DEFAULT_OFAC_DOWNLOAD_LIMITS);
    if (parsed.isErr()) throw ctx.exit(1, `${source}: ${parsed.error}`);
    const { format, publishedAt, entries } = parsed.value;
    return { source, format, publishedAt, confirmedAt: asOf ?? publishedAt, entries, validators: null };
  }
  const plain = parseSanctionsList(readFileSync(source, 'utf8'), source, new Date(Number.NaN));
  if (plain.isErr()) throw ctx.exit(1, plain.error);
  const dated = asOf ?? (Number.isNaN(plain.value.asOf.getTime()) ? null : plain.value.asOf);
  if (dated === null) throw ctx.exit(1, `${source}: a plain list needs a '# as-of: DATE' line or --as-of DATE`);
  const entries = [...plain.value.addresses.keys()].map((address) => ({ address, tag: 'list', name: null }));
  return { source, format: 'plain', publishedAt: dated, confirmedAt: dated, entries, validators: null };
}

const MAX_AGE_VARIABLE = 'SANCTIONS_LIST_MAX_AGE_DAYS';

/**
 * The age limit the hosts apply, read by the host's own rules; a wrong value is a wrong setting (64), found
 * before anything runs, rather than an age verdict against a limit no host could start with.
 */
function maxAgeDays(ctx: SanctionsCommandContext): number {
  const raw = process.env[MAX_AGE_VARIABLE];
  const days = riskConfigFromEnv({ [MAX_AGE_VARIABLE]: raw })
    .mapErr((e) => e.message)
    .andThen((config) => checkMaxAgeDays(config.sanctionsListMaxAgeDays ?? DEFAULT_SANCTIONS_LIST_MAX_AGE_DAYS));
  if (days.isErr())
    throw ctx.exit(
      64,
      `${MAX_AGE_VARIABLE} must be a whole number of days from 1 to ${MAX_SANCTIONS_LIST_MAX_AGE_DAYS}, got '${raw}'`,
    );
  return days.value;
}

export function addSanctionsCommands(program: Command, ctx: SanctionsCommandContext): void {
  const sanctions = program.command('sanctions').description('the shared OFAC sanctions list (PostgreSQL mode)');

  sanctions
    .command('status')
    .description('source, publication date, last confirmed, addresses, age, last failure')
    .action(async () => {
      const maxAge = maxAgeDays(ctx);
      const store = await ctx.store();
      const refresher = new OfacRefresher({ store, url: null });
      await refresher.sync();
      const failure = await store.lastFailure();
      const status = { ...describeSanctions(refresher.status(), maxAge, null), refresh: undefined };
      const view = { ...status, last_failure: failure && { at: failure.at.toISOString(), reason: failure.reason } };
      ctx.print(
        view,
        [
          `list          ${view.list}${refresher.inUse().id === null ? ' (nothing stored yet: hosts start from the bundled snapshot)' : ''}`,
          `published     ${view.published_at}`,
          `confirmed     ${view.confirmed_at} (${view.age_hours} h ago${view.past_limit ? `, PAST the ${view.max_age_days}-day limit: clean addresses are not proven clean` : ''})`,
          `addresses     ${view.addresses}`,
          `last failure  ${failure ? `${view.last_failure!.at} ${failure.reason}` : 'none'}`,
        ].join('\n'),
      );
    });

  sanctions
    .command('load <file>')
    .description("apply OFAC's sdn.xml or sdn_advanced.xml, or a plain list, for every host at once (air-gapped use)")
    .option('--force', 'apply it even when it is smaller or older than the list in use')
    .option('--as-of <date>', 'when the file was known current (default: its publication date, or # as-of)')
    .action(async (file: string, o: { force?: boolean; asOf?: string }) => {
      const maxAge = maxAgeDays(ctx);
      const asOf = o.asOf === undefined ? null : new Date(o.asOf);
      if (asOf !== null && Number.isNaN(asOf.getTime())) throw ctx.exit(64, `--as-of must be a date, got '${o.asOf}'`);
      // A typo's year (3024) would make the list current for every host at every load: refused, as a list's own future date is.
      const now = new Date();
      if (asOf !== null && notInFuture(asOf, now) === null) throw ctx.exit(64, futureDate('--as-of', asOf, now));
      const candidate = await readListFile(file, asOf, ctx);
      const refresher = new OfacRefresher({ store: await ctx.store(), url: null });
      const applied = await refresher.apply(candidate, { force: o.force === true });
      if (applied.isErr()) {
        const hint = ['shrunk', 'older'].includes(applied.error.kind) ? ' (--force applies it anyway)' : '';
        throw ctx.exit(1, `not applied, the list in use is kept: ${applied.error.reason}${hint}`);
      }
      const status = refresher.status();
      ctx.print(
        { outcome: applied.value.kind, ...describeSanctions(status, maxAge, null), refresh: undefined },
        `${applied.value.kind}: ${status.addresses} TRON addresses from ${status.source}, published ${status.publishedAt.toISOString().slice(0, 10)}; every host screens with it within a minute`,
      );
    });
}
