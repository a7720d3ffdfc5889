import { randomUUID } from 'node:crypto';
import { err, ok, type Result } from 'neverthrow';
import type {
  SanctionsListEntry,
  SanctionsListFailure,
  SanctionsListFormat,
  SanctionsListStore,
  StoredSanctionsList,
} from '../../stores/sanctions-lists.js';
import { DEFAULT_MAX_LIST_LOSS, type SanctionsList } from '../sanctions-list.js';
import { downloadOfacList, type OfacDownloadLimits, type OfacValidators } from './download.js';
import { bundledOfacList, listInUseOf, shownSource, type OfacListInUse } from './list-in-use.js';
import { publicUrl } from '../public-url.js';
import { rethrowProgrammerError } from '../../chain/programmer-error.js';
import { credibleLastModified, futureDate, notInFuture } from '../list-dates.js';

/** A list read from a download or a file, before it is judged against the list in use. */
export interface CandidateList {
  source: string;
  format: SanctionsListFormat;
  publishedAt: Date;
  /** When it is known to be current: the download's time, or what an operator says of a file. */
  confirmedAt: Date;
  entries: readonly SanctionsListEntry[];
  validators: OfacValidators | null;
}

export type RefreshOutcome =
  /** The candidate is now the list in use (and stored). */
  | { kind: 'replaced'; addresses: number; previous: number }
  /** A 304, or the same list again: the list in use is confirmed current. */
  | { kind: 'confirmed' }
  /** Another host stored a list meanwhile: this process now screens with that one. */
  | { kind: 'superseded' };

/**
 * Why the list in use was kept: the download failed (`download`: network, status, size, time) or did not
 * parse (`parse`: garbage, truncated, or no TRON address at all), the new list is worse (`shrunk`: lost more
 * than the allowed share of addresses; `older`: published before the list in use, or a version of its day
 * not known to be later: modified earlier on the same server, or from another source without some of its
 * addresses), it is dated in the future (`future`: published or confirmed beyond this host's clock, a typo or
 * a wrong clock; a file modified in the future is a `download` failure), or the store failed (`store`).
 */
export interface RefreshFailure {
  kind: 'download' | 'parse' | 'shrunk' | 'older' | 'future' | 'store';
  reason: string;
}

export interface OfacListStatus {
  source: string;
  format: OfacListInUse['format'];
  publishedAt: Date;
  confirmedAt: Date;
  addresses: number;
  lastFailure: SanctionsListFailure | null;
  /** Refreshes since start, by outcome (failures by kind). */
  counts: Record<RefreshOutcome['kind'] | RefreshFailure['kind'], number>;
}

export interface OfacRefresherOptions {
  /** Where the last good list is kept (shared by hosts on PostgreSQL). */
  store: SanctionsListStore;
  /** OFAC's list (http(s) or file:); null = no downloads (`sync` and `apply` still work). */
  url: string | null;
  limits?: Partial<OfacDownloadLimits>;
  /** Largest share of the addresses in use a new list may lose (default 0.10). */
  maxLoss?: number;
  now?: () => Date;
}

/**
 * The OFAC list in use and how it is kept current. A refresh never makes things worse: a failed,
 * truncated, unparsable, shrunken or older download leaves the list in use as it is (and is counted and
 * recorded); only `apply(…, { force: true })` takes a shrunken or older list, on an operator's word, and
 * nothing takes one without a TRON address. Every list taken is stored first (compare-and-set on the list
 * in use), so every process sharing the store screens with the newest stored list once it `sync`s.
 */
