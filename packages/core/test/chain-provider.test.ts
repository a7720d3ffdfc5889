// The chain facts provider end to end over real HTTP: a fresh fake node per group, faults removed
// by the test that adds them. The judgement of the answers is tested without HTTP in
// chain-derive.test.ts and chain-transfers.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChainFacts } from '../src/chain/facts.js';
import { nodeApiKeys } from '../src/chain/client.js';
import { createTronChainFactsProvider, type TronChainFactsProvider } from '../src/chain/provider.js';
import { OFFICIAL_TOKENS_AS_OF } from '../src/risk/data/official-tokens.js';
import { base58ToHexAddress, hexToBase58Address } from '../src/tron/address.js';
import {
  buildTronTransaction,
  startFakeTronNode,
  transferLog,
  TRON_FIXTURE_TX,
  USDT_CONTRACT,
  type FakeTronNode,
} from '../src/testing/index.js';
import { check, signals } from './assessment-support.js';

const TL24 = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';
const TXVJ = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';
const hex = (a: string) => base58ToHexAddress(a)!;

async function factsOf(p: TronChainFactsProvider, hash: string): Promise<ChainFacts> {
  const result = await p.getTransactionFacts(hash, { signal: AbortSignal.timeout(5000) });
  if (result.isErr()) assert.fail(`expected facts, got ${JSON.stringify(result.error)}`);
  return result.value;
}

/** A fresh fake node and a provider on it for one group of tests. */
function fakeNodeGroup(options: Parameters<typeof createTronChainFactsProvider>[0] | object = {}) {
  const group = {} as { node: FakeTronNode; provider: TronChainFactsProvider };
  before(async () => {
    group.node = await startFakeTronNode();
    group.provider = createTronChainFactsProvider({
      fullNodeUrl: group.node.url,
      timeoutMs: 2000,
      retry: { baseDelayMs: 2, maxDelayMs: 5 },
      ...options,
    });
  });
  after(async () => {
    await group.provider.close();
    await group.node.close();
  });
  return group;
}

const metadataCalls = (node: FakeTronNode, selector?: string) =>
  node.calls.filter(
    (c) =>
      c.path === 'triggerconstantcontract' &&
      (selector === undefined || (c.body as { function_selector?: string }).function_selector === selector),
  ).length;

describe('recorded fixtures over HTTP', () => {
  const g = fakeNodeGroup();

  test('USDT 0130dfde…: confirmed, verified, 41.677389 USDT from TL24… to TXVj…', async () => {
    const f = await factsOf(g.provider, TRON_FIXTURE_TX.usdtTransfer);
    assert.equal(f.state, 'confirmed');
    assert.equal(f.verified, true);
    assert.deepEqual(f.missing, []);
    assert.equal(f.confirmations, g.node.heights.head - 69316562 + 1);
    const t = f.transfers[0]!;
    assert.deepEqual(
      [t.sender, t.recipient, t.tokenContract, t.tokenSymbol, t.tokenName, t.decimals, t.rawAmount],
      [TL24, TXVJ, USDT_CONTRACT, 'USDT', 'Tether USD', 6, 41677389n],
    );
    assert.ok(f.tokenDataAt instanceof Date);
  });

  test('TRX and TRC10: the TRC10 decimals read from the node (getassetissuebyid)', async () => {
    const trx = await factsOf(g.provider, TRON_FIXTURE_TX.trxTransfer);
    assert.equal(trx.transfers[0]!.tokenSymbol, 'TRX');
    assert.equal(trx.tokenDataAt, null);
    g.node.clearCalls();
    const trc10 = await factsOf(g.provider, TRON_FIXTURE_TX.trc10Transfer);
    assert.equal(trc10.transfers[0]!.decimals, 6);
    assert.equal(trc10.transfers[0]!.tokenSymbol, 'FIXT');
    assert.ok(g.node.calls.some((c) => c.path === 'getassetissuebyid'));
  });

  test('upper-case hashes are the same transaction; an unknown hash is not found', async () => {
    const f = await factsOf(g.provider, TRON_FIXTURE_TX.trxTransfer.toUpperCase());
    assert.equal(f.txHash, TRON_FIXTURE_TX.trxTransfer);
    assert.equal(f.verified, true);
    assert.equal((await factsOf(g.provider, 'ab'.repeat(32))).state, 'not_found');
  });

  test('truncation: 150 Transfer logs are cut at maxTransfers (default 100)', async () => {
    const logs = Array.from({ length: 150 }, (_, i) => transferLog(USDT_CONTRACT, TL24, TXVJ, BigInt(i + 1)));
    const built = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: { owner_address: hex(TL24), contract_address: hex(USDT_CONTRACT), data: 'deadbeef' },
      blockNumber: 70_000_011,
      info: { receipt: { result: 'SUCCESS' }, log: logs },
    });
    g.node.addTransaction(built);
    const byDefault = await factsOf(g.provider, built.txID);
    assert.equal(byDefault.transfers.length, 100);
    assert.equal(byDefault.transfersTruncated, true);
    const small = createTronChainFactsProvider({ fullNodeUrl: g.node.url, maxTransfers: 5 });
    try {
      const f = await factsOf(small, built.txID);
      assert.equal(f.transfers.length, 5);
      assert.equal(f.transfersTruncated, true);
    } finally {
      await small.close();
    }
  });
});

