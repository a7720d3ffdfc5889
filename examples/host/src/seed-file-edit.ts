// Writing the seed file of a memory-mode host, shared by the admin CLI and the host's portal
// write-back (seed-write-back.ts): atomically (a reader sees the old file or the new one, never
// half of one) and with mode 0600 (it may hold members' passwords and hand-written keys), and only what
// would load again.
import { randomUUID } from 'node:crypto';
import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { decodeSeed, loadSeedFile, type SeedFile } from './seed-file.js';

/** Replaces the file at `path` with `seed`. Throws when it cannot be written, or when `seed` would not load. */
export function replaceSeedFile(path: string, seed: unknown): void {
  const valid = decodeSeed(seed);
  if (valid.isErr()) throw new Error(`internal: the written seed file would not load again (${valid.error.message})`);
  const tmp = `${path}.${randomUUID()}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(valid.value, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * One targeted edit of the file as it is now (hold its lock, `lockSeedFile`, around the call, so an
 * admin CLI command's change in between is read here and kept): reads it, lets `change` edit it in
 * place (false: nothing to change, nothing written) and writes it back. Throws when the file cannot
 * be read, is invalid, or cannot be written.
 */
export async function editSeedFile(path: string, change: (seed: SeedFile) => boolean): Promise<void> {
  const loaded = await loadSeedFile(path);
  if (loaded.isErr()) throw new Error(loaded.error.message);
  if (change(loaded.value)) replaceSeedFile(path, loaded.value);
}
