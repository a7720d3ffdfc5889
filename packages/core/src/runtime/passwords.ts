import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { ok, type Result } from 'neverthrow';
import { WorkLimit, type WorkLimitBusy } from './work-limit.js';

// Member passwords: scrypt with a random salt per password. The parameters are stored with the
// hash, so they can be raised later without invalidating existing passwords.

/** N = 2^15, r = 8, p = 3: one of OWASP's equivalent scrypt settings (32 MiB, about 0.2 s). */
const DEFAULT_COST = { N: 2 ** 15, r: 8, p: 3 };
/** Bounds on what a stored hash may ask for, so a corrupt row cannot make a sign-in take minutes or gigabytes. */
const MAX_N = 2 ** 20;
const MAX_P = 16;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;
/**
 * Derivations at once, and how many more may wait: each holds one of libuv's 4 pool threads for
 * about 0.2 s, so a burst of sign-ins leaves the other threads to DNS lookups and file writes, and a
 * flood beyond the queue (about 3 s of work) is answered busy (`WorkLimitBusy`) instead of queued.
 */
const derivations = new WorkLimit('password derivations', 2, 32);

function derive(
  password: string,
  salt: Buffer,
  cost: { N: number; r: number; p: number },
): Promise<Result<Buffer, WorkLimitBusy>> {
  // scrypt needs 128·N·r bytes; Node's default cap (32 MiB) is just below that for N = 2^15.
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return derivations.run(
    () =>
      new Promise((resolve, reject) =>
        scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (error, key) =>
          error ? reject(error) : resolve(key),
        ),
      ),
  );
}

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `a password needs at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `a password has at most ${MAX_PASSWORD_LENGTH} characters`;
  if (password.trim() === '') return 'a password cannot be only spaces';
  return null;
}

/** `scrypt$N$r$p$salt$key` (base64url salt and key); busy when the derivations are full. */
export async function hashPassword(password: string): Promise<Result<string, WorkLimitBusy>> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, DEFAULT_COST);
  const { N, r, p } = DEFAULT_COST;
  return key.map((k) => ['scrypt', N, r, p, salt.toString('base64url'), k.toString('base64url')].join('$'));
}

/** Whether `password` matches `stored` (false for a hash this module did not write); busy when the derivations are full. */
export async function verifyPassword(password: string, stored: string): Promise<Result<boolean, WorkLimitBusy>> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return ok(false);
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const valid = (n: number, max: number) => Number.isSafeInteger(n) && n >= 1 && n <= max;
  if (!valid(N, MAX_N) || (N & (N - 1)) !== 0 || !valid(r, 32) || !valid(p, MAX_P)) return ok(false);
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (expected.length !== KEY_BYTES || salt.length === 0) return ok(false);
  if ([...password].length > MAX_PASSWORD_LENGTH) return ok(false);
  return (await derive(password, salt, { N, r, p })).map((key) => timingSafeEqual(key, expected));
}

/**
 * A hash no password matches, computed once: checked when the email is unknown, so a sign-in
 * takes as long whether or not the account exists. A computation that did not succeed (busy: the
 * derivations were full) is forgotten, so the next sign-in computes it again: kept, it failed every
 * unknown email's sign-in while known ones got the wrong-password answer, telling which accounts exist.
 */
let decoy: Promise<Result<string, WorkLimitBusy>> | undefined;
export function decoyPasswordHash(): Promise<Result<string, WorkLimitBusy>> {
  decoy ??= hashPassword(randomBytes(32).toString('base64url')).then(
    (hash) => {
      if (hash.isErr()) decoy = undefined;
      return hash;
    },
    (error: unknown) => {
      decoy = undefined;
      throw error;
    },
  );
  return decoy;
}
