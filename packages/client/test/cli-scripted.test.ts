// The CLI and the client against a scripted server on 127.0.0.1: answers a real host does not give on
// demand (an old replay, a future reason code, a stored error, a dropped connection).
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sendsInClear } from '../src/cli/plain-http.js';
import { runCli } from '../src/cli/run.js';
import { createSafetyClient } from '../src/index.js';
import { checkResponse, clearBody, EXPECTED } from './responses.js';

type Reply = (req: IncomingMessage, res: ServerResponse) => void;
const json =
  (status: number, body: string, headers: Record<string, string> = {}): Reply =>
  (_req, res) =>
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'r-1', ...headers }).end(body);
const drop: Reply = (req) => req.socket.destroy();
const TX = 'ab'.repeat(32);
/** The command line of a check that verifies what `clearBody` paid. */
const PAID = ['check', TX, '--recipient', EXPECTED.expected_recipient, '--amount', EXPECTED.expected_amount];

let script: Reply[] = [];
let fallback: Reply = json(500, 'script exhausted');
/** The Idempotency-Key of each request received, and when it arrived. */
const keys: (string | undefined)[] = [];
const arrivals: number[] = [];
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    keys.push(req.headers['idempotency-key'] as string | undefined);
    arrivals.push(performance.now());
    (script.shift() ?? fallback)(req, res);
  });
});
let url = '';
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));

function answering(replies: Reply[], otherwise: Reply = json(500, 'script exhausted')): void {
  script = replies;
  fallback = otherwise;
  keys.length = 0;
  arrivals.length = 0;
}

async function cli(args: string[], env: Record<string, string> = {}, isTTY = false) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: { TRON_SAFETY_URL: url, TRON_SAFETY_API_KEY: 'tsk_live_scripted', ...env },
    stdout: { write: (text: string) => (stdout += text), isTTY },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