export class OfacRefresher {
  #inUse: OfacListInUse = bundledOfacList();
  #lastFailure: SanctionsListFailure | null = null;
  readonly #counts: OfacListStatus['counts'] = {
    replaced: 0,
    confirmed: 0,
    superseded: 0,
    download: 0,
    parse: 0,
    shrunk: 0,
    older: 0,
    future: 0,
    store: 0,
  };
  readonly #now: () => Date;

  constructor(private readonly options: OfacRefresherOptions) {
    this.#now = options.now ?? (() => new Date());
  }

  /** The list to screen with (its `asOf` is when it was last confirmed current). */
  current(): SanctionsList {
    return this.#inUse.list;
  }

  inUse(): OfacListInUse {
    return this.#inUse;
  }

  status(): OfacListStatus {
    const { source, format, publishedAt, confirmedAt, list } = this.#inUse;
    const counts = { ...this.#counts };
    return {
      source,
      format,
      publishedAt,
      confirmedAt,
      addresses: list.addresses.size,
      lastFailure: this.#lastFailure,
      counts,
    };
  }

  /** Adopts the stored list when it is another than the one in use, or confirmed later; rejects when the store fails. */
  async sync(): Promise<'adopted' | 'confirmed' | 'unchanged'> {
    // A refresh or load of this host's may replace the list while the store is read: then what was
    // read is older than what this host holds, and the next sync reads again.
    const before = this.#inUse;
    const header = await this.options.store.currentHeader();
    if (header === null) return 'unchanged';
    if (header.id === this.#inUse.id) {
      // A confirmation in the future (a host whose clock is ahead) confirms nothing.
      const confirmedAt = notInFuture(header.confirmedAt, this.#now());
      if (confirmedAt === null || !this.#datesInUse(confirmedAt)) return 'unchanged';
      const validators = { etag: header.etag, lastModified: header.lastModified };
      // A confirmation by an earlier version's host leaves a row's whole URL in place.
      this.#setConfirmed(confirmedAt, shownSource(header.source), validators);
      return 'confirmed';
    }
    const stored = await this.options.store.currentList();
    if (stored === null || this.#inUse !== before) return 'unchanged';
    this.#inUse = listInUseOf(stored, this.#now());
    this.#lastFailure ??= await this.options.store.lastFailure();
    return 'adopted';
  }

  /** Downloads OFAC's list (conditionally when the list in use came from the same URL) and applies it. */
  async refresh(signal?: AbortSignal): Promise<Result<RefreshOutcome, RefreshFailure>> {
    const url = this.options.url;
    if (url === null) throw new Error('refresh() without a URL: refreshing is off');
    const startedAt = this.#now();
    const asked = this.#inUse;
    // Stored, logged and shown without the URL's credentials (a token in its query, user-info).
    const source = publicUrl(url);
    const kept = asked.source === source ? asked.validators : null;
    // Validators without a value (a server that sent neither header) make the request unconditional.
    const validators = kept?.etag || kept?.lastModified ? kept : null;
    const downloaded = await downloadOfacList({
      url,
      validators,
      ...(this.options.limits ? { limits: this.options.limits } : {}),
      ...(signal ? { signal } : {}),
    });
    if (downloaded.isErr()) return this.#fail(downloaded.error);
    // An HTTP answer is current when it comes; a file (an air-gapped copy) only as of when it was written,
    // and a file written in the future would be confirmed current at every refresh, never aging.
    const { writtenAt } = downloaded.value;
    if (writtenAt && notInFuture(writtenAt, startedAt) === null)
      return this.#fail({ kind: 'download', reason: `file ${futureDate('modified', writtenAt, startedAt)}` });
    const currentAt = writtenAt && writtenAt < startedAt ? writtenAt : startedAt;
    if (downloaded.value.kind === 'not_modified') {
      // Only an answer to our own conditional request confirms, and only the list it asked about.
      if (validators === null) return this.#fail({ kind: 'download', reason: 'HTTP 304 to an unconditional request' });
      return this.#confirm(asked.id, currentAt, source, validators);
    }
    const { list, validators: sent } = downloaded.value;
    // A Last-Modified in the future, sent back as If-Modified-Since, would have every later version answer 304.
    const received = { ...sent, lastModified: credibleLastModified(sent.lastModified, startedAt) };
    return this.apply({ ...list, source, confirmedAt: currentAt, validators: received });
  }

  /** Judges `candidate` against the newest list in use and stores and adopts it when it is no worse (or `force`). */
  async apply(
    given: CandidateList,
    options: { force?: boolean } = {},
  ): Promise<Result<RefreshOutcome, RefreshFailure>> {
    // Nothing is known current or published beyond now: a date in the future (a typo in --as-of or
    // `# as-of`, a wrong clock) is refused, even with `force`, since counted as now it would keep a stale
    // list young at every load; within the clock skew it counts as now.
    const now = this.#now();
    const confirmedAt = notInFuture(given.confirmedAt, now);
    const publishedAt = notInFuture(given.publishedAt, now);
    if (confirmedAt === null)
      return this.#fail({ kind: 'future', reason: futureDate('confirmed', given.confirmedAt, now) });
    if (publishedAt === null)
      return this.#fail({ kind: 'future', reason: futureDate('published', given.publishedAt, now) });
    // A list without a TRON address is an empty or wrong file, never OFAC's list (the bundled snapshot alone
    // holds hundreds), and in use it would screen every sanctioned address clean: refused even with `force`.
    if (given.entries.length === 0)
      return this.#fail({ kind: 'parse', reason: `${given.source} holds no TRON address: not an OFAC list` });
    const candidate = { ...given, confirmedAt, publishedAt };
    try {
      await this.sync();
      const worse = options.force ? null : this.#worse(candidate);
      if (worse) return this.#fail(worse);
      if (this.#sameList(candidate))
        return this.#confirm(this.#inUse.id, candidate.confirmedAt, candidate.source, candidate.validators);
      const stored: StoredSanctionsList = {
        id: randomUUID(),
        source: candidate.source,
        format: candidate.format,
        publishedAt: candidate.publishedAt,
        confirmedAt: candidate.confirmedAt,
        savedAt: this.#now(),
        addressCount: candidate.entries.length,
        etag: candidate.validators?.etag ?? null,
        lastModified: candidate.validators?.lastModified ?? null,
        entries: [...candidate.entries],
      };
      if (!(await this.options.store.replaceList({ replaces: this.#inUse.id, list: stored }))) {
        await this.sync();
        return this.#count(ok({ kind: 'superseded' }));
      }
      const previous = this.#inUse.list.addresses.size;
      this.#inUse = listInUseOf(stored);
      return this.#count(ok({ kind: 'replaced', addresses: stored.addressCount, previous }));
    } catch (cause) {
      rethrowProgrammerError(cause); // a bug is not the store failing
      return this.#fail({ kind: 'store', reason: `sanctions list store failed: ${(cause as Error).message}` });
    }
  }

  #worse(candidate: CandidateList): RefreshFailure | null {
    // Loss is counted by address, not by size: a list that swaps listed addresses for others of the same
    // number has lost them all.
    const inUse = this.#inUse.list.addresses;
    const offered = new Set(candidate.entries.map((e) => e.address));
    let lost = 0;
    for (const address of inUse.keys()) if (!offered.has(address)) lost++;
    const maxLoss = this.options.maxLoss ?? DEFAULT_MAX_LIST_LOSS;
    if (lost > inUse.size * maxLoss) {
      const share = Math.round((lost / inUse.size) * 100);
      return {
        kind: 'shrunk',
        reason: `the new list lacks ${lost} (${share}%) of the ${inUse.size} TRON addresses in use, more than ${Math.round(maxLoss * 100)}% (it has ${offered.size})`,
      };
    }
    // Publication dates are days (OFAC's Publish_Date; a plain list's `# as-of` may carry a time of day).
    if (utcDay(candidate.publishedAt) < utcDay(this.#inUse.publishedAt)) {
      return {
        kind: 'older',
        reason: `the new list is published ${candidate.publishedAt.toISOString().slice(0, 10)}, before the list in use (${this.#inUse.publishedAt.toISOString().slice(0, 10)})`,
      };
    }
    if (utcDay(candidate.publishedAt) !== utcDay(this.#inUse.publishedAt)) return null;
    return this.#earlierSameDay(candidate, lost);
  }

  /**
   * A publication date is a day. Of two versions of one day from one server, the later-modified one wins. A
   * mirror's Last-Modified is when it copied the file, not when OFAC published it, so another server's date
   * says nothing of which version is later: from another source, the version keeping every TRON address of
   * the list in use (as many designations or more) wins, and one lacking any (`lost`) is refused.
   */
  #earlierSameDay(candidate: CandidateList, lost: number): RefreshFailure | null {
    const inUse = this.#inUse;
    if (candidate.source !== inUse.source) {
      if (lost === 0) return null;
      return {
        kind: 'older',
        reason: `the new list is a version of the same day from another source (${candidate.source}) without ${lost} of the TRON addresses in use (from ${inUse.source}): it may be an earlier version`,
      };
    }
    const modified = (validators: OfacValidators | null) => Date.parse(validators?.lastModified ?? '');
    if (modified(candidate.validators) < modified(inUse.validators)) {
      return {
        kind: 'older',
        reason: `the new list is a version of the same day modified ${candidate.validators?.lastModified}, before the list in use (${inUse.validators?.lastModified})`,
      };
    }
    return null;
  }

  #sameList(candidate: CandidateList): boolean {
    // The snapshot in place of a stored list without a TRON address is not that list: a candidate with the
    // snapshot's contents is stored over it, not confirmed as it.
    const { list, publishedAt, id, substitute } = this.#inUse;
    if (id === null || substitute || publishedAt.getTime() !== candidate.publishedAt.getTime()) return false;
    if (list.addresses.size !== candidate.entries.length) return false;
    return candidate.entries.every((e) => list.addresses.get(e.address)?.name === e.name);
  }

  /** Confirms list `id` current at `at`; a list adopted since (another host's, an operator's) is not the one confirmed. */
  async #confirm(
    id: string | null,
    at: Date,
    source: string,
    validators: OfacValidators | null,
  ): Promise<Result<RefreshOutcome, RefreshFailure>> {
    if (id !== this.#inUse.id) return this.#count(ok({ kind: 'superseded' }));
    try {
      const params = {
        confirmedAt: at,
        source,
        etag: validators?.etag ?? null,
        lastModified: validators?.lastModified ?? null,
      };
      if (id !== null && !(await this.options.store.confirmList({ id, ...params }))) {
        await this.sync();
        return this.#count(ok({ kind: 'superseded' }));
      }
    } catch (cause) {
      rethrowProgrammerError(cause); // a bug is not the store failing
      return this.#fail({ kind: 'store', reason: `sanctions list store failed: ${(cause as Error).message}` });
    }
    // Another list adopted while the store confirmed this one: the confirmation is not about it.
    if (id !== this.#inUse.id) return this.#count(ok({ kind: 'superseded' }));
    if (this.#datesInUse(at)) this.#setConfirmed(at, source, validators);
    return this.#count(ok({ kind: 'confirmed' }));
  }

  /**
   * Whether a confirmation at `at` makes the list in use younger. Never the snapshot screened in place of a
   * stored list without a TRON address: that list's confirmation says nothing of the snapshot's contents.
   */
  #datesInUse(at: Date): boolean {
    return !this.#inUse.substitute && at.getTime() > this.#inUse.confirmedAt.getTime();
  }

  /** Source and validators change together: validators are only ever sent back to the server that sent them. */
  #setConfirmed(at: Date, source: string, validators: OfacValidators | null): void {
    const list = { ...this.#inUse.list, asOf: at };
    this.#inUse = { ...this.#inUse, confirmedAt: at, source, validators, list };
  }

  async #fail(failure: RefreshFailure): Promise<Result<never, RefreshFailure>> {
    this.#lastFailure = { at: this.#now(), reason: `${failure.kind}: ${failure.reason}` };
    this.#counts[failure.kind]++;
    await this.options.store.recordFailure(this.#lastFailure).catch(() => {});
    return err(failure);
  }

  #count<T extends RefreshOutcome>(result: Result<T, never>): Result<T, never> {
    if (result.isOk()) this.#counts[result.value.kind]++;
    return result;
  }
}

function utcDay(d: Date): number {
  return Math.floor(d.getTime() / 86_400_000);
}
