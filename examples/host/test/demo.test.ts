import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { staleReason } from '../build-state.mjs';
import { readmeSection } from './readme.js';

// `npm run demo` as a user runs it (the built start.mjs entry when the tree is built and fresh,
// else the same demo module from source): offline, it prints the key, the table, the curl lines,
// keeps serving, and stops cleanly on Ctrl-C.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const ENTRY =
  staleReason(ROOT) === null
    ? ['examples/host/start.mjs', 'demo']
    : ['--conditions=source', '--import', 'tsx', 'examples/host/src/demo.ts'];

test('npm run demo: checks over HTTP on recorded data, a readable table, then serves until SIGINT', async (t) => {
  // The environment a user has: without the test runner's own NODE_TEST_CONTEXT.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const child = spawn(process.execPath, ENTRY, {
    cwd: ROOT,
    env: { ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A failed assertion must not leave the demo serving (and the test run waiting for it).
  t.after(() => void (child.exitCode === null && child.kill()));
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
  await answersAsTheReadmeShows(url!, key!);
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

/**
 * README "The API with curl" shows real output of the demo host: its check, then its usage report, answer as
 * shown, but for what differs from run to run (ids, times, latency). Sent right after the demo's own checks.
 */
async function answersAsTheReadmeShows(url: string, key: string): Promise<void> {
  const section = readmeSection('The API with curl');
  const commands = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const shown = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as Answer);
  const body = /-d '([^']*)'/.exec(commands[0]!)![1]!;
  const usagePath = /'localhost:8080(\/v1\/usage\?[^']*)'/.exec(commands[1]!)![1]!;
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const check = await request(`${url}/v1/transaction/check`, { method: 'POST', headers, body });
  assert.deepEqual(varying(await check.body.json()), varying(shown[0]!), "the README's check answer");
  // Its freshness is a current host's: every source confirmed within the hour (the demo's OFAC list is today's).
  assert.ok(shown[0]!.freshness.max_source_age_seconds <= 3600, 'the README shows a stale freshness');
  const usage = await request(`${url}${usagePath}`, { headers });
  assert.deepEqual(varying(await usage.body.json()), varying(shown[1]!), "the README's usage answer");
}

type Answer = Record<string, any>;

/** The answer with what differs from run to run blanked out. */
function varying(answer: unknown): Answer {
  const copy = structuredClone(answer) as Answer;
  copy.request_id = '…';
  if (copy.freshness) {
    for (const field of ['checked_at', 'risk_data_at', 'token_data_at', 'max_source_age_seconds'])
      copy.freshness[field] = '…';
  }
  if (copy.period) copy.period = { ...copy.period, start: '…', end: '…' };
  if (copy.recent) copy.recent.average_latency_ms = '…';
  return copy;
}
