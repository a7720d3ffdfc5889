import type {
  ConfirmListParams,
  ReplaceListParams,
  SanctionsListFailure,
  SanctionsListStore,
  StoredSanctionsList,
  StoredSanctionsListHeader,
} from '@tron-safety/core';

const header = ({ entries: _, ...rest }: StoredSanctionsList): StoredSanctionsListHeader => ({
  ...rest,
  publishedAt: new Date(rest.publishedAt),
  confirmedAt: new Date(rest.confirmedAt),
  savedAt: new Date(rest.savedAt),
});

/** The last good sanctions list of this process (one list; replaced whole, never edited in place). */
export class MemorySanctionsListStore implements SanctionsListStore {
  #list: StoredSanctionsList | null = null;
  #failure: SanctionsListFailure | null = null;

  async currentHeader(): Promise<StoredSanctionsListHeader | null> {
    return this.#list && header(this.#list);
  }

  async currentList(): Promise<StoredSanctionsList | null> {
    return this.#list && { ...header(this.#list), entries: this.#list.entries.map((e) => ({ ...e })) };
  }

  async replaceList({ replaces, list }: ReplaceListParams): Promise<boolean> {
    if ((this.#list?.id ?? null) !== replaces) return false;
    if (list.addressCount !== list.entries.length) throw new RangeError('addressCount must equal entries.length');
    this.#list = { ...header(list), entries: list.entries.map((e) => ({ ...e })) };
    return true;
  }

  async confirmList(params: ConfirmListParams): Promise<boolean> {
    const list = this.#list;
    if (list?.id !== params.id) return false;
    const confirmedAt = new Date(Math.max(list.confirmedAt.getTime(), params.confirmedAt.getTime()));
    const { source, etag, lastModified } = params;
    this.#list = { ...list, confirmedAt, source, etag, lastModified };
    return true;
  }

  async recordFailure(failure: SanctionsListFailure): Promise<void> {
    this.#failure = { at: new Date(failure.at), reason: failure.reason };
  }

  async lastFailure(): Promise<SanctionsListFailure | null> {
    return this.#failure && { ...this.#failure, at: new Date(this.#failure.at) };
  }
}
