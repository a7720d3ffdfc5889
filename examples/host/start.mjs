#!/usr/bin/env node
// `npm start` / `npm run demo`: builds the workspaces when a built file is missing or older than
// its sources, then runs the built host (dist/main.js) or the demo (dist/demo.js) in this process,
// so SIGTERM/SIGINT reach the host directly.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { staleReason } from './build-state.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const entry = process.argv[2] === 'demo' ? 'demo' : 'main';

const why = staleReason(root);
if (why) buildAll(why);
await import(pathToFileURL(join(here, 'dist', `${entry}.js`)).href);

/**
 * The first run builds every workspace (a minute or two): one line per workspace as it goes, so
 * nobody wonders whether anything is happening.
 */
function buildAll(why) {
  const workspaces = ['packages', 'examples'].flatMap((group) =>
    readdirSync(join(root, group))
      .filter((name) => existsSync(join(root, group, name, 'tsup.config.ts')))
      .map((name) => `${group}/${name}`),
  );
  console.error(`building first (${why}): ${workspaces.length} workspaces, a minute or two the first time`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  workspaces.forEach((workspace, i) => {
    const started = Date.now();
    process.stderr.write(`  [${i + 1}/${workspaces.length}] ${workspace} ... `);
    const build = spawnSync(npm, ['run', 'build', '--silent', '-w', workspace], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    if (build.status !== 0) {
      process.stderr.write(`failed\n${build.stderr}\nbuild failed: run \`npm run build\` to see why\n`);
      process.exit(build.status ?? 1);
    }
    process.stderr.write(`built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  });
}
