import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { TronNodeClient } from '../src/chain/client.js';
import { createTronChainFactsProvider, type TronChainFactsProvider } from '../src/chain/provider.js';
import { startFakeTronNode, TRON_FIXTURE_TX, type FakeTronFault, type FakeTronNode } from '../src/testing/index.js';
import { check } from './assessment-support.js';
import { fixture } from './chain-answers.js';

// The providers read every token from the node (knownTokens: []), the registry's USDT included:
// metadata calls are node calls like the others, and their faults are tested here too.
let node: FakeTronNode;
let provider: TronChainFactsProvider;
/** A short per-call timeout for the hang cases (warmed up first, so a busy CI machine does not trip it). */
let impatient: TronChainFactsProvider;
const TX = TRON_FIXTURE_TX.usdtTransfer;
const USDT = fixture(TX);

before(async () => {
  node = await startFakeTronNode();
  const retry = { attempts: 3, baseDelayMs: 2, maxDelayMs: 5 };
  provider = createTronChainFactsProvider({ fullNodeUrl: node.url, timeoutMs: 1000, retry, knownTokens: [] });
  impatient = createTronChainFactsProvider({ fullNodeUrl: node.url, timeoutMs: 250, retry, knownTokens: [] });
  for (const p of [provider, impatient]) await p.getTransactionFacts(TX, { signal: AbortSignal.timeout(5000) });
  node.clearCalls();
});
afterEach(() => {
  node.clearFaults();
  node.clearCalls();
});
after(async () => {
  await provider.close();
  await impatient.close();
  await node.close();
});

const run = (signal: AbortSignal = AbortSignal.timeout(5000), p = provider) => p.getTransactionFacts(TX, { signal });
const usesTimeout = (fault: FakeTronFault) => fault.kind === 'hang';
const countOf = (node_: 'full' | 'solidity', path: string) =>
  node.calls.filter((c) => c.node === node_ && c.path === path).length;

describe('transient faults are retried', () => {
  const transient: [string, FakeTronFault][] = [
    ['HTTP 503', { kind: 'status', status: 503 }],
    ['HTTP 500', { kind: 'status', status: 500 }],
    ['HTTP 429', { kind: 'status', status: 429 }],
    ['connection reset', { kind: 'reset' }],
    ['hang until the per-call timeout', { kind: 'hang' }],
  ];
  for (const [name, fault] of transient) {
    test(`${name} twice, then an answer: complete facts after 3 attempts`, async () => {
      node.fault({ node: 'full', path: 'gettransactionbyid', times: 2, fault });
      const r = await run(undefined, usesTimeout(fault) ? impatient : provider);
      assert.ok(r.isOk());
      assert.equal(r.value.state, 'confirmed');
      assert.equal(r.value.verified, true);
      assert.deepEqual(r.value.missing, []);
      assert.equal(countOf('full', 'gettransactionbyid'), 3);
    });
  }

  test('latency below the timeout is just slower', async () => {
    node.fault({ path: 'getnowblock', fault: { kind: 'latency', ms: 40 } });
    const r = await run();
    assert.ok(r.isOk());
    assert.equal(r.value.state, 'confirmed');
  });
});