describe("Freshness: the nodes' head dates the chain data", () => {
  const g = fakeNodeGroup();

  test("headTime is the full node's head block time, about now", async () => {
    const askedAt = Date.now();
    const f = await factsOf(g.provider, TRON_FIXTURE_TX.trxTransfer);
    assert.deepEqual(f.missing, []);
    assert.ok(f.headTime !== null && f.headTime.getTime() >= askedAt && f.headTime <= f.observedAt);
  });

  test('a head stalled over a minute: head_stale, the state kept (it only understates), an unknown hash unknown, not not_found', async () => {
    g.node.setHeights({ headAgeMs: 5 * 60_000 });
    try {
      const f = await factsOf(g.provider, TRON_FIXTURE_TX.trxTransfer);
      assert.deepEqual(
        f.missing.map((m) => m.code),
        ['head_stale'],
      );
      assert.match(f.missing[0]!.detail, /^the full node's head is from \S+, 30\d s before the observation$/);
      assert.equal(f.state, 'confirmed');
      assert.ok(f.observedAt.getTime() - f.headTime!.getTime() >= 5 * 60_000);
      const unknown = await factsOf(g.provider, 'ab'.repeat(32));
      assert.deepEqual([unknown.state, unknown.missing.map((m) => m.code)], ['unknown', ['head_stale']]);
    } finally {
      g.node.setHeights({ headAgeMs: 0 });
    }
  });

  /** The full node's head as it answers now, moved `ageMs` into the past (200 blocks lower). */
  async function fullHeadFrom(ageMs: number): Promise<string> {
    const res = await fetch(`${g.node.url}/wallet/getnowblock`, { method: 'POST', body: '{}' });
    const block = (await res.json()) as { block_header: { raw_data: { number: number; timestamp: number } } };
    block.block_header.raw_data.number -= 200;
    block.block_header.raw_data.timestamp = Date.now() - ageMs;
    return JSON.stringify(block);
  }

  test("a full node stalled beside a current solidity node: head_stale, also for a found transaction, and an unknown hash is unknown, not not_found (a not_found rests on the full node's view)", async () => {
    const { head, solidified } = g.node.heights;
    g.node.setHeights({ solidified: head - 15 }); // the solidity head 45 s old: the newest head is current
    const body = await fullHeadFrom(10 * 60_000);
    const remove = g.node.fault({ node: 'full', path: 'getnowblock', fault: { kind: 'body', body } });
    try {
      const f = await factsOf(g.provider, 'ab'.repeat(32));
      assert.deepEqual([f.state, f.missing.map((m) => m.code)], ['unknown', ['head_stale']]);
      assert.match(f.missing[0]!.detail, /^the full node's head is from \S+, 60\d s before the observation$/);
      const found = await factsOf(g.provider, TRON_FIXTURE_TX.trxTransfer);
      assert.ok(
        found.missing.some((m) => m.code === 'head_stale'),
        JSON.stringify(found.missing),
      );
    } finally {
      remove();
      g.node.setHeights({ solidified });
    }
  });

  test("Freshness: max_source_age_seconds dates the chain data by the head the answer rests on, a stalled full node's, not a newer solidity head", async () => {
    const { head, solidified } = g.node.heights;
    g.node.setHeights({ solidified: head - 15 }); // the solidity head 45 s old
    const body = await fullHeadFrom(10 * 60_000);
    const remove = g.node.fault({ node: 'full', path: 'getnowblock', fault: { kind: 'body', body } });
    try {
      for (const hash of ['ab'.repeat(32), TRON_FIXTURE_TX.trxTransfer]) {
        const f = await factsOf(g.provider, hash);
        const fresh = signals({
          sanctions: { status: 'answered', hits: [], asOf: f.observedAt },
          aml: { status: 'answered', level: 'low', exposures: [], asOf: f.observedAt },
          token: null,
        });
        const { freshness } = check({ facts: f, signals: fresh, checkedAt: f.observedAt });
        assert.ok(freshness.max_source_age_seconds >= 600, `${hash}: ${JSON.stringify(freshness)}`);
      }
    } finally {
      remove();
      g.node.setHeights({ solidified });
    }
  });

  test("the full node's head unanswered: an unknown hash is unknown, not not_found, beside a current solidity head or none", async () => {
    const { head, solidified } = g.node.heights;
    g.node.setHeights({ solidified: head - 15 });
    const removeFull = g.node.fault({ node: 'full', path: 'getnowblock', fault: { kind: 'status', status: 500 } });
    try {
      assert.equal((await factsOf(g.provider, 'ab'.repeat(32))).state, 'unknown');
      const removeSolidity = g.node.fault({
        node: 'solidity',
        path: 'getnowblock',
        fault: { kind: 'status', status: 500 },
      });
      try {
        assert.equal((await factsOf(g.provider, 'cd'.repeat(32))).state, 'unknown');
      } finally {
        removeSolidity();
      }
    } finally {
      removeFull();
      g.node.setHeights({ solidified });
    }
    assert.equal((await factsOf(g.provider, 'ef'.repeat(32))).state, 'not_found');
  });

  test('a head without a block time is a bad response: it cannot date the chain data', async () => {
    const body = JSON.stringify({ blockID: '00', block_header: { raw_data: { number: g.node.heights.head } } });
    const remove = g.node.fault({ node: 'full', path: 'getnowblock', fault: { kind: 'body', body } });
    try {
      const f = await factsOf(g.provider, TRON_FIXTURE_TX.trxTransfer);
      assert.equal(f.state, 'unknown');
      assert.ok(f.missing.some((m) => m.detail.startsWith('full node getnowblock: bad response')));
    } finally {
      remove();
    }
  });
});

describe('known tokens', () => {
  const g = fakeNodeGroup();

  test("a registry token needs no metadata call: the registry's symbol, name and decimals, as of the registry until the chain confirms them", async () => {
    g.node.clearCalls();
    const f = await factsOf(g.provider, TRON_FIXTURE_TX.usdtTransfer);
    assert.equal(metadataCalls(g.node), 0);
    const t = f.transfers[0]!;
    assert.deepEqual([t.tokenSymbol, t.tokenName, t.decimals], ['USDT', 'Tether USD', 6]);
    assert.equal(f.tokenDataAt?.toISOString(), new Date(OFFICIAL_TOKENS_AS_OF).toISOString());
  });

  test('knownTokens: [] reads every token from the nodes; a configured bundled token is not read', async () => {
    const reading = createTronChainFactsProvider({ fullNodeUrl: g.node.url, knownTokens: [] });
    const asOf = new Date('2026-01-01T00:00:00Z');
    const mine = { contract: USDT_CONTRACT, symbol: 'MINE', name: 'Configured', decimals: 6, asOf, bundled: true };
    const configured = createTronChainFactsProvider({ fullNodeUrl: g.node.url, knownTokens: [mine] });
    try {
      g.node.clearCalls();
      assert.equal((await factsOf(reading, TRON_FIXTURE_TX.usdtTransfer)).transfers[0]!.decimals, 6);
      assert.equal(metadataCalls(g.node), 3, 'decimals(), symbol(), name()');
      g.node.clearCalls();
      const f = await factsOf(configured, TRON_FIXTURE_TX.usdtTransfer);
      assert.equal(metadataCalls(g.node), 0);
      assert.equal(f.transfers[0]!.tokenSymbol, 'MINE');
      assert.equal(f.tokenDataAt?.getTime(), asOf.getTime());
      assert.throws(
        () => createTronChainFactsProvider({ fullNodeUrl: g.node.url, knownTokens: [{ ...mine, contract: 'T1' }] }),
        /not a TRON address/,
      );
    } finally {
      await reading.close();
      await configured.close();
    }
  });
});

describe('token metadata', () => {
  const g = fakeNodeGroup();
  const tokenTx = (contract: string, blockNumber: number) => {
    const built = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: {
        owner_address: hex(TL24),
        contract_address: hex(contract),
        data: `a9059cbb${'0'.repeat(24)}${hex(TXVJ).slice(2)}${1234n.toString(16).padStart(64, '0')}`,
      },
      blockNumber,
      info: { receipt: { result: 'SUCCESS' }, log: [transferLog(contract, TL24, TXVJ, 1234n)] },
    });
    g.node.addTransaction(built);
    return built.txID;
  };

  test('malformed and bytes32-style answers decode defensively', async () => {
    const a = 'TYPG8VeuoVAh2hP7Vfw6ww7vK98nvXXXUG';
    g.node.setToken(a, {
      decimals: { raw: 'ff'.repeat(32) }, // absurd decimals
      symbol: { raw: Buffer.from('MKR').toString('hex').padEnd(64, '0') }, // bytes32
      name: { raw: '0000000000000000000000000000000000000000000000000000000000000020ffff' }, // cut string
    });
    const f = await factsOf(g.provider, tokenTx(a, 70_000_020));
    const t = f.transfers[0]!;
    assert.equal(f.category, 'trc20_transfer');
    assert.equal(t.decimals, null);
    assert.equal(t.tokenSymbol, 'MKR');
    assert.equal(t.tokenName, null);
    assert.deepEqual(f.missing, [], 'the token answered: nothing is missing, the values are just unknown');
  });

  test('a symbol or name with control characters is shown with U+FFFD in their place, never null or raw; zero padding is dropped', async () => {
    const e = 'TJzXt1sZautjqXnpjQT4xSCBHNSYgBkDr3';
    g.node.setToken(e, { decimals: 6, symbol: 'USDT\t', name: 'Tether USD\u0000\u0000' });
    const t = (await factsOf(g.provider, tokenTx(e, 70_000_027))).transfers[0]!;
    assert.deepEqual([t.tokenSymbol, t.tokenName], ['USDT\uFFFD', 'Tether USD']);
  });

  test('a contract that reverts or does not exist: nulls, transfer kept', async () => {
    const b = 'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B';
    g.node.setToken(b, { decimals: 'revert', symbol: 'revert', name: 'revert' });
    const f = await factsOf(g.provider, tokenTx(b, 70_000_021));
    assert.equal(f.transfers[0]!.decimals, null);
    assert.equal(f.transfers[0]!.rawAmount, 1234n);
  });

  test('a revert is cached only briefly (tokenNegativeCacheMs)', async () => {
    const d = hexToBase58Address(`41${'5a'.repeat(20)}`)!; // a token no other test uses
    g.node.setToken(d, { decimals: 'revert', symbol: 'revert', name: 'revert' });
    const txId = tokenTx(d, 70_000_025);
    let now = 0;
    const brief = createTronChainFactsProvider({
      fullNodeUrl: g.node.url,
      tokenNegativeCacheMs: 60_000,
      tokenCacheClock: () => now,
    });
    try {
      assert.equal((await factsOf(brief, txId)).transfers[0]!.decimals, null);
      g.node.setToken(d, { decimals: 8, symbol: 'LATE', name: 'Late Token' });
      now += 59_999;
      assert.equal((await factsOf(brief, txId)).transfers[0]!.decimals, null, 'still the cached revert');
      now += 2;
      const later = await factsOf(brief, txId);
      assert.equal(later.transfers[0]!.decimals, 8, 'read again once the negative entry expired');
      assert.equal(later.transfers[0]!.tokenSymbol, 'LATE');
    } finally {
      await brief.close();
    }
  });

  test('a token with decimals but no name(): a complete answer, cached for tokenCacheMs, then read again', async () => {
    const n = hexToBase58Address(`41${'5b'.repeat(20)}`)!;
    g.node.setToken(n, { decimals: 6, symbol: 'NONAME', name: 'revert' });
    const txId = tokenTx(n, 70_000_026);
    let now = 0;
    const p = createTronChainFactsProvider({
      fullNodeUrl: g.node.url,
      tokenNegativeCacheMs: 60_000,
      tokenCacheMs: 3_600_000,
      tokenCacheClock: () => now,
    });
    const reads = () =>
      g.node.calls.filter((c) => c.path === 'triggerconstantcontract' && JSON.stringify(c.body).includes(hex(n)))
        .length;
    try {
      const first = await factsOf(p, txId);
      assert.equal(first.transfers[0]!.decimals, 6);
      assert.equal(first.transfers[0]!.tokenName, null);
      const cold = reads();
      assert.equal(cold, 3, 'decimals(), symbol(), name()');
      now += 120_000; // past the negative cache's 60 s
      assert.equal((await factsOf(p, txId)).transfers[0]!.decimals, 6);
      assert.equal(reads(), cold, 'not re-read for its missing name');
      g.node.setToken(n, { decimals: 18, symbol: 'NONAME', name: 'revert' });
      now += 3_600_000;
      assert.equal((await factsOf(p, txId)).transfers[0]!.decimals, 18, 'one node answer is not kept forever');
      assert.equal(reads(), cold * 2);
    } finally {
      await p.close();
    }
  });

  test('node failures while reading metadata: decimals null, a missing entry, no token data time (Freshness), not cached', async () => {
    const c = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';
    g.node.setToken(c, { decimals: 18, symbol: 'TKN', name: 'Token' });
    const txId = tokenTx(c, 70_000_022);
    const remove = g.node.fault({ path: 'triggerconstantcontract', fault: { kind: 'status', status: 503 } });
    try {
      const f = await factsOf(g.provider, txId);
      assert.equal(f.transfers[0]!.decimals, null);
      assert.deepEqual(
        f.missing.map((m) => m.code),
        ['token_metadata_unavailable'],
      );
      assert.equal(f.state, 'confirmed', 'the transaction facts themselves are complete');
      assert.equal(f.tokenDataAt, null, 'no node answered: the token data has no time');
      assert.equal(check({ facts: f, signals: signals({ token: null }) }).freshness.token_data_at, null);
    } finally {
      remove();
    }
    const again = await factsOf(g.provider, txId);
    assert.equal(again.transfers[0]!.decimals, 18);
    assert.equal(again.transfers[0]!.tokenSymbol, 'TKN');
    assert.ok(again.tokenDataAt !== null);
  });

  const trc10Tx = (id: string, amount: number, blockNumber: number) => {
    const built = buildTronTransaction({
      contractType: 'TransferAssetContract',
      parameter: {
        owner_address: hex(TL24),
        to_address: hex(TXVJ),
        asset_name: Buffer.from(id).toString('hex'),
        amount,
      },
      blockNumber,
    });
    g.node.addTransaction(built);
    return built.txID;
  };

  test('TRC10 asset unknown to the node: decimals null', async () => {
    const txId = trc10Tx('1000001', 10, 70_000_023);
    g.node.setAsset('1000001', null);
    const f = await factsOf(g.provider, txId);
    assert.equal(f.transfers[0]!.tokenId, '1000001');
    assert.equal(f.transfers[0]!.decimals, null);
  });

  test('TRC10 precision beyond any asset (a lying node): decimals null and the metadata missing, never a wrong amount', async () => {
    const txId = trc10Tx('1000002', 8_888_880_000, 70_000_024);
    g.node.setAsset('1000002', {
      id: '1000002',
      name: Buffer.from('Big').toString('hex'),
      abbr: Buffer.from('BIG').toString('hex'),
      precision: 20_000_000,
    });
    const f = await factsOf(g.provider, txId);
    assert.equal(f.transfers[0]!.decimals, null, 'so no amount is formatted from it');
    assert.deepEqual(
      f.missing.map((m) => m.code),
      ['token_metadata_unavailable'],
    );
  });

  test('the metadata cache is bounded (LRU of tokenCacheSize tokens)', async () => {
    const tiny = createTronChainFactsProvider({ fullNodeUrl: g.node.url, tokenCacheSize: 1, knownTokens: [] });
    try {
      g.node.clearCalls();
      await factsOf(tiny, TRON_FIXTURE_TX.usdtTransfer); // USDT cached
      await factsOf(tiny, TRON_FIXTURE_TX.trc10Transfer); // TRC10 asset evicts USDT
      await factsOf(tiny, TRON_FIXTURE_TX.usdtTransfer);
      assert.equal(metadataCalls(g.node, 'symbol()'), 2);
    } finally {
      await tiny.close();
    }
  });

  test('cold lookups are coalesced, warm ones are cached', async () => {
    const fresh = createTronChainFactsProvider({ fullNodeUrl: g.node.url, knownTokens: [] });
    try {
      g.node.clearCalls();
      await Promise.all([
        factsOf(fresh, TRON_FIXTURE_TX.usdtTransfer),
        factsOf(fresh, TRON_FIXTURE_TX.blockUsdtTransfer),
      ]);
      assert.equal(metadataCalls(g.node, 'decimals()'), 1);
      await factsOf(fresh, TRON_FIXTURE_TX.usdtTransfer);
      assert.equal(metadataCalls(g.node, 'decimals()'), 1);
    } finally {
      await fresh.close();
    }
  });
});

