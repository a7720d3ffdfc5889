import BigNumber from 'bignumber.js';
import { err, ok, type Result } from 'neverthrow';

/**
 * Amounts cross the API as decimal strings in token units ("41.677389" USDT) and are
 * compared as raw integer units (41677389). Conversions are exact: no floating point.
 */
const DECIMAL = /^[0-9]+(\.[0-9]+)?$/;
export const MAX_AMOUNT_LENGTH = 320;
/** The most decimals an asset can have: 10^77 is the largest power of ten a uint256 holds. */
export const MAX_DECIMALS = 77;

// Our own BigNumber constructor: settings on the global one (by a host) cannot change results.
const Big = BigNumber.clone({ EXPONENTIAL_AT: 1e9, DECIMAL_PLACES: 0, ROUNDING_MODE: BigNumber.ROUND_DOWN });

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
  const [whole = '0', fraction = ''] = value.split('.');
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > decimals) return err({ kind: 'excess_precision', decimals });
  return ok(BigInt(whole + significant.padEnd(decimals, '0')));
}

/** Decimal string of raw units: no exponent, no trailing fractional zeros ("41.677389", "1", "0.5"). */
export function formatAmount(raw: bigint, decimals: number): string {
  assertDecimals(decimals);
  if (raw < 0n) throw new Error('amounts are nonnegative');
  return new Big(raw.toString()).shiftedBy(-decimals).toFixed();
}

/** Decimals come decoded and bounded (`isAssetDecimals`) from outside data: anything else is a bug. */
function assertDecimals(decimals: number): void {
  if (!isAssetDecimals(decimals)) throw new Error(`decimals must be an integer in 0..${MAX_DECIMALS}, got ${decimals}`);
}

export function isAssetDecimals(decimals: number): boolean {
  return Number.isSafeInteger(decimals) && decimals >= 0 && decimals <= MAX_DECIMALS;
}
