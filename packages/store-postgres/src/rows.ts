import { decode, formatDecodeError } from '@tron-safety/core';
import * as t from 'io-ts';

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A timestamptz column: node-postgres hands it over as a Date; inside a json column it is PostgreSQL's
 * ISO 8601 text with its offset (`2026-01-02T03:04:05.678+00:00`).
 */
export const PgDate = new t.Type<Date, Date, unknown>(
  'PgDate',
  (u): u is Date => u instanceof Date,
  (u, c) => {
    const date = u instanceof Date ? u : typeof u === 'string' && ISO_TIMESTAMP.test(u) ? new Date(u) : null;
    return date && !Number.isNaN(date.getTime()) ? t.success(date) : t.failure(u, c);
  },
  (d) => d,
);

/**
 * Decodes database rows through `codec`. A row that does not decode means the schema and the
 * code disagree: that is a store failure, so it throws (the promise rejects), naming the fields
 * but never echoing their values (a `DecodeError` never carries a string's text).
 */
export function decodeRows<C extends t.Mixed>(codec: C, rows: readonly unknown[], table: string): Array<t.TypeOf<C>> {
  return rows.map((row) => {
    const decoded = decode(codec, row);
    if (decoded.isOk()) return decoded.value;
    const { fields } = decoded.error;
    const where = `fields: ${fields.join(', ') || 'row'}; ${formatDecodeError(decoded.error)}`;
    throw new Error(`unexpected ${table} row from the database (${where})`);
  });
}

export function decodeRow<C extends t.Mixed>(codec: C, rows: readonly unknown[], table: string): t.TypeOf<C> | null {
  return decodeRows(codec, rows.slice(0, 1), table)[0] ?? null;
}

const COUNTS = /^([0-9]+(,[0-9]+)*)?$/;

/** An integer[] of counts sent as `array_to_string(a, ',')`: decoded in one pass, not element by element. */
export const Histogram = new t.Type<number[], number[], unknown>(
  'Histogram',
  (u): u is number[] => Array.isArray(u) && u.every((n) => Number.isSafeInteger(n) && n >= 0),
  (u, c) => {
    if (typeof u !== 'string' || !COUNTS.test(u)) return t.failure(u, c);
    const counts = u === '' ? [] : u.split(',').map(Number);
    return counts.every((n) => Number.isSafeInteger(n)) ? t.success(counts) : t.failure(u, c);
  },
  (counts) => counts,
);

/** A count(*) that SQL returns as bigint (a string in node-postgres) or int. */
export const Count = new t.Type<number, number, unknown>(
  'Count',
  (u): u is number => typeof u === 'number',
  (u, c) => {
    const n = typeof u === 'string' ? Number(u) : u;
    return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? t.success(n) : t.failure(u, c);
  },
  (n) => n,
);
