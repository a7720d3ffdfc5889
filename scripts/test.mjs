// Runs every package's tests in one node:test run, so the run ends with one summary line.
// Tests import workspace packages through the "source" export condition: no build needed to test.
// Usage: npm test [-- path-substring ...]   (only test files whose path contains one of the substrings)
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const roots = ['packages', 'examples'];

function findTests(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) findTests(path, out);
    else if (name.endsWith('.test.ts') && path.split('/').includes('test')) out.push(relative(root, path));
  }
  return out;
}

const filters = process.argv.slice(2);
const files = roots
  .flatMap((r) => {
    try {
      return findTests(join(root, r), []);
    } catch {
      return [];
    }
  })
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();

if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

const child = spawn(
  process.execPath,
  // A per-test bound: a test that hangs fails with its name instead of holding CI until it is killed.
  ['--conditions=source', '--import', 'tsx', '--test', '--test-reporter=spec', '--test-timeout=180000', ...files],
  { cwd: root, stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
