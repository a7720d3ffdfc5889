import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SeededTokens, type KnownToken, type KnownTokenDisagreement, type Seed } from '../src/chain/seeded-tokens.js';
import type { TokenMetadata } from '../src/chain/token-metadata.js';

const ASOF = new Date('2026-01-01T00:00:00Z');
const SEED: Seed = {
  key: 'trc20:41aa',
  contractHex: '41aa',
  token: { contract: 'TAA', symbol: 'AA', name: 'Aa', decimals: 6, asOf: ASOF, bundled: true },
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

/** A reading of the seed's token, as the chain would answer it. */
const reading = (values: { symbol: string; decimals: number }, readAt = new Date()): TokenMetadata => ({
  ...values,
  name: 'Aa',
  readAt,
  complete: true,
});
const own = (token: Partial<KnownToken> = {}): Seed => ({
  ...SEED,
  token: { ...SEED.token, bundled: false, ...token },
});

test('Known tokens: a seed not from the bundled registry is served only once a chain reading agreed with it', async () => {
  const seeds = new SeededTokens([own()], { confirmEveryMs: 60_000 });
  try {
    assert.equal(seeds.get(SEED.key), null, 'before any confirmation: read from the chain like any token');
    await seeds.keepConfirmed(() => Promise.resolve({ ...reading(SEED.token), complete: false }));
    assert.equal(seeds.get(SEED.key), null, 'a round that could not ask confirms nothing');
    const agreeing = reading(SEED.token);
    await seeds.keepConfirmed(() => Promise.resolve(agreeing));
    assert.equal(seeds.get(SEED.key), agreeing, 'served from the confirming reading, dated by it');
  } finally {
    seeds.stop();
  }
});

test("Known tokens: a seed the chain contradicts before it was ever served is heard once, and never served (an operator's typo)", async () => {
  const heard: KnownTokenDisagreement[] = [];
  const seeds = new SeededTokens([own({ decimals: 0 })], {
    confirmEveryMs: 60_000,
    onDisagreement: (d) => heard.push(d),
  });
  try {
    for (let round = 0; round < 2; round++) {
      await seeds.keepConfirmed(() => Promise.resolve(reading({ symbol: 'AA', decimals: 6 })));
      assert.equal(seeds.get(SEED.key), null);
    }
    assert.deepEqual(heard, [
      { contract: 'TAA', known: { symbol: 'AA', decimals: 0 }, chain: { symbol: 'AA', decimals: 6 } },
    ]);
  } finally {
    seeds.stop();
  }
});

test('Known tokens: one seed per token, the bundled one whatever the order, else the first: a restatement neither renames nor re-dates it', async () => {
  const restated = own({ symbol: 'AA2', asOf: new Date('2027-01-01T00:00:00Z') });
  for (const order of [
    [SEED, restated],
    [restated, SEED],
  ]) {
    const seeds = new SeededTokens(order, { confirmEveryMs: 60_000 });
    assert.deepEqual(seeds.get(SEED.key), { symbol: 'AA', name: 'Aa', decimals: 6, readAt: ASOF, complete: true });
    seeds.stop();
  }
  const operators = new SeededTokens([own({ decimals: 0 }), own({ decimals: 6 })], { confirmEveryMs: 60_000 });
  try {
    await operators.keepConfirmed(() => Promise.resolve(reading({ symbol: 'AA', decimals: 0 })));
    assert.equal(operators.get(SEED.key)?.decimals, 0, 'the first of two operator seeds is the one confirmed');
  } finally {
    operators.stop();
  }
});
