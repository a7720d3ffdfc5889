// The evidence of one check in two provider levels: the node round, then token metadata, sanctions
// and AML together. Chain over real HTTP (fake node); risk providers in process, recording when and
// what they were asked.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { errAsync, okAsync } from 'neverthrow';
import type { Expectations } from '../src/assessment/input.js';
import { selectTransfer } from '../src/assessment/matching.js';
import type { ChainFacts, ChainFactsProvider, Transfer } from '../src/chain/facts.js';
import { createTronChainFactsProvider, type TronChainFactsProvider } from '../src/chain/provider.js';
import { gatherSignals } from '../src/risk/gather.js';
import type { AmlAnswer, RiskProviders } from '../src/risk/signals.js';
import { gatherEvidence, type EvidenceRequest } from '../src/runtime/evidence.js';
import { base58ToHexAddress } from '../src/tron/address.js';
import {
  buildTronTransaction,
  confirmedTrxFacts,
  instantChain,
  startFakeTronNode,
  transferLog,
  TRON_FIXTURE_TX,
  USDT_CONTRACT,
  type FakeTronNode,
} from '../src/testing/index.js';

const TL24 = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';
const TXVJ = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';
const OTHER = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';
const TOKEN = 'TYPG8VeuoVAh2hP7Vfw6ww7vK98nvXXXUG'; // not in the registry: its metadata is read
const hex = (a: string) => base58ToHexAddress(a)!;
const NONE: Expectations = { recipient: null, tokenContract: null, amount: null };
const ctx = () => ({ signal: AbortSignal.timeout(5000) });

/** Risk providers that answer at once (AML by address) and record what they were asked, and when. */
function recording(aml: (address: string) => AmlAnswer = () => answered('low')) {
  const calls: { what: string; at: number }[] = [];
  const record = (what: string) => calls.push({ what, at: performance.now() });
  const providers: RiskProviders = {
    sanctions: {
      screen: async (addresses) => {
        record(`sanctions ${addresses.join(',')}`);
        return { status: 'answered', hits: [], asOf: new Date(1) };
      },
    },
    aml: {
      supportsAsset: (asset) => asset.kind !== 'trc10',
      assessAddress: async (address) => {
        record(`aml ${address}`);
        return aml(address);
      },
    },
    tokens: {
      assess: async (token) => {
        record(`token ${token.symbol}`);
        return { status: 'answered', authenticity: 'unknown', asOf: new Date(2) };
      },
    },
  };
  return { providers, calls, asked: () => calls.map((c) => c.what) };
}
const answered = (level: 'low' | 'severe'): AmlAnswer => ({
  status: 'answered',
  level,
  exposures: [],
  asOf: new Date(5),
});

/** The check the way it ran before: facts, then the selection, then every risk signal. */
async function sequential(input: EvidenceRequest) {
  const facts = (await input.chain.getTransactionFacts(input.request.txHash, input.ctx))._unsafeUnwrap();
  const selection = selectTransfer(facts, input.request.expectations);
  return { facts, selection, signals: await gatherSignals(facts, selection.transfer, input.risk, input.ctx) };
}

let node: FakeTronNode;
let chain: TronChainFactsProvider;
before(async () => {
  node = await startFakeTronNode();
  chain = createTronChainFactsProvider({ fullNodeUrl: node.url, retry: { baseDelayMs: 2, maxDelayMs: 5 } });
});
after(async () => {
  await chain.close();
  await node.close();
});

/** A transfer() call of TOKEN whose Transfer events are `logs`. */
function tokenCall(blockNumber: number, logs: [from: string, to: string, amount: bigint][]) {
  const data = `a9059cbb${'0'.repeat(24)}${hex(TXVJ).slice(2)}${'1'.padStart(64, '0')}`;
  const built = buildTronTransaction({
    contractType: 'TriggerSmartContract',
    parameter: { owner_address: hex(TL24), contract_address: hex(TOKEN), data },
    blockNumber,
    info: {
      receipt: { result: 'SUCCESS' },
      log: logs.map(([from, to, amount]) => transferLog(TOKEN, from, to, amount)),
    },
  });
  node.addTransaction(built);
  return built.txID;
}