describe('CLI against a scripted server', () => {
  test('exit 0 only for a CLEAR that is safe to book: an hour-old replay or an unknown reason code exits 1', async () => {
    answering([json(200, JSON.stringify(clearBody(new Date(Date.now() - 2 * 3_600_000))))]);
    const old = await cli([...PAID, '--idempotency-key', 'order-old']);
    assert.equal(old.code, 1);
    assert.match(old.stdout, /safe to book: no: the result was checked \d+ s ago/);
    const future = clearBody();
    future.reasons.push({ code: 'TOKEN_BLACKLISTED_RECIPIENT', category: 'token', severity: 'critical' });
    answering([json(200, JSON.stringify(future))]);
    assert.equal((await cli(PAID)).code, 1, 'an unknown reason code is never clean');
    answering([json(200, JSON.stringify(clearBody()))]);
    assert.equal((await cli(PAID)).code, 0);
  });

  test('a CLEAR checked without --recipient and --amount exits 1, naming what to pass', async () => {
    const notAsked = JSON.stringify({ ...clearBody(), recipient_match: null, amount_match: null });
    for (const args of [['check', TX], ['check', TX, '--json'], PAID.slice(0, 4)]) {
      answering([json(200, notAsked)]);
      const run = await cli(args);
      assert.equal(run.code, 1, args.join(' '));
      assert.match(run.stderr, /^tron-safety: booking needs --recipient and --amount verified/);
    }
    answering([json(200, notAsked)]);
    const summary = await cli(['check', TX]);
    assert.match(
      summary.stdout,
      /safe to book: no: recipient not verified: pass expected_recipient; amount not verified/,
    );
    answering([json(200, checkResponse())]);
    assert.equal((await cli(PAID)).stderr, '', 'no advice when both are given');
  });

  test("the summary shows a server's control and format characters escaped, so a token symbol cannot rewrite the terminal", async () => {
    const body = clearBody();
    body.overall_state = 'REVIEW' as 'CLEAR';
    // C1 CSI + "2K" erases the line in terminals that read C1; RLO reorders; ZWSP hides; ESC is C0.
    body.transfers[0]!.token_symbol = 'USD\u009b2K\u202eT\u200b\u001b[1A';
    const error = JSON.stringify({
      request_id: 'r-err',
      error: { code: 'provider_unavailable', message: 'down\u009b2K', retryable: false },
    });
    answering([json(200, JSON.stringify(body)), json(503, error)]);
    const run = await cli(['check', TX]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /USD\\u\{009b\}2K\\u\{202e\}T\\u\{200b\}\\u\{001b\}\[1A {2}TKFY/);
    assert.doesNotMatch(run.stdout, /[\u0080-\u009f\u200b\u202e]/u);
    const failed = await cli(['check', TX]);
    assert.match(failed.stderr, /HTTP 503 provider_unavailable: down\\u\{009b\}2K \(request/);
    assert.doesNotMatch(failed.stderr, /[\u0000-\u0009\u000b-\u001f\u0080-\u009f\u202e]/u);
  });

  test('on a terminal, --json and its errors show control and format characters as JSON escapes; a pipe gets the bytes', async () => {
    const body = clearBody();
    // C1 CSI, DEL, and the bidi controls: embeddings and overrides, isolates, marks, the Arabic letter mark.
    const hidden = '\u009b2K\u007f\u202a\u202e\u2066\u2069\u200e\u200f\u061c';
    body.transfers[0]!.token_symbol = `USD${hidden}T`;
    const raw = JSON.stringify(body);
    answering([json(200, raw), json(200, raw)]);
    const terminal = await cli([...PAID, '--json'], {}, true);
    assert.equal(terminal.code, 0, terminal.stderr);
    assert.doesNotMatch(terminal.stdout, /[\p{Cc}\p{Cf}](?<![\n])/u);
    assert.match(terminal.stdout, /USD\\u009b2K\\u007f\\u202a\\u202e\\u2066\\u2069\\u200e\\u200f\\u061cT/);
    assert.deepEqual(JSON.parse(terminal.stdout), body, 'the same JSON');
    assert.equal((await cli([...PAID, '--json'])).stdout, raw, 'a pipe gets the body as received');
    // A proxy's header reaches the message of an unreadable answer.
    const c1 = '\u009b2K\u0085'; // what an HTTP header can carry: Latin-1
    const proxy: Reply = (_req, res) => res.writeHead(200, { 'content-type': `text/html${c1}` }).end('<p>');
    answering([proxy]);
    const failed = await cli([...PAID, '--json']);
    assert.equal(failed.code, 2);
    assert.doesNotMatch(failed.stderr, /[\p{Cc}\p{Cf}](?<![\n])/u);
    assert.match(JSON.parse(failed.stderr).error.message, new RegExp(`Content-Type text/html.*${c1}`, 'u'));
    const option = await cli(['check', TX, `--recipient${hidden}`]);
    assert.equal(option.code, 64);
    assert.match(option.stderr, /--recipient\\u\{009b\}2K/);
    assert.doesNotMatch(option.stderr, /[\p{Cc}\p{Cf}](?<![\n])/u);
  });

  test('usage: --days outside 1 to 90, or not a whole number, is a wrong command line, nothing sent', async () => {
    answering([]);
    for (const days of ['0', '91', '1000', '1.5', '-1', '1e1', 'abc', '']) {
      const run = await cli(['usage', `--days=${days}`]);
      assert.equal(run.code, 64, JSON.stringify(days));
      assert.match(run.stderr, /^tron-safety: --days must be a whole number from 1 to 90, got '/);
    }
    assert.equal(keys.length, 0, 'nothing was sent');
    for (const days of ['1', '90'])
      assert.equal((await cli(['usage', '--days', days])).code, 2, 'sent (script exhausted)');
    assert.equal(keys.length, 2);
  });

  test('Errors 4: an empty or unsendable --idempotency-key is a wrong command line, never a new key', async () => {
    answering([json(200, checkResponse())]);
    for (const key of ['', 'order-ключ', 'k'.repeat(129), ' order-1', 'order-1 ']) {
      const run = await cli(['check', TX, '--idempotency-key', key]);
      assert.equal(run.code, 64, JSON.stringify(key));
      assert.match(run.stderr, /--idempotency-key must be 1 to 128 printable ASCII characters/);
    }
    assert.deepEqual(keys, [], 'nothing was sent');
  });

  test('Configuration: a TRON_SAFETY_URL without http(s) or a TRON_SAFETY_API_KEY HTTP cannot carry is named at once, nothing sent', async () => {
    answering([json(200, checkResponse())]);
    const url = await cli(['check', TX], { TRON_SAFETY_URL: 'localhost:8080' });
    assert.equal(url.code, 2);
    assert.equal(url.stderr, "tron-safety: TRON_SAFETY_URL is not a URL (http or https): 'localhost:8080'\n");
    const key = await cli(['check', TX], { TRON_SAFETY_API_KEY: 'tsk_live_\u2013dash' });
    assert.equal(key.code, 2);
    assert.match(key.stderr, /^tron-safety: TRON_SAFETY_API_KEY cannot be sent as an HTTP header/);
    assert.doesNotMatch(key.stderr, /tsk_live|run again/, 'neither the key nor advice to resend');
    assert.deepEqual(keys, [], 'nothing was sent');
  });

  test('Configuration: a plain http TRON_SAFETY_URL to another host is a wrong command line, nothing sent, unless --insecure-http; plain http to this machine needs no flag', async () => {
    answering([], json(200, checkResponse()));
    // 0.0.0.0 is no loopback name, yet on Linux a connection to it reaches this machine: nothing leaves it.
    const remote = `http://0.0.0.0:${new URL(url).port}`;
    const message = `TRON_SAFETY_URL ${remote} is plain http to another host: the API key would cross the network in clear. Use https, or pass --insecure-http to send it anyway`;
    const refused = await cli(['check', TX], { TRON_SAFETY_URL: remote });
    assert.deepEqual([refused.code, refused.stderr], [64, `tron-safety: ${message}\n`]);
    const asJson = await cli(['usage', '--json'], { TRON_SAFETY_URL: remote });
    assert.deepEqual([asJson.code, JSON.parse(asJson.stderr)], [64, { error: { exit_code: 64, message } }]);
    assert.deepEqual(keys, [], 'nothing was sent');
    // Answered (exit 1: a check without --recipient and --amount) with the flag, and to loopback without it.
    for (const [base, ...flag] of [[remote, '--insecure-http'], [`http://localhost:${new URL(url).port}`], [url]])
      assert.equal((await cli(['check', TX, ...flag], { TRON_SAFETY_URL: base! })).code, 1, base);
    assert.equal(keys.length, 3);
    for (const loopback of ['http://localhost', 'http://127.0.0.1:8080', 'http://127.9.8.7', 'http://[::1]:8080'])
      assert.equal(sendsInClear(loopback), false, loopback);
    for (const other of ['http://0.0.0.0', 'http://10.0.0.1:8080', 'http://[::]', 'http://safety.example.com'])
      assert.equal(sendsInClear(other), true, other);
    for (const notPlain of ['https://safety.example.com', 'localhost:8080', 'not a url'])
      assert.equal(sendsInClear(notPlain), false, notPlain);
  });

  test('Errors 2: a replayed error is final for its key: no advice to run again with it', async () => {
    const stored = JSON.stringify({
      request_id: 'r-err',
      error: { code: 'provider_unavailable', message: 'scripted', retryable: true },
    });
    answering([json(503, stored, { 'idempotent-replayed': 'true' })]);
    const run = await cli(['check', TX, '--idempotency-key', 'order-1']);
    assert.equal(run.code, 2);
    assert.doesNotMatch(run.stderr, /run again with --idempotency-key order-1/);
    assert.match(run.stderr, /the stored outcome of --idempotency-key order-1: a new check needs a new key/);
  });
});

describe('client retries', () => {
  test("Errors 1: a gateway's Retry-After is honoured on an answer without the API's envelope", async () => {
    const gateway: Reply = (_req, res) =>
      res.writeHead(503, { 'content-type': 'text/html', 'retry-after': '1' }).end('busy');
    answering([gateway, json(200, checkResponse())]);
    const client = createSafetyClient({ baseUrl: url, apiKey: 'k', retry: { baseDelayMs: 1 } });
    try {
      const outcome = await client.check({ tx_hash: TX, network: 'tron' }, { idempotencyKey: 'order-gw' });
      assert.ok(outcome.isOk());
      assert.deepEqual(keys, ['order-gw', 'order-gw']);
      assert.ok(arrivals[1]! - arrivals[0]! >= 990, `retried after ${arrivals[1]! - arrivals[0]!} ms`);
    } finally {
      await client.close();
    }
  });

  test('Errors 4: an Idempotency-Key the spec refuses rejects before anything is sent', async () => {
    answering([json(200, checkResponse())]);
    const client = createSafetyClient({ baseUrl: url, apiKey: 'k' });
    try {
      // HTTP strips a space at either end: the server would see another key, or none.
      for (const idempotencyKey of ['', 'order-ключ', 'k'.repeat(129), ' ', ' order-1', 'order-1 ']) {
        await assert.rejects(client.check({ tx_hash: TX, network: 'tron' }, { idempotencyKey }), TypeError);
      }
      assert.deepEqual(keys, []);
      assert.ok((await client.check({ tx_hash: TX, network: 'tron' }, { idempotencyKey: 'order 1' })).isOk());
      assert.deepEqual(keys, ['order 1'], 'a space inside is kept');
    } finally {
      await client.close();
    }
  });

  test('Errors 1: settings left undefined keep the default cap and deadline; settings that remove them throw', async () => {
    answering([], drop);
    const client = createSafetyClient({
      baseUrl: url,
      apiKey: 'k',
      deadlineMs: 2_000,
      retry: { maxAttempts: undefined, baseDelayMs: 1, maxDelayMs: undefined },
    });
    try {
      const outcome = await client.check({ tx_hash: TX, network: 'tron' }, { signal: AbortSignal.timeout(10_000) });
      assert.equal(outcome.isErr() && outcome.error.kind, 'unresolved');
      assert.equal(keys.length, 5, 'the default 5 attempts');
    } finally {
      await client.close();
    }
    for (const retry of [
      { maxAttempts: 0 },
      { maxAttempts: Number.NaN },
      { maxDelayMs: -1 },
      { baseDelayMs: Infinity },
    ]) {
      assert.throws(() => createSafetyClient({ baseUrl: url, apiKey: 'k', retry }), /retry\./, JSON.stringify(retry));
    }
  });
});
