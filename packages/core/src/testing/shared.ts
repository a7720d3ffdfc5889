import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The `shared/` folder (recorded mainnet responses, OFAC lists, token tables) that sits beside
 * the repository checkout. `TRON_SAFETY_SHARED_DIR` overrides the search.
 */
export function sharedDir(): string {
  const override = process.env.TRON_SAFETY_SHARED_DIR;
  if (override) return resolve(override);
  let dir = process.cwd();
  for (;;) {
    const candidate = join(dir, '..', 'shared');
    if (existsSync(join(candidate, 'SPEC.md'))) return resolve(candidate);
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find ../shared beside the repository (set TRON_SAFETY_SHARED_DIR)');
    dir = parent;
  }
}

export function sharedPath(...parts: string[]): string {
  return join(sharedDir(), ...parts);
}
