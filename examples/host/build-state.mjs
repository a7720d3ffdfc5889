// Whether the workspaces' built files are missing or older than their sources (used by start.mjs,
// and by the host's start test to run the built entry exactly as `npm start` does when it can).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestIn(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Why a build is needed (a sentence), or null when every built workspace is newer than its sources. */
export function staleReason(root) {
  for (const group of ['packages', 'examples']) {
    for (const name of readdirSync(join(root, group))) {
      const dir = join(root, group, name);
      const config = join(dir, 'tsup.config.ts');
      const src = join(dir, 'src');
      if (!existsSync(config) || !existsSync(src)) continue;
      const built = join(dir, 'dist', 'index.js');
      if (!existsSync(built)) return `${group}/${name} is not built`;
      if (Math.max(newestIn(src), statSync(config).mtimeMs) > statSync(built).mtimeMs)
        return `${group}/${name} changed since its build`;
    }
  }
  return null;
}
