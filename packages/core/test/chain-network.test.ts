// Network: the chain facts provider uses a node's answers only once the node has shown it serves the
// expected network (block 0's id, else its p2p version), over real HTTP against the fake node.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { ChainFacts, Gap } from '../src/chain/facts.js';
import { TRON_MAINNET, TRON_NILE, TRON_SHASTA, type WrongNetwork } from '../src/chain/network.js';
import {
  createTronChainFactsProvider,
  type TronChainFactsProvider,
  type TronChainFactsProviderOptions,
} from '../src/chain/provider.js';
import { startFakeTronNode, TRON_FIXTURE_TX, type FakeTronNode } from '../src/testing/index.js';

const TRX = TRON_FIXTURE_TX.trxTransfer;
const signal = () => AbortSignal.timeout(5000);

let node: FakeTronNode;
before(async () => {
  node = await startFakeTronNode();
});
after(() => node.close());
afterEach(() => {
  node.clearFaults();
  node.setNetwork(TRON_MAINNET);
  node.clearCalls();
});

/** A fresh provider on the fake node (nothing established), the wrong networks it reported, and its close. */
function providerOn(options: Partial<TronChainFactsProviderOptions> = {}) {
  const wrong: WrongNetwork[] = [];
  const provider = createTronChainFactsProvider({
    fullNodeUrl: node.url,
    timeoutMs: 1000,
    retry: { baseDelayMs: 2, maxDelayMs: 5 },
    onWrongNetwork: (m) => wrong.push(m),
    ...options,
  });
  return { provider, wrong };
}

async function factsOf(p: TronChainFactsProvider, hash: string = TRX): Promise<ChainFacts> {
  const result = await p.getTransactionFacts(hash, { signal: signal() });
  if (result.isErr()) assert.fail(`expected facts, got ${JSON.stringify(result.error)}`);
  return result.value;
}

const genesisCalls = () => node.calls.filter((c) => c.path === 'getblockbynum').length;
const codes = (gaps: readonly Gap[]) => gaps.map((g) => g.code);
/** Without the full node's head only the solidity node's is left, 20 blocks (a minute) behind: `head_stale`. */
const besidesStaleHead = (gaps: readonly Gap[]) => codes(gaps).filter((c) => c !== 'head_stale');

describe('Network: a node of another network is never used', () => {
  test('a solidity node on Nile: its answers are dropped, the facts are partial (one node_wrong_network gap naming Nile), never confirmed', async () => {
    node.setNetwork(TRON_NILE, 'solidity');
    const { provider, wrong } = providerOn();
    try {
      const f = await factsOf(provider);
      assert.equal(f.state, 'unknown');
      assert.equal(f.finalized, false);
      assert.deepEqual(codes(f.missing), ['node_wrong_network']);
      assert.match(f.missing[0]!.detail, /solidity node serves TRON nile \(genesis 0+d698d419.*\), not TRON mainnet/);
      assert.deepEqual(
        wrong.map((m) => [m.node, m.expected, m.found]),
        [['solidity', 'mainnet', { genesisBlockId: TRON_NILE.genesisBlockId }]],
      );
    } finally {
      await provider.close();
    }
  });

  test('a full node on Shasta: state unknown, and no token metadata is read from it', async () => {
    node.setNetwork(TRON_SHASTA, 'full');
    const { provider } = providerOn({ knownTokens: [] });
    try {
      const f = await factsOf(provider, TRON_FIXTURE_TX.usdtTransfer);
      assert.equal(f.state, 'unknown');
      assert.ok(codes(f.missing).includes('node_wrong_network'));
      assert.match(f.missing.find((g) => g.code === 'node_wrong_network')!.detail, /full node serves TRON shasta/);
      const metadata = node.calls.filter((c) => c.path === 'triggerconstantcontract');
      assert.ok(
        metadata.length > 0 && metadata.every((c) => c.node === 'solidity'),
        'metadata from the solidity node only',
      );
    } finally {
      await provider.close();
    }
  });

  test('both nodes on Nile: no facts at all (unavailable, naming the cause once per node), reported at every check', async () => {
    node.setNetwork(TRON_NILE);
    const { provider, wrong } = providerOn();
    try {
      for (let i = 0; i < 2; i++) {
        const result = await provider.getTransactionFacts(TRX, { signal: signal() });
        assert.ok(result.isErr());
        assert.equal(result.error.kind, 'unavailable');
        const detail = result.error.kind === 'unavailable' ? result.error.detail : '';
        assert.equal(detail.split('; ').length, 2, detail);
        assert.match(detail, /full node serves TRON nile.*; the solidity node serves TRON nile/);
      }
      assert.deepEqual(
        wrong.map((m) => m.node),
        ['full', 'solidity', 'full', 'solidity'],
        'every check reports it, from the cached verdict',
      );
      assert.equal(genesisCalls(), 2, 'a wrong network is a fact too: asked once per node');
    } finally {
      await provider.close();
    }
  });

  test('known tokens are confirmed only by nodes on the expected network: none asked on Nile, no disagreement heard', async () => {
    node.setNetwork(TRON_NILE);
    const disagreements: unknown[] = [];
    const { provider } = providerOn({ onKnownTokenDisagrees: (d) => disagreements.push(d) });
    try {
      await provider.warmUp();
      assert.equal(node.calls.filter((c) => c.path === 'triggerconstantcontract').length, 0);
      assert.deepEqual(disagreements, []);
    } finally {
      await provider.close();
    }
  });

  test('without onWrongNetwork, a process warning says it', async () => {
    node.setNetwork(TRON_NILE, 'full');
    const provider = createTronChainFactsProvider({ fullNodeUrl: node.url });
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
    try {
      await factsOf(provider);
      const warning = (await warned) as Error & { code?: string };
      assert.equal(warning.code, 'TRON_WRONG_NETWORK');
      assert.match(warning.message, /full node serves TRON nile/);
    } finally {
      await provider.close();
    }
  });

  test('the expected network is an option: a Nile provider uses Nile nodes and drops a mainnet one', async () => {
    node.setNetwork(TRON_NILE);
    node.setNetwork(TRON_MAINNET, 'solidity');
    const { provider, wrong } = providerOn({ network: TRON_NILE });
    try {
      const f = await factsOf(provider);
      assert.deepEqual(codes(f.missing), ['node_wrong_network']);
      assert.match(f.missing[0]!.detail, /solidity node serves TRON mainnet .*, not TRON nile/);
      assert.equal(wrong.length, 1);
    } finally {
      await provider.close();
    }
  });
});

