#!/usr/bin/env node
// `npm start` / `npm run demo`: builds the workspaces when a built file is missing or older than
// its sources, then runs the built host (dist/main.js) or the demo (dist/demo.js) in this process,
// so SIGTERM/SIGINT reach the host directly.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { staleReason } from './build-state.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const entry = process.argv[2] === 'demo' ? 'demo' : 'main';

const why = staleReason(root);
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
