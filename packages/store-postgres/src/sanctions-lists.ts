import type {
  ConfirmListParams,
  ReplaceListParams,
  SanctionsListFailure,
  SanctionsListStore,
  StoredSanctionsList,
  StoredSanctionsListHeader,
} from '@tron-safety/core';
import * as t from 'io-ts';
import type pg from 'pg';
import { inTransaction } from './connection.js';
import { Count, decodeRow, decodeRows, PgDate } from './rows.js';

const HeaderRow = t.type({
  id: t.string,
  source: t.string,
  format: t.keyof({ sdn: null, sdn_advanced: null, plain: null }),
  published_at: PgDate,
  confirmed_at: PgDate,
  saved_at: PgDate,
  address_count: Count,
  etag: t.union([t.string, t.null]),
  last_modified: t.union([t.string, t.null]),
});
const EntryRow = t.type({ address: t.string, tag: t.string, name: t.union([t.string, t.null]) });
const FailureRow = t.type({ at: PgDate, reason: t.string });

const HEADER_COLUMNS = 'id, source, format, published_at, confirmed_at, saved_at, address_count, etag, last_modified';

/**
 * A date a host's clock gave, capped at the database's: the one clock every host shares referees. A host whose
 * clock is ahead would otherwise store a confirmation that other hosts believe once real time reaches it, so a
 * list no host has confirmed since would read as current.
 */
const NOT_AFTER_NOW = (param: string) => `LEAST(${param}::timestamptz, now())`;

function headerOf(row: t.TypeOf<typeof HeaderRow>): StoredSanctionsListHeader {
  return {
    id: row.id,
    source: row.source,
    format: row.format,
    publishedAt: row.published_at,
    confirmedAt: row.confirmed_at,
    savedAt: row.saved_at,
    addressCount: row.address_count,
    etag: row.etag,
    lastModified: row.last_modified,
  };
}

/** The shared last good sanctions list: a header row and its entries, replaced in one transaction. */
export class PostgresSanctionsListStore implements SanctionsListStore {
  constructor(private readonly pool: pg.Pool) {}

  async currentHeader(): Promise<StoredSanctionsListHeader | null> {
    const { rows } = await this.pool.query(`SELECT ${HEADER_COLUMNS} FROM sanctions_list`);
    const row = decodeRow(HeaderRow, rows, 'sanctions_list');
    return row && headerOf(row);
  }

  /** Header and entries from one snapshot (a repeatable-read transaction), so they always belong together. */
  async currentList(): Promise<StoredSanctionsList | null> {
    return inTransaction(this.pool, async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const header = decodeRow(
        HeaderRow,
        (await client.query(`SELECT ${HEADER_COLUMNS} FROM sanctions_list`)).rows,
        'sanctions_list',
      );
      if (!header) return null;
      const { rows } = await client.query(
        'SELECT address, tag, name FROM sanctions_list_entries WHERE list_id = $1 ORDER BY address',
        [header.id],
      );
      return { ...headerOf(header), entries: decodeRows(EntryRow, rows, 'sanctions_list_entries') };
    });
  }

  async replaceList({ replaces, list }: ReplaceListParams): Promise<boolean> {
    if (list.addressCount !== list.entries.length) throw new RangeError('addressCount must equal entries.length');
    return inTransaction(this.pool, async (client) => {
      const values = [
        list.id,
        list.source,
        list.format,
        list.publishedAt,
        list.confirmedAt,
        list.savedAt,
        list.addressCount,
        list.etag,
        list.lastModified,
      ];
      // Compare-and-set on the singleton row: the row lock orders concurrent replacements.
      const written =
        replaces === null
          ? await client.query(
              `INSERT INTO sanctions_list (${HEADER_COLUMNS})
               VALUES ($1, $2, $3, ${NOT_AFTER_NOW('$4')}, ${NOT_AFTER_NOW('$5')}, $6, $7, $8, $9)
               ON CONFLICT (singleton) DO NOTHING RETURNING id`,
              values,
            )
          : await client.query(
              `UPDATE sanctions_list SET id = $1, source = $2, format = $3, published_at = ${NOT_AFTER_NOW('$4')},
                 confirmed_at = ${NOT_AFTER_NOW('$5')}, saved_at = $6, address_count = $7, etag = $8, last_modified = $9
               WHERE id = $10 RETURNING id`,
              [...values, replaces],
            );
      if (written.rowCount !== 1) return false;
      await client.query('DELETE FROM sanctions_list_entries WHERE list_id <> $1', [list.id]);
      await client.query(
        `INSERT INTO sanctions_list_entries (list_id, address, tag, name)
         SELECT $1::uuid, * FROM unnest($2::text[], $3::text[], $4::text[])`,
        [list.id, list.entries.map((e) => e.address), list.entries.map((e) => e.tag), list.entries.map((e) => e.name)],
      );
      return true;
    });
  }

  async confirmList(params: ConfirmListParams): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE sanctions_list SET confirmed_at = GREATEST(confirmed_at, ${NOT_AFTER_NOW('$2')}), source = $3, etag = $4,
         last_modified = $5
       WHERE id = $1`,
      [params.id, params.confirmedAt, params.source, params.etag, params.lastModified],
    );
    return result.rowCount === 1;
  }

  async recordFailure(failure: SanctionsListFailure): Promise<void> {
    await this.pool.query(
      `INSERT INTO sanctions_list_failure (at, reason) VALUES ($1, $2)
       ON CONFLICT (singleton) DO UPDATE SET at = EXCLUDED.at, reason = EXCLUDED.reason`,
      [failure.at, failure.reason],
    );
  }

  async lastFailure(): Promise<SanctionsListFailure | null> {
    const { rows } = await this.pool.query('SELECT at, reason FROM sanctions_list_failure');
    return decodeRow(FailureRow, rows, 'sanctions_list_failure');
  }
}
