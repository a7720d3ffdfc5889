/** Where a stored sanctions list came from: OFAC's two XML formats, or a plain address list. */
export type SanctionsListFormat = 'sdn' | 'sdn_advanced' | 'plain';

/** One listed address: the currency tag OFAC files it under (`TRX`, `USDT`, `XBT`, …) and its entry's name. */
export interface SanctionsListEntry {
  address: string;
  tag: string;
  name: string | null;
}

/** What hosts poll (cheap): which list is stored and when it was last confirmed current. */
export interface StoredSanctionsListHeader {
  /** Unique per saved list: a host that holds this id holds these entries. */
  id: string;
  /**
   * The URL (without its user-info or query: they may hold credentials) or file it was last read from: the
   * download or load that stored or last confirmed it, whose server the validators belong to.
   */
  source: string;
  format: SanctionsListFormat;
  /** The list's own publication date. */
  publishedAt: Date;
  /** Last confirmed current: a download, a 304, or an operator's load (never moves back). */
  confirmedAt: Date;
  savedAt: Date;
  addressCount: number;
  /** Validators of the download, for the next conditional request (null for a file load). */
  etag: string | null;
  lastModified: string | null;
}

export interface StoredSanctionsList extends StoredSanctionsListHeader {
  entries: SanctionsListEntry[];
}

export interface ReplaceListParams {
  /** The id of the stored list this replaces, or null for none. */
  replaces: string | null;
  list: StoredSanctionsList;
}

export interface ConfirmListParams {
  id: string;
  confirmedAt: Date;
  /** Where the confirmation came from: written with the validators, so they are only sent back there. */
  source: string;
  etag: string | null;
  lastModified: string | null;
}

export interface SanctionsListFailure {
  at: Date;
  reason: string;
}

/**
 * The last good sanctions list, shared by every host on one database: one host's refresh serves all,
 * and a restart starts from it. Exactly one list is stored (the table is bounded by the list's size).
 */
export interface SanctionsListStore {
  currentHeader(): Promise<StoredSanctionsListHeader | null>;
  currentList(): Promise<StoredSanctionsList | null>;
  /**
   * Replaces the stored list with `list` (entries and header together, one transaction), only while the
   * stored list is still `replaces` (its id, or null for none): false, and nothing written, when another
   * host got there first. `addressCount` must equal `entries.length`.
   */
  replaceList(params: ReplaceListParams): Promise<boolean>;
  /**
   * A 304 or an unchanged download: moves list `id`'s `confirmedAt` forward (never back) and sets its
   * source and validators together (validators are one server's: another's answer 304 to them wrongly).
   * False when `id` is no longer the stored list.
   */
  confirmList(params: ConfirmListParams): Promise<boolean>;
  /** Keeps the most recent failed refresh (for `sanctions status`), replacing the one before. */
  recordFailure(failure: SanctionsListFailure): Promise<void>;
  lastFailure(): Promise<SanctionsListFailure | null>;
}
