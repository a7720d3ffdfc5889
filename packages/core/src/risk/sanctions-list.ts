import { readFileSync, statSync } from 'node:fs';
import { err, ok, type Result } from 'neverthrow';
import { isTronAddress } from '../tron/address.js';
import { OFAC_TRON_AS_OF, OFAC_TRON_ENTRIES } from './data/ofac-tron.js';
import type { SanctionsAnswer, SanctionsProvider } from './signals.js';

export interface ListedAddress {
  source: string;
  name: string | null;
}

/** An address list and the time it is as of. */
export interface SanctionsList {
  asOf: Date;
  addresses: ReadonlyMap<string, ListedAddress>;
}

/**
 * The bundled OFAC SDN snapshot for TRON: the union of the `Digital Currency Address - TRX` list
 * and the TRON addresses OFAC lists under `- USDT` (see `data/ofac-tron.ts` for provenance and date).
 */
export const OFAC_TRON_LIST: SanctionsList = {
  asOf: new Date(OFAC_TRON_AS_OF),
  addresses: new Map(
    OFAC_TRON_ENTRIES.map(([address, feature, name]) => [
      address,
      { source: `OFAC SDN (Digital Currency Address - ${feature})`, name },
    ]),
  ),
};

const AS_OF_COMMENT = /^#\s*as-of:\s*(\S+)\s*$/i;

/**
 * An extra list: one base58 address a line, `#` starts a comment, blank lines ignored. A comment
 * line `# as-of: 2026-01-31` dates the list (otherwise `defaultAsOf`). Any other line is an error.
 */
export function parseSanctionsList(text: string, source: string, defaultAsOf: Date): Result<SanctionsList, string> {
  const addresses = new Map<string, ListedAddress>();
  let asOf = defaultAsOf;
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    const dated = AS_OF_COMMENT.exec(line);
    if (dated?.[1] !== undefined) {
      asOf = new Date(dated[1]);
      if (Number.isNaN(asOf.getTime())) return err(`${source}:${i + 1}: "${dated[1]}" is not a date`);
      continue;
    }
    const address = line.replace(/#.*$/, '').trim();
    if (address === '') continue;
    if (!isTronAddress(address)) return err(`${source}:${i + 1}: ${JSON.stringify(address)} is not a valid TRON address`);
    addresses.set(address, { source, name: null });
  }
  return ok({ asOf, addresses });
}

/** Reads a list file at startup; undated lists are as of the file's modification time. */
export function loadSanctionsListFile(path: string): Result<SanctionsList, string> {
  let text: string;
  let modified: Date;
  try {
    text = readFileSync(path, 'utf8');
    modified = statSync(path).mtime;
  } catch (cause) {
    return err(`${path}: cannot read sanctions list (${(cause as Error).message})`);
  }
  return parseSanctionsList(text, path, modified);
}

export interface ListSanctionsOptions {
  /**
   * Past this age (days since the oldest list's as-of date) the lists no longer prove an address clean:
   * no hit is `unavailable`, while a hit still stands. Unset or null = no limit.
   */
  maxAgeDays?: number | null;
  now?: () => number;
}

const DAY_MS = 86_400_000;

/** Screens against in-memory lists: answers as of the oldest list (unavailable without a hit once too old). */
export function createListSanctionsProvider(lists: readonly SanctionsList[], options: ListSanctionsOptions = {}): SanctionsProvider {
  if (lists.length === 0) throw new Error('a list screener needs at least one list');
  const { maxAgeDays = null, now = Date.now } = options;
  if (maxAgeDays !== null && !(Number.isSafeInteger(maxAgeDays) && maxAgeDays > 0)) {
    throw new Error(`maxAgeDays must be a positive integer, got ${maxAgeDays}`);
  }
  const asOf = new Date(Math.min(...lists.map((l) => l.asOf.getTime())));
  return {
    screen(addresses) {
      const hits = [...new Set(addresses)].flatMap((address) =>
        lists.flatMap((list) => {
          const listed = list.addresses.get(address);
          return listed ? [{ address, source: listed.source, name: listed.name }] : [];
        }),
      );
      if (hits.length === 0 && maxAgeDays !== null && now() - asOf.getTime() > maxAgeDays * DAY_MS) {
        return Promise.resolve<SanctionsAnswer>({
          status: 'unavailable',
          reason: `sanctions list as of ${asOf.toISOString()} is older than the ${maxAgeDays}-day limit`,
        });
      }
      return Promise.resolve<SanctionsAnswer>({ status: 'answered', hits, asOf });
    },
  };
}
