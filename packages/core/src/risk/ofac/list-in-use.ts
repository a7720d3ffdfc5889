import type { SanctionsListEntry, SanctionsListFormat, StoredSanctionsList } from '../../stores/sanctions-lists.js';
import { OFAC_TRON_AS_OF, OFAC_TRON_ENTRIES } from '../data/ofac-tron.js';
import { credibleLastModified, notInFuture } from '../list-dates.js';
import { publicUrl } from '../public-url.js';
import type { SanctionsList } from '../sanctions-list.js';
import type { OfacValidators } from './download.js';

/** The OFAC list a process screens with, and what is known about it. */
export interface OfacListInUse {
  /** The stored list's id; null for the bundled snapshot (never stored). */
  id: string | null;
  /** The URL (without user-info or query, see `publicUrl`) or file it was read from, or `bundled snapshot`. */
  source: string;
  format: SanctionsListFormat | 'bundled';
  publishedAt: Date;
  /** Last confirmed current: the screen's as-of date. */
  confirmedAt: Date;
  validators: OfacValidators | null;
  list: SanctionsList;
  /**
   * The bundled snapshot screened in place of stored list `id`, which holds no TRON address. Nothing said of
   * that list (its confirmation by a host or an operator) dates the snapshot: it keeps its own date.
   */
  substitute: boolean;
}

/** Hit detail: `OFAC SDN (Digital Currency Address - XBT)` and the entry's name (a plain list has no tags). */
export function screeningList(
  entries: readonly SanctionsListEntry[],
  confirmedAt: Date,
  format: OfacListInUse['format'] = 'sdn',
): SanctionsList {
  const sourceOf = (tag: string) =>
    format === 'plain' ? 'OFAC SDN (plain list loaded by an operator)' : `OFAC SDN (Digital Currency Address - ${tag})`;
  return {
    asOf: confirmedAt,
    full: true,
    addresses: new Map(entries.map((e) => [e.address, { source: sourceOf(e.tag), name: e.name }])),
  };
}

/** A list stored by an earlier version keeps its URL whole (a token in its query) until the next list: shown without it. */
export const shownSource = (source: string): string => (/^(https?|file):/i.test(source) ? publicUrl(source) : source);

/**
 * The stored list as this process screens with it. Dates in the future (stored by a host whose clock was
 * ahead, or by an earlier version) are not believed: a confirmation in the future falls back to the
 * publication date (the list was current then), else to no date at all (1970: past any age limit).
 */
export function listInUseOf(stored: StoredSanctionsList, now: Date = new Date()): OfacListInUse {
  // An earlier version let `sanctions load --force` store a list without a TRON address. Screened with,
  // it would pass every listed address, and dated today it would refuse OFAC's next list as older: the
  // snapshot is screened instead, under the stored id, so the next list taken replaces that row; that row's
  // confirmation never dates the snapshot (`substitute`), which would then pass everything designated since.
  const source = shownSource(stored.source);
  if (stored.entries.length === 0) {
    return {
      ...bundledOfacList(),
      id: stored.id,
      source: `bundled snapshot (${source} holds no TRON address)`,
      substitute: true,
    };
  }
  const published = notInFuture(stored.publishedAt, now);
  const confirmedAt = notInFuture(stored.confirmedAt, now) ?? published ?? new Date(0);
  return {
    id: stored.id,
    source,
    format: stored.format,
    publishedAt: published ?? confirmedAt,
    confirmedAt,
    validators: { etag: stored.etag, lastModified: credibleLastModified(stored.lastModified, now) },
    list: screeningList(stored.entries, confirmedAt, stored.format),
    substitute: false,
  };
}

/**
 * The snapshot bundled with the package: the starting point until a refresh succeeds (or a stored list
 * is found). Its date is the true date of its contents, the oldest of the lists it was made from (see
 * `data/ofac-tron.ts`), so with the default age limit it proves nothing clean on its own today.
 */
export function bundledOfacList(): OfacListInUse {
  const asOf = new Date(OFAC_TRON_AS_OF);
  const entries = OFAC_TRON_ENTRIES.map(([address, tag, name]) => ({ address, tag, name }));
  return {
    id: null,
    source: 'bundled snapshot',
    format: 'bundled',
    publishedAt: asOf,
    confirmedAt: asOf,
    validators: null,
    list: screeningList(entries, asOf),
    substitute: false,
  };
}
