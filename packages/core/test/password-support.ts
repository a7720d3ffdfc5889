import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import type { TestContext } from 'node:test';
import { hashPassword } from '../src/runtime/passwords.js';

/**
 * Fills the password derivations (2 running, 32 waiting) with derivations held until `release`: node:crypto's
 * scrypt answers only then (passwords.ts imports it as a named binding: synced to the mock).
 */
export async function fillDerivations(t: TestContext): Promise<{ release(): Promise<void> }> {
  const held: (() => void)[] = [];
  let holding = true;
  const mocked = t.mock.method(crypto, 'scrypt', (...args: unknown[]) => {
    const callback = args.at(-1) as (error: Error | null, key: Buffer) => void;
    const answer = () => callback(null, Buffer.alloc(32, 7));
    if (holding) held.push(answer);
    else setImmediate(answer);
  });
  syncBuiltinESMExports();
  t.after(() => {
    mocked.mock.restore();
    syncBuiltinESMExports();
  });
  const flood = Array.from({ length: 34 }, () => hashPassword('correct horse battery'));
  await new Promise((resolve) => setImmediate(resolve));
  return {
    async release() {
      holding = false;
      while (held.length > 0) held.shift()!();
      await Promise.all(flood);
    },
  };
}
