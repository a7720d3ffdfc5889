// The codecs against the spec's own tables: names, order, nullability, enum values and codes
// exactly as written in docs/SPEC.md (the repository's copy of the normative spec).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import fc from 'fast-check';
import type * as t from 'io-ts';
import { isoString } from '../src/contract/date-time.js';
import {
  AmlRiskLevel,
  Coverage,
  ErrorCode,
  OverallState,
  ReasonCategory,
  Severity,
  TokenAuthenticity,
  TransactionCategory,
  TransactionState,
} from '../src/contract/enums.js';
import {
  ErrorDetail,
  ErrorResponse,
  ExposureResponse,
  FreshnessResponse,
  TransactionCheckRequest,
  TransactionCheckResponse,
  TransferResponse,
  UsageLimitsResponse,
  UsagePeriodResponse,
  UsagePlanResponse,
  UsageRecentResponse,
  UsageResponse,
} from '../src/contract/models.js';
import { REASONS, reason } from '../src/contract/reasons.js';
import { describeError } from '../src/runtime/errors.js';
import { ERROR_TABLE } from './error-table.js';
// The repository's copy of the normative spec (docs/SPEC.md).
const spec = readFileSync(new URL('../../../docs/SPEC.md', import.meta.url), 'utf8').split('\n');

/** The body rows (cells, backticks removed) of the first table after the first line containing `marker`. */
function table(marker: string): string[][] {
  const start = spec.findIndex((line) => line.includes(marker));
  assert.ok(start >= 0, marker);
  let i = start;
  while (!spec[i]!.startsWith('|')) i++;
  const rows: string[][] = [];
  for (; spec[i]?.startsWith('|'); i++)
    rows.push(
      spec[i]!.split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replaceAll('`', '')),
    );
  return rows.slice(2);
}

const keysOf = (codec: { keys: object }) => Object.keys(codec.keys);
const valuesIn = (cell: string) => cell.split(',').map((v) => v.trim());

/** Field order, nullability and integer/boolean types of an object codec against a spec table. */
function assertFields(codec: t.InterfaceType<t.Props>, rows: string[][], nullableColumn: number | null) {
  assert.deepEqual(
    Object.keys(codec.props),
    rows.map(([field]) => field),
    codec.name,
  );
  for (const row of rows) {
    const [field, type] = row as [string, string];
    const prop = codec.props[field]!;
    const nullable = nullableColumn === null ? type.endsWith('or null') : row[nullableColumn] === 'yes';
    assert.equal(prop.is(null), nullable, `${codec.name}.${field} nullable`);
    if (type.startsWith('integer'))
      assert.ok(prop.is(3) && !prop.is(1.5) && !prop.is('3'), `${codec.name}.${field} integer`);
    if (type === 'boolean') assert.ok(prop.is(true) && !prop.is('true'), `${codec.name}.${field} boolean`);
    if (type.startsWith('array')) assert.ok(!prop.is({}), `${codec.name}.${field} array`);
  }
}

test('response models have the spec fields in order, with their nullability and types', () => {
  assertFields(TransactionCheckResponse, table('### TransactionCheckResponse'), 2);
  assert.equal(Object.keys(TransactionCheckResponse.props).length, 27);
  assertFields(TransferResponse, table('### TransferResponse'), 2);
  assertFields(ExposureResponse, table('### ExposureResponse'), 2);
  assertFields(FreshnessResponse, table('### FreshnessResponse'), 2);
  assertFields(UsageResponse, table('### UsageResponse'), 2);
  assertFields(UsagePeriodResponse, table('UsagePeriodResponse (all required)'), null);
  assertFields(UsageRecentResponse, table('UsageRecentResponse (all required)'), null);
  assertFields(ErrorResponse, table('### ErrorResponse'), null);
  assert.deepEqual(Object.keys(UsagePlanResponse.props), ['code', 'version', 'name']);
  assert.deepEqual(Object.keys(UsageLimitsResponse.props), [
    'rate_limit_per_minute',
    'max_concurrent_requests',
    'enabled_networks',
  ]);
  assert.deepEqual(Object.keys(ErrorDetail.props), ['code', 'message', 'retryable']);
});

