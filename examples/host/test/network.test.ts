import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  buildTronTransaction,
  startFakeChainalysis,
  startFakeTronNode,
  type FakeChainalysis,
  type FakeTronNode,
} from '@tron-safety/core/testing';
import { base58ToHexAddress, TRON_NILE, TRON_SHASTA } from '@tron-safety/core/tron';
import { request } from 'undici';
import { parseConfig } from '../src/config.js';
import { startHost } from '../src/host.js';
import { createLogger } from '../src/log.js';
import { fakeProvidersEnv, startTestHost, TEST_KEY, type TestHost } from './support.js';

// Network: the host serves TRON mainnet (the spec's `tron`) only from nodes that serve it. A node URL
// copied from a staging .env (Nile, Shasta) must never make a testnet payment CLEAR.

const PAYER = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';
const MERCHANT = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';

let vendors: FakeChainalysis;
before(async () => {
  vendors = await startFakeChainalysis();
});
after(() => vendors.close());

/** A 5000 TRX payment to the merchant, solidified on `node`. */
function payment(node: FakeTronNode): string {
  const built = buildTronTransaction({
    contractType: 'TransferContract',
    parameter: { owner_address: base58ToHexAddress(PAYER)!, to_address: base58ToHexAddress(MERCHANT)!, amount: 5e9 },
    blockNumber: node.heights.solidified - 40,
  });
  node.addTransaction({ transaction: built.transaction, info: built.info });
  return built.txID;
}

async function check(t: TestHost, txHash: string) {
  const res = await request(`${t.host.url}/v1/transaction/check`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ tx_hash: txHash, network: 'tron', expected_recipient: MERCHANT, expected_amount: '5000' }),
  });
  const body = (await res.body.json()) as {
    overall_state?: string;
    reasons?: { code: string }[];
    error?: { code: string };
  };
  return { status: res.statusCode, body };
}

/** A host on `node` whose nodes could not say their network at start (every block 0 call failed then). */
async function hostUnverifiedAtStart(node: FakeTronNode): Promise<TestHost> {
  const down = node.fault({ path: 'getblockbynum', fault: { kind: 'error' } });
  try {
    return await startTestHost(fakeProvidersEnv(node, vendors));
  } finally {
    down();
  }
}

