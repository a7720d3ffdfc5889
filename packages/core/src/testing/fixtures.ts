import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The recorded data this package ships in `fixtures/` (mainnet node answers, OFAC lists, token
 * tables, vendor examples; provenance in `fixtures/README.md`). Found by walking up from this
 * module, which sits at a different depth in `src/`, in `dist/` and in a bundled chunk.
 */
export function fixturesDir(): string {
  // CommonJS builds have __dirname and no import.meta.url; ES modules the other way round.
  let dir = typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'fixtures');
    if (existsSync(join(candidate, 'tron', 'addresses.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the fixtures folder of @tron-safety/core');
    dir = parent;
  }
}

export function fixturePath(...parts: string[]): string {
  return join(fixturesDir(), ...parts);
}
