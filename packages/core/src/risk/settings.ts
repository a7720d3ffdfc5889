import { err, ok, type Result } from 'neverthrow';

/** Whole-number settings; the message leaves the setting's name to the caller (option or variable). */
export const positiveInteger = (n: number): Result<number, string> =>
  Number.isSafeInteger(n) && n > 0 ? ok(n) : err(`must be a positive integer, got ${n}`);

export const nonnegativeInteger = (n: number): Result<number, string> =>
  Number.isSafeInteger(n) && n >= 0 ? ok(n) : err(`must be a nonnegative integer, got ${n}`);