describe('persistent faults on one node: facts with unknown state and missing entries', () => {
  const cases: [string, FakeTronFault, string][] = [
    ['HTTP 502', { kind: 'status', status: 502 }, 'HTTP 502'],
    ['HTTP 429', { kind: 'status', status: 429 }, 'HTTP 429'],
    ['connection reset', { kind: 'reset' }, 'network error'],
    ['hang', { kind: 'hang' }, 'timeout'],
    ['malformed JSON', { kind: 'malformed_json' }, 'not JSON'],
    ['HTML', { kind: 'html' }, 'HTML'],
    ['{"Error": …}', { kind: 'error' }, 'lack of computing resources'],
    ['wrong types', { kind: 'body', body: '{"id": 5, "blockNumber": "x"}' }, 'unexpected shape'],
    ['a JSON array', { kind: 'body', body: '[1,2]' }, 'not a JSON object'],
  ];
  for (const [name, fault, expected] of cases) {
    test(`${name} from the solidity node's tx info`, async () => {
      node.fault({ node: 'solidity', path: 'gettransactioninfobyid', fault });
      const r = await run(undefined, usesTimeout(fault) ? impatient : provider);
      assert.ok(r.isOk(), 'one node still answers');
      const f = r.value;
      assert.equal(f.state, 'unknown');
      assert.equal(f.finalized, false);
      assert.ok(
        f.missing.some(
          (m) =>
            m.code === 'node_call_failed' &&
            m.detail.includes('solidity node gettransactioninfobyid') &&
            m.detail.includes(expected),
        ),
        JSON.stringify(f.missing),
      );
      assert.equal(f.verified, true, 'the body still verifies');
      assert.equal(f.category, 'trc20_transfer');
    });
  }

  test('the full node down entirely: unknown, missing, facts from the solidity node', async () => {
    node.fault({ node: 'full', fault: { kind: 'status', status: 503 } });
    const r = await run();
    assert.ok(r.isOk());
    assert.equal(r.value.state, 'unknown');
    assert.equal(r.value.finalized, true);
    assert.equal(r.value.transfers[0]!.rawAmount, 41677389n);
    assert.equal(r.value.transfers[0]!.decimals, 6, 'metadata falls back to the solidity node');
    assert.ok(r.value.missing.length >= 3);
  });

  test('only 5xx, 429 and network errors are retried: node errors, bad bodies, 403 and 404 are asked once', async () => {
    const once: FakeTronFault[] = [
      { kind: 'html' },
      { kind: 'malformed_json' },
      { kind: 'error' },
      { kind: 'body', body: '{"id": 5}' },
      { kind: 'status', status: 403 },
      { kind: 'status', status: 404, body: '{"Error": "this API is unavailable due to config"}' },
    ];
    for (const fault of once) {
      node.clearCalls();
      const remove = node.fault({ node: 'solidity', path: 'gettransactioninfobyid', fault });
      try {
        assert.equal((await run())._unsafeUnwrap().state, 'unknown');
        assert.equal(countOf('solidity', 'gettransactioninfobyid'), 1, fault.kind);
      } finally {
        remove();
      }
    }
  });

  test('retries stop at the deadline: no retry is waited for or sent once the signal fires', async () => {
    // A budget and per-call timeout that always leave room for the long backoff: the retry is
    // waited for, so only the signal can end it (a backoff that does not fit is not waited at all).
    const patient = createTronChainFactsProvider({
      fullNodeUrl: node.url,
      timeoutMs: 1000,
      budgetMs: 60_000,
      retry: { attempts: 10, baseDelayMs: 5_000, maxDelayMs: 5_000 },
    });
    try {
      await patient.getTransactionFacts(TX, { signal: AbortSignal.timeout(5000) });
      node.fault({ fault: { kind: 'status', status: 503 } });
      node.clearCalls();
      const started = performance.now();
      const r = await run(AbortSignal.timeout(150), patient);
      assert.equal(r.isErr() && r.error.kind, 'aborted');
      assert.ok(performance.now() - started < 1500, 'the backoff sleep ends with the signal');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(node.calls.length <= 12, `at most two attempts per lookup, got ${node.calls.length} calls`);
    } finally {
      await patient.close();
    }
  });

  test('Confirmations: both tx-info lookups failing leave them unknown (null), never 0', async () => {
    node.fault({ path: 'gettransactioninfobyid', fault: { kind: 'status', status: 503 } });
    const f = (await run())._unsafeUnwrap();
    assert.equal(f.state, 'unknown');
    assert.equal(f.confirmations, null);
    assert.equal(check({ facts: f }).confirmations, null);
  });

  test('a failure seen on one node is still a failure', async () => {
    node.fault({ node: 'full', fault: { kind: 'status', status: 503 } });
    const r = await provider.getTransactionFacts(node.failedUsdtTx, { signal: AbortSignal.timeout(5000) });
    assert.ok(r.isOk());
    assert.equal(r.value.state, 'failed');
  });
});

