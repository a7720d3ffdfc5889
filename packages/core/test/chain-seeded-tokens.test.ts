import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SeededTokens, type Seed } from '../src/chain/seeded-tokens.js';

const ASOF = new Date('2026-01-01T00:00:00Z');
const SEED: Seed = {
  key: 'trc20:41aa',
  contractHex: '41aa',
  token: { contract: 'TAA', symbol: 'AA', name: 'Aa', decimals: 6, asOf: ASOF },
};

test('Known tokens: a confirmation read that rejects (a bug) is reported, and the seed keeps its values and date', async () => {
  const reported: unknown[] = [];
  const seeds = new SeededTokens([SEED], { confirmEveryMs: 60_000, onError: (error) => reported.push(error) });
  const bug = new TypeError('cannot read properties of undefined');
  try {
    await seeds.keepConfirmed(() => Promise.reject(bug));
    assert.deepEqual(reported, [bug]);
    assert.deepEqual(seeds.get(SEED.key), { symbol: 'AA', name: 'Aa', decimals: 6, readAt: ASOF, complete: true });
  } finally {
    seeds.stop();
  }
});

test('Known tokens: without an error hook, a rejected confirmation read is a process warning, not silence', async (t) => {
  const warned: unknown[] = [];
  t.mock.method(process, 'emitWarning', (warning: unknown) => void warned.push(warning));
  const seeds = new SeededTokens([SEED], { confirmEveryMs: 60_000 });
  const bug = new TypeError('bug');
  try {
    await seeds.keepConfirmed(() => Promise.reject(bug));
    assert.deepEqual(warned, [bug]);
  } finally {
    seeds.stop();
  }
});