describe('Network: the start', () => {
  test('nodes that serve mainnet: the start logs it for each node', async () => {
    const node = await startFakeTronNode();
    const t = await startTestHost(fakeProvidersEnv(node, vendors));
    try {
      const logged = t.lines.filter((l) => l.event === 'tron_node_network');
      assert.deepEqual(
        logged.map((l) => [l.node, l.network, l.via]),
        [
          ['full', 'mainnet', 'genesis'],
          ['solidity', 'mainnet', 'genesis'],
        ],
      );
      assert.equal((await check(t, payment(node))).body.overall_state, 'CLEAR', 'the control: a mainnet payment');
    } finally {
      await t.host.stop('test');
      await node.close();
    }
  });

  test('TRON_FULLNODE_URL serving Nile refuses the start, naming the variable and both genesis blocks', async () => {
    const node = await startFakeTronNode({ network: TRON_NILE });
    try {
      const config = parseConfig({ PORT: '0', OFAC_SDN_URL: 'off', TRON_FULLNODE_URL: node.url })._unsafeUnwrap();
      const error = (await startHost(config, createLogger('silent')))._unsafeUnwrapErr();
      assert.equal(error.field, 'TRON_FULLNODE_URL');
      assert.match(
        error.message,
        /^TRON_FULLNODE_URL: the full node serves TRON nile \(genesis 0+d698d4192c.*\), not TRON mainnet \(genesis 0+1ebf88508a/,
      );
    } finally {
      await node.close();
    }
  });

  test('TRON_SOLIDITY_URL serving Shasta refuses the start, naming TRON_SOLIDITY_URL', async () => {
    const [full, solidity] = await Promise.all([startFakeTronNode(), startFakeTronNode({ network: TRON_SHASTA })]);
    try {
      const env = { PORT: '0', OFAC_SDN_URL: 'off', TRON_FULLNODE_URL: full.url, TRON_SOLIDITY_URL: solidity.url };
      const error = (await startHost(parseConfig(env)._unsafeUnwrap(), createLogger('silent')))._unsafeUnwrapErr();
      assert.equal(error.field, 'TRON_SOLIDITY_URL');
      assert.match(error.message, /the solidity node serves TRON shasta/);
    } finally {
      await Promise.all([full.close(), solidity.close()]);
    }
  });

  test("TRON_API_KEY goes only to the full node's origin; a solidity node elsewhere gets TRON_SOLIDITY_API_KEY or no key", async () => {
    const [full, solidity] = await Promise.all([startFakeTronNode(), startFakeTronNode()]);
    const keysSent = (node: FakeTronNode) => [...new Set(node.calls.map((c) => c.headers['tron-pro-api-key']))];
    try {
      for (const [solidityKey, expected] of [
        [{}, undefined],
        [{ TRON_SOLIDITY_API_KEY: 'solidity-key' }, 'solidity-key'],
      ] as const) {
        const env = { TRON_FULLNODE_URL: full.url, TRON_SOLIDITY_URL: solidity.url, TRON_API_KEY: 'full-node-key' };
        const t = await startTestHost({ ...env, ...solidityKey });
        await t.host.stop('test');
        assert.ok(solidity.calls.length > 0, 'the start asked the solidity node for its block 0');
        assert.deepEqual(keysSent(full), ['full-node-key']);
        assert.deepEqual(keysSent(solidity), [expected]);
        full.clearCalls();
        solidity.clearCalls();
      }
    } finally {
      await Promise.all([full.close(), solidity.close()]);
    }
  });

  test('a node that cannot say at start (node error, unreachable) does not stop the start: a warning per node', async () => {
    const node = await startFakeTronNode();
    const t = await hostUnverifiedAtStart(node);
    try {
      const warned = t.lines.filter((l) => l.event === 'tron_node_network_unverified');
      assert.deepEqual(
        warned.map((l) => l.node),
        ['full', 'solidity'],
      );
      assert.match(String(warned[0]!.msg), /the full node's network could not be established .*TRON_FULLNODE_URL/);
      // Once the node answers, the first check establishes it.
      assert.equal((await check(t, payment(node))).body.overall_state, 'CLEAR');
    } finally {
      await t.host.stop('test');
      await node.close();
    }
    const unreachable = await startTestHost({ TRON_FULLNODE_URL: 'http://127.0.0.1:9' });
    await unreachable.host.stop('test');
  });
});

describe('Network: a testnet payment is never CLEAR', () => {
  test('a solidity node that turns out to serve Nile: LIMITED_DATA (TX_FACTS_PARTIAL), and every check logs the error', async () => {
    const node = await startFakeTronNode();
    const t = await hostUnverifiedAtStart(node);
    node.setNetwork(TRON_NILE, 'solidity');
    try {
      const txHash = payment(node);
      for (let i = 0; i < 2; i++) {
        const { status, body } = await check(t, txHash);
        assert.equal(status, 200);
        assert.equal(body.overall_state, 'LIMITED_DATA');
        assert.ok(body.reasons!.some((r) => r.code === 'TX_FACTS_PARTIAL'));
      }
      const errors = t.lines.filter((l) => l.event === 'tron_node_wrong_network');
      assert.equal(errors.length, 2, 'once per check');
      assert.equal(errors[0]!.level, 50);
      assert.deepEqual([errors[0]!.node, errors[0]!.expected], ['solidity', 'mainnet']);
      assert.match(String(errors[0]!.msg), /serves TRON nile .* point TRON_FULLNODE_URL at a mainnet node/);
    } finally {
      await t.host.stop('test');
      await node.close();
    }
  });

  test('both nodes on Nile: no facts to judge, 503 provider_unavailable, never a result', async () => {
    const node = await startFakeTronNode();
    const t = await hostUnverifiedAtStart(node);
    node.setNetwork(TRON_NILE);
    try {
      const { status, body } = await check(t, payment(node));
      assert.equal(status, 503);
      assert.equal(body.error?.code, 'provider_unavailable');
      assert.equal(body.overall_state, undefined);
      assert.deepEqual(
        t.lines.filter((l) => l.event === 'tron_node_wrong_network').map((l) => l.node),
        ['full', 'solidity'],
      );
    } finally {
      await t.host.stop('test');
      await node.close();
    }
  });
});
