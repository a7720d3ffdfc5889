// The admin CLI's lock on the seed file (memory mode): a command that changes the file holds
// `<seed file>.lock` from reading the file to writing it back, so two commands run at once cannot
// both read the old file and the second write drop the first's change (a printed key that then
// answers 401). The lock file is created exclusively ('wx'); it names its holder, so a lock left by
// a command that died is taken over: at once when the holder's process is gone on this machine,
// else once it is older than any command runs.
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { decode } from '@tron-safety/core';
import * as t from 'io-ts';

export interface SeedLockOptions {
  /** How long a command waits for another's lock before it gives up (default 30 s). */
  waitMs?: number;
  /** A lock older than this is left by a command that died (default 60 s; a command takes well under a second). */
  staleMs?: number;
}

/** Who holds a lock, as written in the lock file. */
const Holder = t.type({ pid: t.number, host: t.string, token: t.string });
type Holder = t.TypeOf<typeof Holder>;

/** Another command held the lock for the whole wait. */
export class SeedFileBusy extends Error {}

/**
 * Takes the lock of `path` (waiting up to `waitMs` for another command's); resolves to its release.
 * Throws `SeedFileBusy` when the wait ran out, or the file system's error when no lock file can be made.
 */
export async function lockSeedFile(path: string, options: SeedLockOptions = {}): Promise<() => void> {
  const { waitMs = 30_000, staleMs = 60_000 } = options;
  const lock = `${path}.lock`;
  const mine: Holder = { pid: process.pid, host: hostname(), token: randomUUID() };
  const giveUpAt = Date.now() + waitMs;
  for (;;) {
    try {
      writeFileSync(lock, JSON.stringify(mine), { flag: 'wx', mode: 0o600 });
      return () => release(lock, mine.token);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const held = readLock(lock);
    if (held && isStale(held, staleMs)) takeOver(lock, held.text, staleMs);
    else if (Date.now() >= giveUpAt) {
      const holder = held?.holder ? `process ${held.holder.pid} on ${held.holder.host}` : 'another command';
      throw new SeedFileBusy(`the seed file is locked by ${holder} (${lock}); try again when it has finished`);
    } else await sleep(10 + Math.random() * 40);
  }
}

/** The lock file's text, holder (null while its holder is still writing it) and age; null when it is gone. */
function readLock(lock: string): { text: string; holder: Holder | null; ageMs: number } | null {
  try {
    const ageMs = Date.now() - statSync(lock).mtimeMs;
    const text = readFileSync(lock, 'utf8');
    // Empty while its holder is still writing it: judged by its age alone.
    return { text, holder: decode(Holder, parseJson(text)).unwrapOr(null), ageMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function isStale(held: { holder: Holder | null; ageMs: number }, staleMs: number): boolean {
  if (held.ageMs > staleMs) return true;
  if (held.holder?.host !== hostname() || !Number.isInteger(held.holder.pid)) return false;
  try {
    process.kill(held.holder.pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes the stale lock whose text was `stale`, one taker at a time (`.takeover`, itself created
 * exclusively): two takers must not both remove it, the second removing the lock the first just took.
 */
function takeOver(lock: string, stale: string, staleMs: number): void {
  const takeover = `${lock}.takeover`;
  try {
    writeFileSync(takeover, String(process.pid), { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    // A taker that died between its two steps: its marker goes after the same bound.
    if ((readLock(takeover)?.ageMs ?? 0) > staleMs) unlinkQuietly(takeover);
    return;
  }
  try {
    if (readLock(lock)?.text === stale) unlinkQuietly(lock);
  } finally {
    unlinkQuietly(takeover);
  }
}

/** Removes the lock only while it is still this command's (a lock taken over as stale is another's now). */
function release(lock: string, token: string): void {
  const held = readLock(lock);
  if (held?.holder?.token === token) unlinkQuietly(lock);
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
