import { readFileSync, statSync } from 'node:fs';
import { err, ok, type Result } from 'neverthrow';
import { isTronAddress } from '../tron/address.js';
import { futureDate, notInFuture } from './list-dates.js';
import { bundledOfacList } from './ofac/list-in-use.js';
import { integerWithin } from './settings.js';
import type { SanctionsAnswer, SanctionsProvider } from './signals.js';

export interface ListedAddress {
  source: string;
  name: string | null;
}

/** An address list and the time it is as of. */
export interface SanctionsList {
  asOf: Date;
  addresses: ReadonlyMap<string, ListedAddress>;
  /**
   * A full sanctions list (the bundled OFAC snapshot, or a file marked `# full-list`, e.g. regenerated
   * from `sdn_advanced.xml`): only full lists date the screen. Other files are supplements, screened
   * for hits, whose date says nothing about how current the sanctions data is.
   */
  full: boolean;
}

/**
 * The bundled OFAC SDN snapshot for TRON: the union of the `Digital Currency Address - TRX` list
 * and the TRON addresses OFAC lists under `- USDT` (see `data/ofac-tron.ts` for provenance and date).
 */
export const OFAC_TRON_LIST: SanctionsList = bundledOfacList().list;

/** The largest share of the addresses in use a new list may lose (OFAC rarely delists): a refresh's and a full list file's. */
export const DEFAULT_MAX_LIST_LOSS = 0.1;

const AS_OF_COMMENT = /^#\s*as-of:\s*(\S+)\s*$/i;
const FULL_LIST_COMMENT = /^#\s*full-list\s*$/i;

/**
 * An extra list: one base58 address a line, `#` starts a comment, blank lines ignored. A comment
 * line `# as-of: 2026-01-31` dates the list (otherwise `defaultAsOf`); a line `# full-list` marks
 * it a full sanctions list (see `SanctionsList.full`). Any other line is an error.
 */
export function parseSanctionsList(text: string, source: string, defaultAsOf: Date): Result<SanctionsList, string> {
  const addresses = new Map<string, ListedAddress>();
  let asOf = defaultAsOf;
  let full = false;
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (FULL_LIST_COMMENT.test(line)) {
      full = true;
      continue;
    }
    const dated = AS_OF_COMMENT.exec(line);
    if (dated?.[1] !== undefined) {
      asOf = new Date(dated[1]);
      if (Number.isNaN(asOf.getTime())) return err(`${source}:${i + 1}: "${dated[1]}" is not a date`);
      continue;
    }
    const address = line.replace(/#.*$/, '').trim();
    if (address === '') continue;
    if (!isTronAddress(address))
      return err(`${source}:${i + 1}: ${JSON.stringify(address)} is not a valid TRON address`);
    addresses.set(address, { source, name: null });
  }
  return ok({ asOf, addresses, full });
}

/**
 * Reads a list file at startup. A full list must say its date (`# as-of`): it dates the screen, and a
 * file's modification time is when it was copied (a checkout, an unpacked artifact), not how current
 * its list is. An undated supplement is as of its modification time. A date in the future (a typo in
 * `# as-of`, a clock ahead) refuses the file: counted from the load, it would make the list current
 * again at every start (see `notInFuture`).
 */
export function loadSanctionsListFile(path: string, now: Date = new Date()): Result<SanctionsList, string> {
  let text: string;
  let modified: Date;
  try {
    text = readFileSync(path, 'utf8');
    modified = statSync(path).mtime;
  } catch (cause) {
    return err(`${path}: cannot read sanctions list (${(cause as Error).message})`);
  }
  return parseSanctionsList(text, path, new Date(Number.NaN)).andThen((list) => {
    const dated = !Number.isNaN(list.asOf.getTime());
    if (!dated && list.full) return err(`${path}: a '# full-list' file needs a '# as-of: DATE' line`);
    const claimed = dated ? list.asOf : modified;
    const asOf = notInFuture(claimed, now);
    if (asOf === null) return err(`${path}: ${futureDate(dated ? "'# as-of'" : 'modified', claimed, now)}`);
    return ok({ ...list, asOf });
  });
}

/**
 * Why `file`, marked `# full-list`, is not a full list beside `ofac` (the OFAC list in use), or null: it
 * must hold all but `maxLoss` of that list's addresses, the share a refresh may lose (`DEFAULT_MAX_LIST_LOSS`).
 * OFAC rarely delists, so a current full list holds nearly every address of an older one; an empty,
 * truncated or mistaken file does not, and its date would make a stale screen look current.
 */
export function notAFullList(file: SanctionsList, ofac: SanctionsList, maxLoss = DEFAULT_MAX_LIST_LOSS): string | null {
  let held = 0;
  for (const address of ofac.addresses.keys()) if (file.addresses.has(address)) held++;
  const size = ofac.addresses.size;
  if (held >= size * (1 - maxLoss)) return null;
  return (
    `a '# full-list' file must hold at least ${Math.round((1 - maxLoss) * 100)}% of the ${size} addresses of the ` +
    `OFAC list in use (as of ${ofac.asOf.toISOString()}), it holds ${held}: it cannot date the screen ` +
    `(without the '# full-list' line it is screened as a supplement)`
  );
}

/**
 * The lists to screen: the OFAC list in use, then the files. A `# full-list` file dates the screen only
 * while it is a full list beside the OFAC list in use (`notAFullList`), which a refresh or another host's
 * list can replace after the load; otherwise it is screened as a supplement. Judged once per OFAC list.
 */
