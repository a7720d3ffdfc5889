import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { errAsync, ResultAsync } from 'neverthrow';
import type { ChainFactsProvider, ProviderContext } from '../src/chain/facts.js';
import { createSafetyService } from '../src/runtime/service.js';
import { instantChain, instantRisk } from '../src/testing/service-harness.js';
import { serviceEnvironment, COMPLETE_TX, check, assertError, period, waitingChain } from './runtime-support.js';

// End to end through `handle`: the server's hard deadline (Limits: 504 request_timeout) and shutdown.

const env = serviceEnvironment();
const { setup } = env;

describe('the deadline bounds the whole request', () => {
  /** The store with `method` answering only when `release()` is called (never, unless called). */
  function heldBack<S extends object>(store: S, method: string) {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached: () => void = () => {};
    const called = new Promise<void>((resolve) => (reached = resolve));
    const proxy = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function' || property !== method)
          return typeof value === 'function' ? value.bind(target) : value;
        return (...args: unknown[]) => {
          reached();
          return gate.then(() => value.apply(target, args));
        };
      },
    });
    return { proxy, called, release: () => release() };
  }

  /** Instant in-process providers (the chain failing for `failingChain`): the store under test is the only slow part. */
  async function instantSetup(store: 'checks', method: string, steps: string[] = [], failingChain = false) {
    const stores = createMemoryStores();
    const held = heldBack(stores[store], method);
    Object.assign(stores, { [store]: held.proxy });
    const s = await setup(
      {},
      { deadlineMs: 400, onError: (_e, c) => steps.push(c.step) },
      { chain: failingChain ? instantChain({ facts: () => null }) : instantChain(), risk: instantRisk() },
      stores,
    );
    return { s, held };
  }

  test('Limits: providers get the request signal, aborted before the deadline (a settle grace earlier), and that time', async () => {
    const seen: ProviderContext[] = [];
    const s = await setup({}, { deadlineMs: 400, settleGraceMs: 100 }, { chain: waitingChain(seen) });
    const sent = Date.now();
    assertError(await check(s, COMPLETE_TX), 504, 'request_timeout', true);
    const answered = Date.now();
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.signal.aborted, true, 'the signal the provider holds fired');
    const deadlineAt = seen[0]!.deadlineAt!;
    assert.ok(
      deadlineAt >= sent + 300 && deadlineAt <= answered,
      `providers stop 100 ms before the 400 ms deadline (${deadlineAt - sent} ms)`,
    );
  });

  test('Limits: a provider that reads the signal only after the providers were stopped finds it aborted, with the reason', async () => {
    const read: Array<{ aborted: boolean; reason: unknown }> = [];
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => (done = resolve));
    // Made on first read (an instant answer never pays for it): this one is first read at 200 ms.
    const lateReader: ChainFactsProvider = {
      getTransactionFacts: (_txHash, ctx) =>
        ResultAsync.fromSafePromise(new Promise((resolve) => setTimeout(resolve, 200))).andThen(() => {
          read.push({ aborted: ctx.signal.aborted, reason: ctx.signal.reason });
          done();
          return errAsync({ kind: 'aborted' as const });
        }),
    };
    const s = await setup({}, { deadlineMs: 150, settleGraceMs: 50 }, { chain: lateReader });
    assertError(await check(s, COMPLETE_TX), 504, 'request_timeout', true);
    await finished;
    assert.deepEqual(read, [{ aborted: true, reason: 'deadline' }]);
  });

  test('Limits: a provider that spreads its context into one of its own keeps the signal, aborted at the deadline', async () => {
    let seen: unknown = null;
    const spreading: ChainFactsProvider = {
      getTransactionFacts: (_txHash, ctx) => {
        const own = { ...ctx, deadlineAt: (ctx.deadlineAt ?? 0) - 10 };
        return ResultAsync.fromSafePromise(
          new Promise<void>((resolve) => own.signal.addEventListener('abort', () => resolve(), { once: true })),
        ).andThen(() => {
          seen = own.signal.reason;
          return errAsync({ kind: 'aborted' as const });
        });
      },
    };
    const s = await setup({}, { deadlineMs: 150, settleGraceMs: 50 }, { chain: spreading });
    assertError(await check(s, COMPLETE_TX), 504, 'request_timeout', true);
    assert.equal(seen, 'deadline');
  });

  test('Errors: a provider that reads the signal only after a shutdown ran out of time finds it aborted, and the check answers 503 releasing what it held', async () => {
    const read: Array<{ aborted: boolean; reason: unknown }> = [];
    const lateReader: ChainFactsProvider = {
      getTransactionFacts: (_txHash, ctx) =>
        ResultAsync.fromSafePromise(new Promise((resolve) => setTimeout(resolve, 300))).andThen(() => {
          read.push({ aborted: ctx.signal.aborted, reason: ctx.signal.reason });
          return errAsync({ kind: 'aborted' as const });
        }),
    };
    const s = await setup({}, { deadlineMs: 5000 }, { chain: lateReader });
    const inFlight = check(s, COMPLETE_TX, { 'idempotency-key': 'late-reader' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await s.service.close({ timeoutMs: 100 });
    assertError(await inFlight, 503, 'api_disabled', true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(read, [{ aborted: true, reason: 'shutdown' }]);
    assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
  });

  // `finish` bills, stores the result and records usage in one call.
  for (const [what, key, failingChain, status] of [
    ['bills a complete check', null, false, 504],
    ['stores a result under its key', 'hang-complete', false, 504],
    ['only records usage (nothing billed or stored)', null, true, 503],
  ] as const) {
    test(`a store that never answers the finish that ${what}: the caller still gets an answer by the deadline`, async () => {
      const steps: string[] = [];
      const { s } = await instantSetup('checks', 'finish', steps, failingChain);
      const r = await check(s, COMPLETE_TX, key ? { 'idempotency-key': key } : {});
      if (status === 503)
        assertError(r, 503, 'provider_unavailable', true); // a lost usage record does not change a decided answer
      else assertError(r, 504, 'request_timeout', true);
      assert.ok(steps.length > 0, 'the hanging store is reported');
    });
  }

  test('Limits: a commit that lands after the caller got its 504: the retry replays the decided 200, billed once', async () => {
    const { s, held } = await instantSetup('checks', 'finish');
    const first = await check(s, COMPLETE_TX, { 'idempotency-key': 'late' });
    assertError(first, 504, 'request_timeout', true);
    held.release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const retried = await check(s, COMPLETE_TX, { 'idempotency-key': 'late' });
    assert.equal(retried.status, 200, retried.body);
    assert.equal(
      retried.headers['Idempotent-Replayed'],
      'true',
      'the result the store decided, not a second execution',
    );
    assert.deepEqual(await period(s), { ...(await period(s)), used: 1, reserved: 0 });
  });

  test('Limits: close() is not held by a store that never answers', async () => {
    const { s, held } = await instantSetup('checks', 'finish');
    const inFlight = check(s, COMPLETE_TX);
    await held.called;
    await s.service.close({ timeoutMs: 50 });
    assertError(await inFlight, 504, 'request_timeout', true);
  });

  test('Limits: finishing (storing the result) is tried twice before the key is given up', async () => {
    const stores = createMemoryStores();
    const finish = stores.checks.finish.bind(stores.checks);
    let failures = 1;
    stores.checks.finish = (params) => (failures-- > 0 ? Promise.reject(new Error('blip')) : finish(params));
    const s = await setup({}, {}, {}, stores);
    const first = await check(s, COMPLETE_TX, { 'idempotency-key': 'blip' });
    assert.equal(first.status, 200);
    const replay = await check(s, COMPLETE_TX, { 'idempotency-key': 'blip' });
    assert.equal(replay.headers['Idempotent-Replayed'], 'true', 'stored on the second attempt');
    assert.equal((await period(s)).used, 1, 'billed once');
  });

  test('Limits: a finish that committed but lost its answer: the billed, stored result is the answer, not a 500', async () => {
    const stores = createMemoryStores();
    const finish = stores.checks.finish.bind(stores.checks);
    let calls = 0;
    // The first try commits, then its answer is lost; the second fails; giving back finds nothing held.
    stores.checks.finish = async (params) => {
      calls++;
      if (calls === 1) await finish(params);
      if (calls <= 2) throw new Error('connection lost');
      return finish(params);
    };
    const s = await setup({}, {}, {}, stores);
    const first = await check(s, COMPLETE_TX, { 'idempotency-key': 'lost' });
    assert.equal(first.status, 200);
    assert.equal((await period(s)).used, 1, 'billed once');
    const replay = await check(s, COMPLETE_TX, { 'idempotency-key': 'lost' });
    assert.equal(replay.headers['Idempotent-Replayed'], 'true');
    assert.equal(replay.body, first.body);
  });
});

describe('shutdown', () => {
  test('Errors: close: new requests 503, in-flight ones finish', async () => {
    const s = await setup();
    env.node.fault({ path: 'gettransactionbyid', times: 2, fault: { kind: 'latency', ms: 200 } });
    const inFlight = check(s, COMPLETE_TX);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = s.service.close();
    assert.equal(s.service.apiDisabled, true, 'closing refuses business requests');
    assertError(await check(s, COMPLETE_TX), 503, 'api_disabled', true);
    assert.equal((await inFlight).status, 200);
    await closed;
    assert.equal(s.service.inFlight, 0);
  });

  test('Errors: close past its bound aborts in-flight checks, which release what they hold', async () => {
    const s = await setup();
    env.node.fault({ path: 'gettransactionbyid', fault: { kind: 'latency', ms: 3000 } });
    const inFlight = check(s, COMPLETE_TX, { 'idempotency-key': 'drain' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await s.service.close({ timeoutMs: 100 });
    env.node.clearFaults();
    assertError(await inFlight, 503, 'api_disabled', true);
    assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
    const again = createSafetyService(s.stores, { chain: env.chain, risk: env.risk });
    const retried = await check({ service: again, apiKey: s.apiKey }, COMPLETE_TX, { 'idempotency-key': 'drain' });
    assert.equal(retried.status, 200, 'the key was abandoned, not stored');
    assert.equal(retried.headers['Idempotent-Replayed'], undefined);
  });
});