describe('two provider levels', () => {
  test('a cold registry-token check: the node round, then sanctions and AML; no metadata call', async () => {
    const fresh = createTronChainFactsProvider({ fullNodeUrl: node.url });
    const { providers, asked } = recording();
    try {
      node.clearCalls();
      const request = { txHash: TRON_FIXTURE_TX.usdtTransfer, expectations: NONE };
      const evidence = (await gatherEvidence({ request, chain: fresh, risk: providers, ctx: ctx() }))._unsafeUnwrap();
      assert.deepEqual(
        node.calls.map((c) => c.path).filter((p) => p !== 'getnowblock' && !p.startsWith('gettransaction')),
        [],
        'nothing read after the first round',
      );
      assert.equal(node.calls.length, 6);
      assert.equal(evidence.selection.transfer?.tokenSymbol, 'USDT');
      assert.deepEqual(asked().sort(), [
        `aml ${TL24}`,
        `sanctions ${[TL24, TXVJ, USDT_CONTRACT].join(',')}`,
        'token USDT',
      ]);
    } finally {
      await fresh.close();
    }
  });

  test('sanctions and AML start once the parties are known, while token metadata is still being read', async () => {
    const txHash = tokenCall(70_000_100, [[TL24, TXVJ, 5n]]);
    node.setToken(TOKEN, { decimals: 6, symbol: 'TKN', name: 'Token' });
    const { providers, calls } = recording();
    const slow = node.fault({ path: 'triggerconstantcontract', fault: { kind: 'latency', ms: 150 } });
    try {
      node.clearCalls();
      const evidence = await gatherEvidence({
        request: { txHash, expectations: NONE },
        chain,
        risk: providers,
        ctx: ctx(),
      });
      assert.ok(evidence.isOk());
      const lookups = node.calls.filter((c) => c.path !== 'triggerconstantcontract');
      const metadata = node.calls.filter((c) => c.path === 'triggerconstantcontract');
      assert.equal(metadata.length, 3);
      const screened = calls.filter((c) => !c.what.startsWith('token'));
      assert.deepEqual(screened.map((c) => c.what.split(' ')[0]).sort(), ['aml', 'sanctions']);
      for (const call of screened) {
        assert.ok(call.at >= Math.max(...lookups.map((c) => c.finishedAt!)), `${call.what} after the first round`);
        assert.ok(call.at < Math.min(...metadata.map((c) => c.finishedAt!)), `${call.what} before metadata came back`);
      }
      const token = calls.find((c) => c.what.startsWith('token'))!;
      assert.equal(token.what, 'token TKN', 'authenticity from the metadata read');
      assert.ok(token.at >= Math.max(...metadata.map((c) => c.finishedAt!)));
    } finally {
      slow();
    }
  });

  test('the same facts, selection and signals as facts → selection → screening', async () => {
    node.setToken(TOKEN, { decimals: 6, symbol: 'TKN', name: 'Token' });
    const twoTokens = tokenCall(70_000_101, [
      [TL24, TXVJ, 1_000_000n],
      [OTHER, TXVJ, 2_000_000n],
    ]);
    const cases: [string, Expectations][] = [
      [TRON_FIXTURE_TX.usdtTransfer, NONE],
      [TRON_FIXTURE_TX.usdtTransfer, { recipient: TXVJ, tokenContract: USDT_CONTRACT, amount: '41.677389' }],
      [TRON_FIXTURE_TX.trxTransfer, { recipient: TL24, tokenContract: null, amount: '0.000001' }],
      [TRON_FIXTURE_TX.trc10Transfer, NONE],
      [TRON_FIXTURE_TX.voteWitness, NONE],
      [node.failedUsdtTx, NONE],
      ['ab'.repeat(32), NONE],
      [twoTokens, { recipient: TXVJ, tokenContract: null, amount: '2' }],
    ];
    for (const [txHash, expectations] of cases) {
      const input = { request: { txHash, expectations }, chain, risk: recording().providers, ctx: ctx() };
      const evidence = (await gatherEvidence(input))._unsafeUnwrap();
      const expected = await sequential(input);
      const stable = (e: typeof expected) => ({ ...e, facts: { ...e.facts, observedAt: null, headTime: null } });
      assert.deepEqual(stable(evidence), stable(expected), txHash);
    }
  });
});

