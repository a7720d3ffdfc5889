import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatAmount, isPlainDecimal, MAX_DECIMALS, parseAmount } from '../src/tron/amount.js';
import { canonicalAmount } from '../src/validation/index.js';

const digits = (maxLength: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength });
const decimals = fc.integer({ min: 0, max: 30 });
const RUNS = { seed: 2026, numRuns: 1000 };

test('property: parseAmount(formatAmount(raw, d), d) round-trips for decimals 0 to 30', () => {
  fc.assert(
    fc.property(digits(80), decimals, (raw, d) => {
      const units = BigInt(raw);
      const text = formatAmount(units, d);
      assert.ok(isPlainDecimal(text), text);
      assert.doesNotMatch(text, /\.\d*0$|^0\d/, 'no trailing fraction zeros, no leading zeros');
      return parseAmount(text, d)._unsafeUnwrap() === units;
    }),
    RUNS,
  );
});

test('property: a decimal string within the precision parses and formats back to its canonical form', () => {
  fc.assert(
    fc.property(digits(40), fc.option(digits(30), { nil: undefined }), decimals, (whole, fraction, d) => {
      fc.pre(fraction === undefined || fraction.replace(/0+$/, '').length <= d);
      const text = fraction === undefined ? whole : `${whole}.${fraction}`;
      const units = parseAmount(text, d)._unsafeUnwrap();
      return formatAmount(units, d) === canonicalAmount(text);
    }),
    RUNS,
  );
});

test('property: a nonzero digit beyond the precision is excess_precision, trailing zeros are not', () => {
  fc.assert(
    fc.property(
      digits(20),
      decimals,
      fc.integer({ min: 1, max: 9 }),
      fc.integer({ min: 1, max: 12 }),
      (whole, d, last, zeros) => {
        const fraction = '0'.repeat(d);
        assert.ok(parseAmount(`${whole}.${fraction}${'0'.repeat(zeros)}`, d).isOk());
        const excess = parseAmount(`${whole}.${fraction}${last}${'0'.repeat(zeros)}`, d);
        return excess.isErr() && excess.error.kind === 'excess_precision';
      },
    ),
    RUNS,
  );
});

test('amount examples', () => {
  const parsed: [string, number, bigint][] = [
    ['41.677389', 6, 41_677_389n],
    ['1.50', 2, 150n],
    ['1.50', 1, 15n],
    ['1.5000000', 6, 1_500_000n],
    ['0', 0, 0n],
    ['0.000', 6, 0n],
    ['5.0', 0, 5n],
    ['007', 0, 7n],
    ['0.000000000000000001', 18, 1n],
    ['123456789012345678901234567890', 30, 123456789012345678901234567890n * 10n ** 30n],
  ];
  for (const [text, d, raw] of parsed) assert.equal(parseAmount(text, d)._unsafeUnwrap(), raw, `${text} @ ${d}`);

  for (const [text, d] of [
    ['1.505', 2],
    ['5.1', 0],
    ['0.0000001', 6],
  ] as const) {
    assert.deepEqual(parseAmount(text, d)._unsafeUnwrapErr(), { kind: 'excess_precision', decimals: d }, text);
  }
  for (const text of ['', '1e5', '-1', '+1', ' 1', '1.', '.5', '1,5', '0x1', 'NaN', '1'.repeat(321)]) {
    assert.deepEqual(parseAmount(text, 6)._unsafeUnwrapErr(), { kind: 'not_a_decimal' }, JSON.stringify(text));
  }
  assert.ok(parseAmount('1'.repeat(320), 0).isOk(), '320 characters are allowed');

  const formatted: [bigint, number, string][] = [
    [41_677_389n, 6, '41.677389'],
    [0n, 6, '0'],
    [1n, 6, '0.000001'],
    [1_500_000n, 6, '1.5'],
    [100n, 0, '100'],
    [10n ** 40n, 0, `1${'0'.repeat(40)}`],
    [1n, 30, `0.${'0'.repeat(29)}1`],
  ];
  for (const [raw, d, text] of formatted) assert.equal(formatAmount(raw, d), text, `${raw} @ ${d}`);
});

test('bad decimals or a negative amount are programmer errors', () => {
  assert.throws(() => parseAmount('1', -1));
  assert.throws(() => parseAmount('1', 1.5));
  assert.throws(() => formatAmount(1n, Number.NaN));
  assert.throws(() => formatAmount(-1n, 6));
  // Bounded: a huge precision would format to "0" or block the event loop for seconds.
  assert.throws(() => formatAmount(1n, MAX_DECIMALS + 1));
  assert.throws(() => parseAmount('1', 20_000_000));
  assert.equal(formatAmount(1n, MAX_DECIMALS), `0.${'0'.repeat(MAX_DECIMALS - 1)}1`);
  assert.equal(parseAmount('1', MAX_DECIMALS)._unsafeUnwrap(), 10n ** 77n);
});