describe('the head places the transaction: a getnowblock without a block number is a bad response', () => {
  // proto3 omits a 0, and block 0 is genesis, never a head: a head without a number says nothing.
  const headless: FakeTronFault = {
    kind: 'body',
    body: JSON.stringify({ blockID: '00', block_header: { raw_data: {} } }),
  };
  const BLOCK = 69316562; // the USDT fixture's block
  let racing: FakeTronNode;
  let p: TronChainFactsProvider;
  before(async () => {
    racing = await startFakeTronNode();
    p = createTronChainFactsProvider({ fullNodeUrl: racing.url, timeoutMs: 1000, retry: { attempts: 1 } });
  });
  afterEach(() => racing.clearFaults());
  after(async () => {
    await p.close();
    await racing.close();
  });
  const facts = async () => (await p.getTransactionFacts(TX, { signal: AbortSignal.timeout(5000) }))._unsafeUnwrap();
  const headFailed = (node_: 'full' | 'solidity') => (m: { code: string; detail: string }) =>
    m.code === 'node_call_failed' && m.detail.startsWith(`${node_} node getnowblock: bad response`);

  test('on the solidity node: the race guard has no solidified head to hold a racing answer to, so the facts are partial, never CLEAR', async () => {
    // The full node is 41 blocks past the tx; the solidity node's head (BLOCK - 1) has not solidified
    // it, yet a racing backend already serves its body and info.
    racing.setHeights({ head: BLOCK + 40, solidified: BLOCK - 1 });
    racing.setTransaction(TX, 'solidity', { transaction: USDT.transaction, info: USDT.info });
    const numbered = await facts();
    assert.deepEqual(
      numbered.missing.map((m) => m.code),
      ['solidity_node_racing'],
    );
    racing.fault({ node: 'solidity', path: 'getnowblock', fault: headless });
    const f = await facts();
    assert.ok(f.missing.some(headFailed('solidity')), JSON.stringify(f.missing));
    const response = check({ facts: f });
    assert.equal(response.overall_state, 'LIMITED_DATA');
    assert.ok(response.reasons.some((r) => r.code === 'TX_FACTS_PARTIAL'));
  });

  test('on the full node, or on both: unknown, the head missing, confirmations null, never CLEAR', async () => {
    for (const nodes of [['full'], ['full', 'solidity']] as const) {
      for (const name of nodes) racing.fault({ node: name, path: 'getnowblock', fault: headless });
      const f = await facts();
      assert.equal(f.state, 'unknown', nodes.join());
      assert.equal(f.confirmations, null);
      assert.ok(
        nodes.every((name) => f.missing.some(headFailed(name))),
        JSON.stringify(f.missing),
      );
      assert.equal(check({ facts: f }).overall_state, 'LIMITED_DATA');
      racing.clearFaults();
    }
  });
});

