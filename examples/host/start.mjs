#!/usr/bin/env node
// `npm start` / `npm run demo`: builds the workspaces when a built file is missing or older than
// its sources, then runs the built host (dist/main.js) or the demo (dist/demo.js) in this process,
// so SIGTERM/SIGINT reach the host directly.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const entry = process.argv[2] === 'demo' ? 'demo' : 'main';

function newestIn(dir) {
  let newest = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, name.name);
    newest = Math.max(newest, name.isDirectory() ? newestIn(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Every workspace with a build script must have a dist newer than its src and its tsup config. */
function stale() {
  for (const group of ['packages', 'examples']) {
    for (const name of readdirSync(join(root, group))) {
      const dir = join(root, group, name);
      const src = join(dir, 'src');
      if (!existsSync(join(dir, 'tsup.config.ts')) || !existsSync(src)) continue;
      const built = join(dir, 'dist', 'index.js');
      if (!existsSync(built)) return `${group}/${name} is not built`;
      const sources = Math.max(newestIn(src), statSync(join(dir, 'tsup.config.ts')).mtimeMs);
      if (sources > statSync(built).mtimeMs) return `${group}/${name} changed since its build`;
    }
  }
  return null;
}

const why = stale();
if (why) {
  console.error(`building first (${why}): npm run build`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) {
    console.error('build failed: run `npm run build` to see why');
    process.exit(build.status ?? 1);
  }
}
await import(pathToFileURL(join(here, 'dist', `${entry}.js`)).href);