describe('calls', () => {
  test("the six lookups go out in parallel, with both nodes' block 0 on the provider's first check, then metadata; API key header sent", async () => {
    const slow = await startFakeTronNode({ latencyMs: 80 });
    const p = createTronChainFactsProvider({ fullNodeUrl: slow.url, apiKey: 'test-key', knownTokens: [] });
    try {
      await factsOf(p, TRON_FIXTURE_TX.usdtTransfer);
      const first = slow.calls.slice(0, 8);
      assert.deepEqual(first.map((c) => `${c.node}:${c.path}`).sort(), [
        'full:getblockbynum',
        'full:getnowblock',
        'full:gettransactionbyid',
        'full:gettransactioninfobyid',
        'solidity:getblockbynum',
        'solidity:getnowblock',
        'solidity:gettransactionbyid',
        'solidity:gettransactioninfobyid',
      ]);
      const lastStart = Math.max(...first.map((c) => c.startedAt));
      const firstEnd = Math.min(...first.map((c) => c.finishedAt ?? Infinity));
      assert.ok(lastStart < firstEnd, 'every lookup started before any finished');
      const rest = slow.calls.slice(8);
      assert.equal(rest.length, 3);
      assert.ok(rest.every((c) => c.path === 'triggerconstantcontract'));
      assert.ok(
        Math.max(...rest.map((c) => c.startedAt)) < Math.min(...rest.map((c) => c.finishedAt ?? Infinity)),
        'decimals(), symbol() and name() in parallel too',
      );
      assert.ok(slow.calls.every((c) => c.headers['tron-pro-api-key'] === 'test-key'));
      assert.ok(slow.calls.every((c) => (c.body as { visible?: boolean }).visible !== true));
    } finally {
      await p.close();
      await slow.close();
    }
  });

  test('separate solidity node URL', async () => {
    const node = await startFakeTronNode();
    const other = await startFakeTronNode();
    const p = createTronChainFactsProvider({ fullNodeUrl: node.url, solidityNodeUrl: other.url });
    try {
      const f = await factsOf(p, TRON_FIXTURE_TX.trxTransfer);
      assert.equal(f.state, 'confirmed');
      assert.deepEqual(f.disagreements, []);
      assert.deepEqual(f.missing, []);
      assert.ok(other.calls.length >= 3 && other.calls.every((c) => c.node === 'solidity'));
    } finally {
      await p.close();
      await node.close();
      await other.close();
    }
  });

  test("TRON-PRO-API-KEY: apiKey goes only to the full node's origin; a solidity node elsewhere gets solidityApiKey or no key", async () => {
    const node = await startFakeTronNode();
    const other = await startFakeTronNode();
    const keysSent = (n: FakeTronNode) => [...new Set(n.calls.map((c) => c.headers['tron-pro-api-key']))];
    try {
      for (const [solidityApiKey, expected] of [
        [undefined, undefined],
        ['solidity-key', 'solidity-key'],
      ] as const) {
        const p = createTronChainFactsProvider({
          fullNodeUrl: node.url,
          solidityNodeUrl: other.url,
          apiKey: 'full-node-key',
          ...(solidityApiKey ? { solidityApiKey } : {}),
        });
        try {
          await factsOf(p, TRON_FIXTURE_TX.trxTransfer);
        } finally {
          await p.close();
        }
        assert.ok(other.calls.length >= 3);
        assert.deepEqual(keysSent(node), ['full-node-key']);
        assert.deepEqual(keysSent(other), [expected]);
        node.clearCalls();
        other.clearCalls();
      }
    } finally {
      await node.close();
      await other.close();
    }
    // The origin decides, not the path: one provider's two paths share its key; another port is another origin.
    const keys = (solidityNodeUrl: string) =>
      nodeApiKeys({ fullNodeUrl: 'https://tron.example.com/full', solidityNodeUrl, apiKey: 'k' });
    assert.deepEqual(keys('https://TRON.example.com:443/solidity'), { full: 'k', solidity: 'k' });
    assert.deepEqual(keys('https://tron.example.com:8091'), { full: 'k', solidity: undefined });
  });

  test('onPartiesKnown hears the facts before metadata is read: parties final, unread tokens without decimals', async () => {
    const node = await startFakeTronNode();
    const p = createTronChainFactsProvider({ fullNodeUrl: node.url, knownTokens: [] });
    try {
      const heard: { facts: ChainFacts; metadataCalls: number }[] = [];
      const onPartiesKnown = (facts: ChainFacts) => heard.push({ facts, metadataCalls: metadataCalls(node) });
      const signal = AbortSignal.timeout(5000);
      const f = (await p.getTransactionFacts(TRON_FIXTURE_TX.usdtTransfer, { signal, onPartiesKnown }))._unsafeUnwrap();
      assert.equal(heard.length, 1);
      const early = heard[0]!;
      assert.equal(early.metadataCalls, 0, 'before any metadata call');
      assert.equal(early.facts.transfers[0]!.decimals, null);
      assert.deepEqual(
        { ...early.facts, transfers: [], tokenDataAt: null },
        { ...f, transfers: [], tokenDataAt: null },
        'everything but the metadata is final',
      );
      assert.deepEqual(
        early.facts.transfers.map((t) => [t.index, t.sender, t.recipient, t.tokenContract, t.rawAmount]),
        f.transfers.map((t) => [t.index, t.sender, t.recipient, t.tokenContract, t.rawAmount]),
      );
      // Nothing left to read (TRX, or a token now cached): the facts are the first word.
      await p.getTransactionFacts(TRON_FIXTURE_TX.usdtTransfer, { signal, onPartiesKnown });
      await p.getTransactionFacts(TRON_FIXTURE_TX.trxTransfer, { signal, onPartiesKnown });
      assert.equal(heard.length, 1);
    } finally {
      await p.close();
      await node.close();
    }
  });

  test("warmUp opens the connections of a first round (one round for a hash no transaction has), establishes both nodes' network and confirms the known tokens; a node that is down is no error", async () => {
    const node = await startFakeTronNode();
    const p = createTronChainFactsProvider({ fullNodeUrl: node.url });
    try {
      await p.warmUp();
      const round = node.calls.filter((c) => c.path !== 'triggerconstantcontract' && c.path !== 'getblockbynum');
      assert.equal(round.length, 6);
      assert.ok(
        round.every((c) => c.path === 'getnowblock' || (c.body as { value?: string }).value === '00'.repeat(32)),
      );
      const genesis = node.calls.filter((c) => c.path === 'getblockbynum');
      assert.deepEqual(genesis.map((c) => [c.node, c.body]).sort(), [
        ['full', { num: 0 }],
        ['solidity', { num: 0 }],
      ]);
      assert.equal(metadataCalls(node), node.calls.length - 8, 'the rest confirms the known tokens');
    } finally {
      await p.close();
      await node.close();
    }
    const down = createTronChainFactsProvider({ fullNodeUrl: node.url, retry: { attempts: 1 } });
    await down.warmUp();
    await down.close();
  });
});