describe('time budget', () => {
  test('a hanging full node with default timeouts: facts from the solidity node, well before a 12 s deadline', async () => {
    // Defaults throughout (2500 ms per call, 3 attempts, 8 s budget), a cold metadata cache (USDT read from the node).
    const defaults = createTronChainFactsProvider({ fullNodeUrl: node.url, knownTokens: [] });
    try {
      node.fault({ node: 'full', fault: { kind: 'hang' } });
      const timedFacts = async (hash: string) => {
        const started = performance.now();
        const r = await defaults.getTransactionFacts(hash, { signal: AbortSignal.timeout(12_000) });
        return { r, ms: performance.now() - started };
      };
      const [usdt, trx] = await Promise.all([timedFacts(TX), timedFacts(TRON_FIXTURE_TX.trxTransfer)]);
      assert.ok(usdt.r.isOk(), `facts, not ${JSON.stringify(usdt.r.isErr() && usdt.r.error)}`);
      assert.equal(usdt.r.value.state, 'unknown');
      assert.ok(usdt.r.value.missing.some((m) => m.detail === 'full node gettransactionbyid: timeout'));
      assert.equal(usdt.r.value.transfers[0]!.decimals, 6, 'metadata from the solidity node');
      assert.ok(usdt.ms < 4500, `token transfer facts after ${usdt.ms} ms: metadata asked the solidity node first`);
      assert.ok(trx.r.isOk() && trx.r.value.state === 'unknown');
      assert.ok(trx.ms < 4500, `TRX facts after ${trx.ms} ms: one per-call timeout, no retry that cannot finish`);
    } finally {
      await defaults.close();
    }
  });

  test('a retry starts only when a whole attempt fits before the call deadline', async () => {
    const client = new TronNodeClient({
      fullNodeUrl: node.url,
      timeoutMs: 150,
      retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    });
    try {
      node.fault({ node: 'full', path: 'getnowblock', fault: { kind: 'hang' } });
      const short = await client.getNowBlock('full', AbortSignal.timeout(5000), performance.now() + 250);
      assert.ok(short.isErr() && short.error.kind === 'timeout');
      assert.equal(countOf('full', 'getnowblock'), 1, '150 ms left after the first attempt: no second one');
      node.clearCalls();
      const long = await client.getNowBlock('full', AbortSignal.timeout(5000), performance.now() + 2000);
      assert.ok(long.isErr() && long.error.kind === 'timeout');
      assert.equal(countOf('full', 'getnowblock'), 3);
    } finally {
      await client.close();
    }
  });

  test('metadata slower than the budget: facts with decimals unknown, not aborted', async () => {
    // The shared metadata read may take 2 × 5000 ms; this check's budget ends at 2000 ms (the
    // lookups get 1000 ms of it: room for a loaded CI machine, which must not turn them into timeouts).
    const hurried = createTronChainFactsProvider({
      fullNodeUrl: node.url,
      timeoutMs: 5000,
      budgetMs: 2000,
      retry: { attempts: 1 },
      knownTokens: [],
    });
    try {
      node.fault({ path: 'triggerconstantcontract', fault: { kind: 'hang' } });
      const started = performance.now();
      const r = await hurried.getTransactionFacts(TX, { signal: AbortSignal.timeout(15_000) });
      assert.ok(
        performance.now() - started < 5000,
        'the check stopped waiting at its own budget, not at the metadata read',
      );
      assert.ok(r.isOk());
      assert.equal(r.value.state, 'confirmed');
      assert.equal(r.value.transfers[0]!.decimals, null);
      assert.ok(
        r.value.missing.some((m) => m.code === 'token_metadata_unavailable'),
        JSON.stringify(r.value.missing),
      );
    } finally {
      await hurried.close();
    }
  });

  test('ctx.deadlineAt sooner than the budget bounds the rounds', async () => {
    const p = createTronChainFactsProvider({ fullNodeUrl: node.url, timeoutMs: 8000, retry: { attempts: 1 } });
    try {
      node.fault({ node: 'full', path: 'getnowblock', fault: { kind: 'hang' } });
      const started = performance.now();
      const deadlineAt = Date.now() + 1600;
      const r = await p.getTransactionFacts(TRON_FIXTURE_TX.trxTransfer, {
        signal: AbortSignal.timeout(15_000),
        deadlineAt,
      });
      assert.ok(r.isOk(), JSON.stringify(r.isErr() && r.error));
      assert.equal(r.value.state, 'unknown');
      assert.ok(
        r.value.missing.some((m) => m.detail === 'full node getnowblock: timeout'),
        JSON.stringify(r.value.missing),
      );
      assert.ok(performance.now() - started < 5000, 'the lookups got half of the 1600 ms left, not an 8 s attempt');
    } finally {
      await p.close();
    }
  });
});

