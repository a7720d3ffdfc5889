// Password derivations (scrypt, 32 MiB and ~0.2 s of a libuv pool thread each) run a few at once,
// behind a bounded queue: a flood of sign-ins cannot take the pool that DNS lookups and file writes use.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { describe, test } from 'node:test';
import { hashPassword } from '../src/runtime/passwords.js';
import { WorkLimit } from '../src/runtime/work-limit.js';

const PASSWORD = 'correct horse battery';

/** A task the test finishes when it wants. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { task: () => done, finish };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Work limit', () => {
  test('runs at most `concurrency` tasks at once; `queue` more wait in order, any beyond are refused as busy', async () => {
    const limit = new WorkLimit('tests', 2, 2);
    const started: number[] = [];
    const tasks = [0, 1, 2, 3].map(() => held());
    const runs = tasks.map((h, i) => limit.run(async () => (started.push(i), h.task())));
    await settle();
    assert.deepEqual(started, [0, 1]);
    assert.deepEqual((await limit.run(async () => 'over'))._unsafeUnwrapErr(), {
      code: 'busy',
      message: 'too many tests at once: try again in a moment',
    });
    tasks[1]!.finish();
    await settle();
    assert.deepEqual(started, [0, 1, 2], 'the first waiter takes the freed place');
    for (const h of tasks) h.finish();
    await Promise.all(runs);
    assert.deepEqual(started, [0, 1, 2, 3]);
    assert.equal((await limit.run(async () => 'free again'))._unsafeUnwrap(), 'free again');
  });

  test('a failing task rejects (a failure, not busy) and frees its place', async () => {
    const limit = new WorkLimit('tests', 1, 0);
    await assert.rejects(
      limit.run(async () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal((await limit.run(async () => 'next'))._unsafeUnwrap(), 'next');
  });

  test('Passwords: 2 derivations run at once, 32 wait, and a flood beyond is refused as busy', async (t) => {
    // A quick scrypt that records how many run at once.
    let running = 0;
    let most = 0;
    const mocked = t.mock.method(crypto, 'scrypt', (...args: unknown[]) => {
      most = Math.max(most, ++running);
      const callback = args.at(-1) as (error: Error | null, key: Buffer) => void;
      setImmediate(() => (running--, callback(null, Buffer.alloc(32))));
    });
    syncBuiltinESMExports();
    t.after(() => {
      mocked.mock.restore();
      syncBuiltinESMExports();
    });
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, () =>
        hashPassword(PASSWORD).then(
          (hash) => (hash.isOk() ? 'hashed' : hash.error.code),
          () => 'failed',
        ),
      ),
    );
    assert.equal(most, 2);
    assert.deepEqual(
      { hashed: outcomes.filter((o) => o === 'hashed').length, busy: outcomes.filter((o) => o === 'busy').length },
      { hashed: 34, busy: 6 },
    );
    assert.equal(mocked.mock.callCount(), 34);
  });
});