describe('the early screening', () => {
  /** A chain that tells the parties early with the tokens unread, then answers `final`. */
  function earlyChain(final: ChainFacts): ChainFactsProvider {
    return {
      getTransactionFacts: (_hash, context) => {
        const unread = final.transfers.map((t): Transfer => ({ ...t, decimals: null, tokenSymbol: null }));
        context.onPartiesKnown?.({ ...final, transfers: unread });
        return okAsync(final);
      },
    };
  }
  const token = (index: number, sender: string, rawAmount: bigint): Transfer => ({
    index,
    assetType: 'trc20',
    source: 'log',
    sender,
    recipient: TXVJ,
    tokenContract: TOKEN,
    tokenId: null,
    tokenSymbol: 'TKN',
    tokenName: 'Token',
    decimals: 6,
    rawAmount,
  });

  test('an expected amount only the decimals decide: the parties of the finally selected transfer are screened', async () => {
    const facts = { ...confirmedTrxFacts('cd'.repeat(32)), owner: TL24, primaryTransfer: null };
    facts.transfers = [token(0, OTHER, 1_000_000n), token(1, TXVJ, 2_000_000n)];
    const { providers, asked } = recording((a) => answered(a === TXVJ ? 'severe' : 'low'));
    // Before the token's decimals are read both transfers tie (the first is the early guess); after, the second matches.
    const expectations = { recipient: null, tokenContract: TOKEN, amount: '2' };
    const input = {
      request: { txHash: facts.txHash, expectations },
      chain: earlyChain(facts),
      risk: providers,
      ctx: ctx(),
    };
    const evidence = (await gatherEvidence(input))._unsafeUnwrap();
    assert.equal(evidence.selection.transfer?.index, 1);
    assert.ok(asked().includes(`aml ${OTHER}`), 'the early guess was screened');
    assert.ok(asked().includes(`aml ${TXVJ}`), 'and the final selection too');
    assert.deepEqual(
      evidence.signals,
      (await sequential({ ...input, risk: recording((a) => answered(a === TXVJ ? 'severe' : 'low')).providers }))
        .signals,
    );
    assert.equal(evidence.signals.aml?.status === 'answered' && evidence.signals.aml.level, 'severe');
  });

  test('the same selection early and late: each party is screened once', async () => {
    const facts = { ...confirmedTrxFacts('ce'.repeat(32)), owner: TL24, transfers: [token(0, OTHER, 1_000_000n)] };
    const { providers, asked } = recording();
    await gatherEvidence({
      request: { txHash: facts.txHash, expectations: NONE },
      chain: earlyChain(facts),
      risk: providers,
      ctx: ctx(),
    });
    assert.deepEqual(
      asked()
        .filter((c) => !c.startsWith('token'))
        .sort(),
      [`aml ${OTHER}`, `aml ${TL24}`, `sanctions ${[TL24, OTHER, TXVJ, TOKEN].join(',')}`].sort(),
    );
  });

  test('a provider that never tells the parties early: screened after the facts, same answer', async () => {
    const { providers, asked } = recording();
    const input = {
      request: { txHash: 'cf'.repeat(32), expectations: NONE },
      chain: instantChain(),
      risk: providers,
      ctx: ctx(),
    };
    const evidence = (await gatherEvidence(input))._unsafeUnwrap();
    assert.equal(asked().length, 3, 'sanctions, AML of the sender (the owner), token');
    assert.deepEqual(evidence.signals, (await sequential({ ...input, risk: recording().providers })).signals);
  });

  test('a screening nobody waits for (the chain failed after the parties were known) is dropped, never thrown', async () => {
    const { providers } = recording();
    providers.aml.supportsAsset = () => {
      throw new Error('a provider breaking its promise');
    };
    const failing: ChainFactsProvider = {
      getTransactionFacts: (hash, context) => {
        context.onPartiesKnown?.(confirmedTrxFacts(hash));
        return errAsync({ kind: 'unavailable', detail: 'down' });
      },
    };
    const input = {
      request: { txHash: 'd0'.repeat(32), expectations: NONE },
      chain: failing,
      risk: providers,
      ctx: ctx(),
    };
    assert.deepEqual((await gatherEvidence(input))._unsafeUnwrapErr(), { kind: 'provider_unavailable' });
    await new Promise((resolve) => setImmediate(resolve));
  });
});

describe('chain failures', () => {
  const input = (chainProvider: ChainFactsProvider, signal = AbortSignal.timeout(5000)) => ({
    request: { txHash: 'd1'.repeat(32), expectations: NONE },
    chain: chainProvider,
    risk: recording().providers,
    ctx: { signal },
  });

  test('no data from the chain: provider_unavailable, nothing screened', async () => {
    const { providers, asked } = recording();
    const r = await gatherEvidence({ ...input(instantChain({ facts: () => null })), risk: providers });
    assert.deepEqual(r._unsafeUnwrapErr(), { kind: 'provider_unavailable' });
    assert.deepEqual(asked(), []);
  });

  test("aborted only when the check's own signal fired; a provider's own abort is its unavailability", async () => {
    const aborting: ChainFactsProvider = { getTransactionFacts: () => errAsync({ kind: 'aborted' }) };
    const fired = new AbortController();
    fired.abort();
    assert.deepEqual((await gatherEvidence(input(aborting, fired.signal)))._unsafeUnwrapErr(), { kind: 'aborted' });
    assert.deepEqual((await gatherEvidence(input(aborting)))._unsafeUnwrapErr(), { kind: 'provider_unavailable' });
  });

  test('the facts of a transaction no node knows: no signals, nothing screened', async () => {
    const { providers, asked } = recording();
    const notFound = { ...confirmedTrxFacts('d2'.repeat(32)), state: 'not_found' as const };
    const chainProvider: ChainFactsProvider = { getTransactionFacts: () => okAsync(notFound) };
    const evidence = (await gatherEvidence({ ...input(chainProvider), risk: providers }))._unsafeUnwrap();
    assert.deepEqual(evidence.signals, { sanctions: null, aml: null, token: null });
    assert.deepEqual(asked(), []);
  });
});
