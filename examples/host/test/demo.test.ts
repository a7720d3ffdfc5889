import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { staleReason } from '../build-state.mjs';

// `npm run demo` as a user runs it (the built start.mjs entry when the tree is built and fresh,
// else the same demo module from source): offline, it prints the key, the table, the curl lines,
// keeps serving, and stops cleanly on Ctrl-C.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const ENTRY =
  staleReason(ROOT) === null
    ? ['examples/host/start.mjs', 'demo']
    : ['--conditions=source', '--import', 'tsx', 'examples/host/src/demo.ts'];

test('npm run demo: checks over HTTP on recorded data, a readable table, then serves until SIGINT', async () => {
  // The environment a user has: without the test runner's own NODE_TEST_CONTEXT.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const child = spawn(process.execPath, ENTRY, {
    cwd: ROOT,
    env: { ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`demo not ready: ${out}\n${err}`));
    }, 60_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  // 'close', not 'exit': output still in the pipe when the process exits is read by then.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  await ready;
  // Every check the demo made is a row of its table, and the README says how many.
  const url = /host\s+(http:\/\/\S+)/.exec(out)?.[1];
  const key = /demo API key\s+(\S+)/.exec(out)?.[1];
  const usage = await request(`${url}/v1/usage`, { headers: { 'x-api-key': key! } });
  const made = ((await usage.body.json()) as { recent: { requests: number } }).recent.requests;
  const progress = [...out.matchAll(/^ {2}\[(\d+)\/(\d+)\] /gm)];
  assert.deepEqual([progress.length, Number(progress.at(-1)?.[2])], [made, made]);
  const words = [
    'zero',
    'one',
    'two',
    'three',
    'four',
    'five',
    'six',
    'seven',
    'eight',
    'nine',
    'ten',
    'eleven',
    'twelve',
  ];
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  assert.match(readme, new RegExp(`runs ${words[made]} real checks`));
  child.kill('SIGINT');
  assert.equal(await exited, 0, err);

  assert.match(out, /demo API key\s+tsk_live_demo_/);
  assert.match(out, /developer portal\s+http:\/\/\S+\/portal\/\s+\(sign in as demo@example\.com/);
  assert.match(out, /DEMO risk data/);
  // The demo serves its own current OFAC list and says it is demo data.
  assert.match(out, /fake OFAC list .*DEMO sanctions data/);
  const row = (label: string) => out.split('\n').find((line) => line.startsWith(label)) ?? '';
  assert.match(row('TRX transfer '), /confirmed\s+CLEAR\s+TX_FINALIZED/);
  assert.match(row('same USDT payment, wrong expected amount'), /REVIEW\s+EXPECTED_AMOUNT_MISMATCH/);
  assert.match(row('USDT call that ran out of energy'), /failed\s+REVIEW\s+TX_REVERTED/);
  assert.match(row('TRX from a DEMO high-risk sender'), /HIGH_RISK\s+AML_HIGH/);
  assert.match(row('unknown transaction'), /not_found\s+LIMITED_DATA\s+TX_NOT_FOUND/);
  assert.match(out, /curl -s .*\/v1\/usage/);
});
