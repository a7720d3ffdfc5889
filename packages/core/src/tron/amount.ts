import { err, ok, type Result } from 'neverthrow';

/**
 * Amounts cross the API as decimal strings in token units ("41.677389" USDT) and are
 * compared as raw integer units (41677389). Conversions are exact: no floating point.
 */
const DECIMAL = /^[0-9]+(\.[0-9]+)?$/;
const TRAILING_ZEROS = /0+$/;
export const MAX_AMOUNT_LENGTH = 320;
/** The most decimals an asset can have: 10^77 is the largest power of ten a uint256 holds. */
export const MAX_DECIMALS = 77;

/** TRX counts in sun, a millionth. */
export const TRX_DECIMALS = 6;

/** A plain nonnegative decimal string: digits, an optional fraction; no sign, exponent or spaces. */
export function isPlainDecimal(value: string): boolean {
  return value.length > 0 && value.length <= MAX_AMOUNT_LENGTH && DECIMAL.test(value);
}

export type AmountParseError = { kind: 'not_a_decimal' } | { kind: 'excess_precision'; decimals: number };

/**
 * Raw integer units of a decimal string for an asset with `decimals` decimals.
 * Trailing zeros beyond the asset's decimals are fine ("1.50" with 1 decimal);
 * a nonzero digit beyond them is an error ("1.55" with 1 decimal).
 */
export function parseAmount(value: string, decimals: number): Result<bigint, AmountParseError> {
  assertDecimals(decimals);
  if (!isPlainDecimal(value)) return err({ kind: 'not_a_decimal' });
  const point = value.indexOf('.');
  if (point === -1) return ok(BigInt(decimals === 0 ? value : value + '0'.repeat(decimals)));
  const significant = value.slice(point + 1).replace(TRAILING_ZEROS, '');
  if (significant.length > decimals) return err({ kind: 'excess_precision', decimals });
  return ok(BigInt(value.slice(0, point) + significant.padEnd(decimals, '0')));
}

/** Decimal string of raw units: no exponent, no trailing fractional zeros ("41.677389", "1", "0.5"). */
export function formatAmount(raw: bigint, decimals: number): string {
  assertDecimals(decimals);
  if (raw < 0n) throw new Error('amounts are nonnegative');
  const digits = raw.toString();
  if (decimals === 0) return digits;
  // Exact integer arithmetic on the digits: at least one digit before the point.
  const padded = digits.length > decimals ? digits : digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, padded.length - decimals);
  const fraction = padded.slice(padded.length - decimals).replace(TRAILING_ZEROS, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** Decimals come decoded and bounded (`isAssetDecimals`) from outside data: anything else is a bug. */
function assertDecimals(decimals: number): void {
  if (!isAssetDecimals(decimals)) throw new Error(`decimals must be an integer in 0..${MAX_DECIMALS}, got ${decimals}`);
}

export function isAssetDecimals(decimals: number): boolean {
  return Number.isSafeInteger(decimals) && decimals >= 0 && decimals <= MAX_DECIMALS;
}
