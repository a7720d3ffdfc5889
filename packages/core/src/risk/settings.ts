import { err, ok, type Result } from 'neverthrow';

/** Whole-number settings; the message leaves the setting's name to the caller (option or variable). */
export const positiveInteger = (n: number): Result<number, string> =>
  Number.isSafeInteger(n) && n > 0 ? ok(n) : err(`must be a positive integer, got ${n}`);

export const nonnegativeInteger = (n: number): Result<number, string> =>
  Number.isSafeInteger(n) && n >= 0 ? ok(n) : err(`must be a nonnegative integer, got ${n}`);

/** A whole number within bounds: settings where a typo (a few digits too many) would switch a protection off. */
export const integerWithin =
  (min: number, max: number) =>
  (n: number): Result<number, string> =>
    Number.isInteger(n) && n >= min && n <= max ? ok(n) : err(`must be an integer from ${min} to ${max}, got ${n}`);