export function listsBesideOfac(
  ofac: { current(): SanctionsList },
  files: readonly SanctionsList[],
): () => readonly SanctionsList[] {
  let judgedFor: SanctionsList['addresses'] | null = null;
  let judged: readonly SanctionsList[] = files;
  return () => {
    const list = ofac.current();
    if (list.addresses !== judgedFor) {
      judged = files.map((f) => (f.full && notAFullList(f, list) !== null ? { ...f, full: false } : f));
      judgedFor = list.addresses;
    }
    return [list, ...judged];
  };
}

export interface ListSanctionsOptions {
  /**
   * Past this age (days since the newest full list was last confirmed current) the lists no longer prove
   * an address clean: no hit is `unavailable`, while a hit still stands. Default 2, at most 30; there is no "no limit".
   */
  maxAgeDays?: number;
  now?: () => number;
}

/** OFAC publishes changes on working days; two days without a confirmation is stale. */
export const DEFAULT_SANCTIONS_LIST_MAX_AGE_DAYS = 2;
/**
 * The longest age limit accepted: a month covers an air-gapped copy brought in by hand, while a typo (a few
 * digits too many) would make a year-old list prove addresses clean.
 */
export const MAX_SANCTIONS_LIST_MAX_AGE_DAYS = 30;

const DAY_MS = 86_400_000;

/** The one check of a maximum list age (a whole number of days from 1 to `MAX_SANCTIONS_LIST_MAX_AGE_DAYS`). */
export function checkMaxAgeDays(maxAgeDays: number): Result<number, string> {
  return integerWithin(1, MAX_SANCTIONS_LIST_MAX_AGE_DAYS)(maxAgeDays);
}

/** Lists that change while the process runs (a refreshed OFAC list): read at each screen. */
export type SanctionsLists = readonly SanctionsList[] | (() => readonly SanctionsList[]);

/**
 * The date the lists are as of: the newest full list's (a current full list makes the screen current,
 * however old the bundled snapshot screened beside it is); without any full list, the oldest list's.
 * Lists read from files are judged before they are full here (`listsBesideOfac`).
 */
export function listsAsOf(lists: readonly SanctionsList[]): Date {
  const full = lists.filter((l) => l.full);
  const times = (full.length > 0 ? full : lists).map((l) => l.asOf.getTime());
  return new Date(full.length > 0 ? Math.max(...times) : Math.min(...times));
}

/** Past the limit, the lists no longer prove an address clean. */
const pastLimit = (asOf: Date, limitDays: number, now: number) => now - asOf.getTime() > limitDays * DAY_MS;

/** A list screened, under the name an operator knows it by (`ofac`, a file's path). */
export interface NamedSanctionsList {
  name: string;
  list: SanctionsList;
}

/** What an operator needs of the lists, read without screening: each list's date, and the screen's. */
export interface SanctionsListsStatus {
  lists: { name: string; asOf: Date; full: boolean }[];
  /** The date the screen is as of (`listsAsOf`). */
  asOf: Date;
  maxAgeDays: number;
  /** Past `maxAgeDays`: a screening without a hit is unavailable (the check LIMITED_DATA). */
  pastLimit: boolean;
}

/** The lists' status by the screener's own rule (`createListSanctionsProvider`). */
export function sanctionsListsStatus(
  named: readonly NamedSanctionsList[],
  maxAgeDays: number,
  now: number,
): SanctionsListsStatus {
  const asOf = listsAsOf(named.map((n) => n.list));
  return {
    lists: named.map(({ name, list }) => ({ name, asOf: list.asOf, full: list.full })),
    asOf,
    maxAgeDays,
    pastLimit: pastLimit(asOf, maxAgeDays, now),
  };
}

/**
 * Screens against in-memory lists, as of `listsAsOf` (once that is too old: unavailable without a hit, and
 * `incomplete` with one; the unavailable answer still says how old the lists are, for `freshness.risk_data_at`).
 */
export function createListSanctionsProvider(
  source: SanctionsLists,
  options: ListSanctionsOptions = {},
): SanctionsProvider {
  const current = typeof source === 'function' ? source : () => source;
  if (current().length === 0) throw new Error('a list screener needs at least one list');
  const { now = Date.now } = options;
  const maxAgeDays = checkMaxAgeDays(options.maxAgeDays ?? DEFAULT_SANCTIONS_LIST_MAX_AGE_DAYS);
  if (maxAgeDays.isErr()) throw new Error(`maxAgeDays ${maxAgeDays.error}`);
  const limit = maxAgeDays.value;
  return {
    screen(addresses) {
      const lists = current();
      const asOf = listsAsOf(lists);
      const hits = [...new Set(addresses)].flatMap((address) =>
        lists.flatMap((list) => {
          const listed = list.addresses.get(address);
          return listed ? [{ address, source: listed.source, name: listed.name }] : [];
        }),
      );
      const stale = pastLimit(asOf, limit, now());
      if (hits.length === 0 && stale) {
        return Promise.resolve<SanctionsAnswer>({
          status: 'unavailable',
          reason: `sanctions list as of ${asOf.toISOString()} is older than the ${limit}-day limit`,
          asOf,
        });
      }
      // Too old to prove any other address clean: the hits stand, the screen is incomplete.
      return Promise.resolve<SanctionsAnswer>(
        stale ? { status: 'answered', hits, asOf, incomplete: true } : { status: 'answered', hits, asOf },
      );
    },
  };
}