describe('no data at all', () => {
  test('both nodes erroring: unavailable', async () => {
    node.fault({ fault: { kind: 'status', status: 503 } });
    const r = await run();
    assert.ok(r.isErr());
    assert.equal(r.error.kind, 'unavailable');
  });

  test('nothing listening: unavailable', async () => {
    const gone = await startFakeTronNode();
    const url = gone.url;
    await gone.close();
    const p = createTronChainFactsProvider({
      fullNodeUrl: url,
      timeoutMs: 100,
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
    });
    try {
      const r = await p.getTransactionFacts(TX, { signal: AbortSignal.timeout(2000) });
      assert.ok(r.isErr());
      assert.equal(r.error.kind, 'unavailable');
    } finally {
      await p.close();
    }
  });

  test('the signal fires while nodes hang: aborted, promptly', async () => {
    node.fault({ fault: { kind: 'hang' } });
    const started = performance.now();
    const r = await run(AbortSignal.timeout(60));
    assert.ok(r.isErr());
    assert.equal(r.error.kind, 'aborted');
    assert.ok(performance.now() - started < 600, 'no call outlives the deadline by much');
  });

  test('the signal fires while token metadata is read: aborted, never facts with the token unread', async () => {
    // A fresh provider: its metadata cache is cold, so the USDT lookup reaches the (hanging) node.
    // Warmed with a TRX transfer (no metadata) so the first round is quick; the metadata read
    // (full node, then solidity node, 400 ms each) outlasts the 250 ms deadline.
    const cold = createTronChainFactsProvider({
      fullNodeUrl: node.url,
      timeoutMs: 400,
      retry: { attempts: 1 },
      knownTokens: [],
    });
    try {
      await cold.getTransactionFacts(TRON_FIXTURE_TX.trxTransfer, { signal: AbortSignal.timeout(5000) });
      node.fault({ path: 'triggerconstantcontract', fault: { kind: 'hang' } });
      const r = await run(AbortSignal.timeout(250), cold);
      assert.ok(r.isErr(), 'no facts once the deadline fired');
      assert.equal(r.error.kind, 'aborted');
      assert.ok(
        node.calls.some((c) => c.path === 'triggerconstantcontract'),
        'the first round answered, metadata was being read',
      );
    } finally {
      await cold.close();
    }
  });

  test('an already aborted signal makes no call', async () => {
    const c = new AbortController();
    c.abort();
    const r = await run(c.signal);
    assert.ok(r.isErr() && r.error.kind === 'aborted');
    assert.equal(node.calls.length, 0);
  });

  test('a malformed hash is refused without calls', async () => {
    const r = await provider.getTransactionFacts('xyz', { signal: AbortSignal.timeout(1000) });
    assert.ok(r.isErr() && r.error.kind === 'unavailable');
    assert.equal(node.calls.length, 0);
  });
});

describe('TronNodeClient', () => {
  test('{} is not found for lookups, an error for getnowblock', async () => {
    const client = new TronNodeClient({ fullNodeUrl: node.url, timeoutMs: 200 });
    try {
      const missing = await client.getTransactionById('full', '00'.repeat(32), AbortSignal.timeout(1000));
      assert.ok(missing.isOk() && missing.value === null);
      node.fault({ path: 'getnowblock', fault: { kind: 'body', body: '{}' } });
      const block = await client.getNowBlock('full', AbortSignal.timeout(1000));
      assert.ok(block.isErr() && block.error.kind === 'bad_response');
    } finally {
      await client.close();
    }
  });

  test('an oversized answer is a bad response', async () => {
    const client = new TronNodeClient({ fullNodeUrl: node.url, maxResponseBytes: 1000 });
    try {
      node.fault({ path: 'getnowblock', fault: { kind: 'body', body: JSON.stringify({ pad: 'x'.repeat(5000) }) } });
      const r = await client.getNowBlock('full', AbortSignal.timeout(1000));
      assert.ok(r.isErr() && r.error.kind === 'bad_response' && r.error.detail.includes('too large'));
    } finally {
      await client.close();
    }
  });

  test('a base URL with a path prefix keeps it', async () => {
    const client = new TronNodeClient({ fullNodeUrl: `${node.url}/`, solidityNodeUrl: `${node.url}/prefix` });
    try {
      assert.ok((await client.getNowBlock('full', AbortSignal.timeout(1000))).isOk());
      const r = await client.getNowBlock('solidity', AbortSignal.timeout(1000));
      assert.ok(r.isErr() && r.error.kind === 'http_status' && r.error.status === 404);
    } finally {
      await client.close();
    }
  });
});
