import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { staleReason } from '../build-state.mjs';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const entry =
  staleReason(root) === null
    ? ['examples/host/dist/admin.js']
    : ['--conditions=source', '--import', 'tsx', 'examples/host/src/admin.ts'];

/** The admin CLI in a process of its own, as scripts run it (memory mode: no DATABASE_URL). */
export const adminProcess = (...args: string[]) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
    const { NODE_TEST_CONTEXT: _, DATABASE_URL: __, ...env } = process.env;
    const child = spawn(process.execPath, [...entry, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill(), 60_000);
    child.on('error', reject);
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, out, err })));
  });