describe('Network: a node without block 0 is judged by its p2p version', () => {
  test('p2p version 11111 (mainnet) establishes it: the facts are whole', async () => {
    node.setNetwork({ genesisBlockId: null, p2pVersion: 11111 });
    const { provider } = providerOn();
    try {
      const f = await factsOf(provider);
      assert.equal(f.state, 'confirmed');
      assert.deepEqual(f.missing, []);
      assert.equal(node.calls.filter((c) => c.path === 'getnodeinfo').length, 2);
      const networks = await provider.verifyNetwork();
      assert.deepEqual([networks.full.status, networks.solidity.status], ['established', 'established']);
      assert.equal(networks.full.status === 'established' && networks.full.via, 'p2p_version');
    } finally {
      await provider.close();
    }
  });

  test("Nile's p2p version is a wrong network; no p2p version at all leaves the node unverified", async () => {
    node.setNetwork({ genesisBlockId: null, p2pVersion: TRON_NILE.p2pVersion! }, 'full');
    node.setNetwork({ genesisBlockId: null }, 'solidity');
    const { provider } = providerOn();
    try {
      const networks = await provider.verifyNetwork();
      assert.equal(networks.full.status, 'wrong_network');
      assert.match(
        networks.full.status === 'wrong_network' ? networks.full.mismatch.detail : '',
        /TRON nile \(p2p version 201910292\), not TRON mainnet \(p2p version 11111\)/,
      );
      assert.equal(networks.solidity.status, 'unverified');
    } finally {
      await provider.close();
    }
  });
});

describe('Network: established once per node for the provider’s life', () => {
  test('verification is cached: block 0 is asked once per node, and a warm check makes exactly its six lookups', async () => {
    const { provider } = providerOn();
    try {
      await factsOf(provider);
      assert.equal(genesisCalls(), 2);
      node.clearCalls();
      for (let i = 0; i < 5; i++) assert.equal((await factsOf(provider)).state, 'confirmed');
      assert.equal(genesisCalls(), 0);
      assert.equal(node.calls.length, 5 * 6, 'no call beyond the six lookups of each check');
    } finally {
      await provider.close();
    }
  });

  test('concurrent first checks share one verification per node', async () => {
    node.fault({ path: 'getblockbynum', fault: { kind: 'latency', ms: 100 } });
    const { provider } = providerOn();
    try {
      const facts = await Promise.all(Array.from({ length: 10 }, () => factsOf(provider)));
      assert.ok(facts.every((f) => f.state === 'confirmed' && f.missing.length === 0));
      assert.equal(genesisCalls(), 2);
    } finally {
      await provider.close();
    }
  });

  test('a node that cannot say at first (node error): that check is partial (node_network_unverified), a later check verifies it', async () => {
    node.fault({ node: 'full', path: 'getblockbynum', times: 1, fault: { kind: 'error' } });
    const { provider } = providerOn();
    try {
      const first = await factsOf(provider);
      assert.equal(first.state, 'unknown');
      assert.deepEqual(besidesStaleHead(first.missing), ['node_network_unverified']);
      assert.match(
        first.missing[0]!.detail,
        /the full node's network could not be established \(full node getblockbynum: node error/,
      );
      const later = await factsOf(provider);
      assert.equal(later.state, 'confirmed');
      assert.deepEqual(later.missing, []);
      assert.equal(genesisCalls(), 3, 'the full node asked again, the solidity node not');
    } finally {
      await provider.close();
    }
  });

  test('a node unreachable at first: its calls fail as before (no extra gap), and once it is back it is verified', async () => {
    const { provider } = providerOn({ retry: { attempts: 1 } });
    const down = node.fault({ node: 'full', fault: { kind: 'reset' } });
    try {
      const first = await factsOf(provider);
      assert.equal(first.state, 'unknown');
      assert.deepEqual([...new Set(besidesStaleHead(first.missing))], ['node_call_failed']);
      assert.equal((await provider.verifyNetwork()).full.status, 'unverified');
      down();
      const later = await factsOf(provider);
      assert.equal(later.state, 'confirmed');
      assert.equal((await provider.verifyNetwork()).full.status, 'established');
    } finally {
      await provider.close();
    }
  });

  test("a slow verification holds the first check no longer than its lookups' share of the budget, and finishes for the next", async () => {
    node.fault({ node: 'full', path: 'getblockbynum', times: 1, fault: { kind: 'latency', ms: 600 } });
    const { provider } = providerOn({ budgetMs: 400 });
    try {
      const started = performance.now();
      const first = await factsOf(provider);
      assert.ok(performance.now() - started < 550, 'the check did not wait for the verification');
      assert.match(first.missing.map((g) => g.detail).join(), /network was not established within the check's time/);
      await provider.verifyNetwork();
      assert.deepEqual((await factsOf(provider)).missing, []);
      assert.equal(genesisCalls(), 2, 'the slow verification was not started again');
    } finally {
      await provider.close();
    }
  });
});