test('the request has the spec fields; only tx_hash and network are required', () => {
  const rows = table('### TransactionCheckRequest');
  const [required, optional] = TransactionCheckRequest.type.types;
  assert.deepEqual(
    [...Object.keys(required.props), ...Object.keys(optional.props)],
    rows.map(([field]) => field),
  );
  assert.deepEqual(
    Object.keys(required.props),
    rows.filter((row) => row[2] === 'yes').map(([field]) => field),
  );
});

test('enums have exactly the values of the spec', () => {
  const values = Object.fromEntries(table('### TransactionCheckResponse').map(([field, , , cell]) => [field, cell!]));
  const enums: [string, { keys: object }][] = [
    ['transaction_category', TransactionCategory],
    ['transaction_state', TransactionState],
    ['aml_risk_level', AmlRiskLevel],
    ['token_authenticity', TokenAuthenticity],
    ['coverage', Coverage],
    ['overall_state', OverallState],
  ];
  for (const [field, codec] of enums) assert.deepEqual(keysOf(codec), valuesIn(values[field]!), field);
  assert.deepEqual(
    keysOf(TransactionState),
    table('### transaction_state values').map(([state]) => state),
  );
  assert.deepEqual(
    keysOf(OverallState),
    table('### overall_state values').map(([state]) => state),
  );
  const reasonRows = Object.fromEntries(table('### ReasonResponse').map(([field, , cell]) => [field, cell!]));
  assert.deepEqual(keysOf(ReasonCategory), valuesIn(reasonRows.category!));
  assert.deepEqual(keysOf(Severity), valuesIn(reasonRows.severity!));
});

test('reason codes are the spec codes, each with a category and a severity', () => {
  assert.deepEqual(
    Object.keys(REASONS),
    table('### Reason codes').map(([code]) => code),
  );
  for (const code of Object.keys(REASONS) as (keyof typeof REASONS)[]) {
    const { category, severity } = reason(code);
    assert.ok(ReasonCategory.is(category) && Severity.is(severity), code);
  }
  assert.equal(reason('SANCTIONS_HIT').severity, 'critical', 'the spec fixes this one');
});

// The spec's errors table, tested once: its codes are the ErrorCode codec's, and every row's status,
// code and retryable flag is what the runtime answers (ERROR_TABLE lists each runtime error).
test('Errors: the error table, row by row: codes, statuses and retryable as the runtime answers them', () => {
  const rows = table('| HTTP | Codes |').flatMap(([status, cell]) =>
    valuesIn(cell!).map((code) => [Number(status), code]),
  );
  assert.deepEqual(keysOf(ErrorCode).sort(), rows.map(([, code]) => code).sort());
  for (const [error, status, code, retryable] of ERROR_TABLE) {
    const d = describeError(error);
    assert.deepEqual([d.status, d.code, d.retryable], [status, code, retryable], error.kind);
    assert.ok(d.message.length > 0);
  }
  const answered = new Set(ERROR_TABLE.map(([, status, code]) => `${status} ${code}`));
  for (const [status, code] of rows) assert.ok(answered.has(`${status} ${code}`), `${status} ${code} is answered`);
  // Rule 5: the retryable column of the spec's rules (409 in progress, 429, 503, 504; not a conflict).
  for (const [, status, code, retryable] of ERROR_TABLE)
    if ([429, 503, 504].includes(status) || code === 'idempotency_in_progress') assert.ok(retryable, code);
});

test('date-time: isoString is toISOString exactly, across years, milliseconds and repeated seconds', () => {
  const near = (base: number) => fc.integer({ min: base - 5_000, max: base + 5_000 });
  const times = fc.oneof(fc.integer({ min: -8.64e15, max: 8.64e15 }), near(Date.UTC(2026, 10, 24)), near(0));
  fc.assert(
    fc.property(fc.array(times, { minLength: 1, maxLength: 80 }), (list) =>
      list.every((ms) => isoString(new Date(ms)) === new Date(ms).toISOString()),
    ),
    { seed: 20261124, numRuns: 300 },
  );
  assert.throws(() => isoString(new Date(Number.NaN)), RangeError);
});
