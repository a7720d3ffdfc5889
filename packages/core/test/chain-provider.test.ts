import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createTronChainFactsProvider, type TronChainFactsProvider } from '../src/chain/provider.js';
import type { ChainFacts } from '../src/chain/facts.js';
import { base58ToHexAddress, hexToBase58Address } from '../src/tron/address.js';
import { formatAmount } from '../src/tron/amount.js';
import { encodeRawData } from '../src/tron/protobuf.js';
import {
  buildTronTransaction,
  startFakeTronNode,
  transferLog,
  TRON_FIXTURE_TX,
  USDT_CONTRACT,
  type FakeTronNode,
} from '../src/testing/index.js';

const TL24 = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';
const TXVJ = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';
const hex = (a: string) => base58ToHexAddress(a) as string;

let node: FakeTronNode;
let provider: TronChainFactsProvider;

async function facts(hash: string, p: TronChainFactsProvider = provider): Promise<ChainFacts> {
  const result = await p.getTransactionFacts(hash, { signal: AbortSignal.timeout(5000) });
  if (result.isErr()) assert.fail(`expected facts, got ${JSON.stringify(result.error)}`);
  return result.value;
}

/** What one node answers now for a hash (to restore an override in `finally`). */
async function snapshot(
  hash: string,
  n: 'full' | 'solidity' = 'full',
): Promise<{ transaction: Record<string, unknown>; info: Record<string, unknown> }> {
  const base = `${node.url}/${n === 'full' ? 'wallet' : 'walletsolidity'}`;
  const get = async (path: string) =>
    (await (
      await fetch(`${base}/${path}`, { method: 'POST', body: JSON.stringify({ value: hash }) })
    ).json()) as Record<string, unknown>;
  return { transaction: await get('gettransactionbyid'), info: await get('gettransactioninfobyid') };
}

const amountOf = (f: ChainFacts, i = f.primaryTransfer ?? 0) => {
  const t = f.transfers[i]!;
  return t.decimals === null ? null : formatAmount(t.rawAmount, t.decimals);
};

before(async () => {
  node = await startFakeTronNode();
  provider = createTronChainFactsProvider({
    fullNodeUrl: node.url,
    timeoutMs: 2000,
    retry: { baseDelayMs: 2, maxDelayMs: 5 },
  });
});
after(async () => {
  await provider.close();
  await node.close();
});

describe('recorded mainnet fixtures', () => {
  test('USDT 0130dfde…: 41.677389 USDT from TL24… to TXVj…, confirmed and verified', async () => {
    const f = await facts(TRON_FIXTURE_TX.usdtTransfer);
    assert.equal(f.state, 'confirmed');
    assert.equal(f.transactionType, 'TriggerSmartContract');
    assert.equal(f.category, 'trc20_transfer');
    assert.equal(f.verified, true);
    assert.equal(f.finalized, true);
    assert.deepEqual(f.disagreements, []);
    assert.deepEqual(f.missing, []);
    assert.equal(f.owner, TL24);
    assert.equal(f.blockNumber, 69316562);
    assert.equal(f.blockTime?.getTime(), 1738601505000);
    assert.equal(f.confirmations, node.heights.head - 69316562 + 1);
    assert.equal(f.transfers.length, 1);
    assert.equal(f.primaryTransfer, 0);
    const t = f.transfers[0]!;
    assert.deepEqual(
      { ...t, rawAmount: t.rawAmount.toString() },
      {
        index: 0,
        assetType: 'trc20',
        source: 'log',
        sender: TL24,
        recipient: TXVJ,
        tokenContract: USDT_CONTRACT,
        tokenId: null,
        tokenSymbol: 'USDT',
        tokenName: 'Tether USD',
        decimals: 6,
        rawAmount: '41677389', // log data 0x027bf24d
      },
    );
    assert.equal(amountOf(f), '41.677389');
    assert.ok(f.tokenDataAt instanceof Date);
  });

  test('TRX 5144c4f5…: 1 sun from 4121b72c… to TL24…', async () => {
    const f = await facts(TRON_FIXTURE_TX.trxTransfer);
    assert.equal(f.state, 'confirmed');
    assert.equal(f.category, 'trx_transfer');
    assert.equal(f.verified, true);
    const t = f.transfers[0]!;
    assert.equal(hex(t.sender!), '4121b72c741caed659bf48c3fa2b717b007c20fb4b');
    assert.equal(t.recipient, TL24);
    assert.equal(t.rawAmount, 1n);
    assert.equal(amountOf(f), '0.000001');
    assert.equal(t.tokenSymbol, 'TRX');
    assert.equal(f.tokenDataAt, null, 'no token involved');
  });

  test('TRX to a new account 3f8b651b…: 150.46632 TRX from TL24… to 4115e75f…', async () => {
    const f = await facts(TRON_FIXTURE_TX.trxTransferToNewAccount);
    assert.equal(f.state, 'confirmed');
    assert.equal(f.transfers.length, 1);
    assert.equal(f.transfers[0]!.sender, TL24);
    assert.equal(hex(f.transfers[0]!.recipient!), '4115e75fb8683b09c857d7b8a740b1d0234a3ca97b');
    assert.equal(amountOf(f), '150.46632');
  });

  test('TRC10 034897cb…: 8888880000 units of asset 1005065 to TL24…, decimals from precision', async () => {
    const f = await facts(TRON_FIXTURE_TX.trc10Transfer);
    assert.equal(f.category, 'trc10_transfer');
    assert.equal(f.verified, true, 'hex asset_name equals the raw bytes');
    const t = f.transfers[0]!;
    assert.equal(t.assetType, 'trc10');
    assert.equal(t.tokenId, '1005065');
    assert.equal(t.tokenContract, null);
    assert.equal(hex(t.sender!), '414a590bf4bbbb25e162987084d3529ae2078ac177');
    assert.equal(t.recipient, TL24);
    assert.equal(t.rawAmount, 8888880000n);
    assert.equal(t.decimals, 6); // synthetic precision of the fake node
    assert.equal(t.tokenSymbol, 'FIXT');
    assert.equal(amountOf(f), '8888.88');
  });

  test('failed USDT call (OUT_OF_ENERGY, synthetic body): failed, no transfers, not a trc20_transfer', async () => {
    const f = await facts(node.failedUsdtTx);
    assert.equal(f.state, 'failed');
    assert.equal(f.category, 'smart_contract_call', 'no Transfer log was emitted');
    assert.deepEqual(f.transfers, []);
    assert.equal(f.primaryTransfer, null);
    assert.equal(f.verified, true);
    assert.equal(f.blockNumber, 66860010);
  });

  for (const [name, hash, type, category] of [
    ['votes', TRON_FIXTURE_TX.voteWitness, 'VoteWitnessContract', 'voting'],
    ['staking v2', TRON_FIXTURE_TX.freezeBalanceV2, 'FreezeBalanceV2Contract', 'staking'],
    ['unstaking v1', TRON_FIXTURE_TX.unfreezeBalanceV1, 'UnfreezeBalanceContract', 'staking'],
    ['withdraw', TRON_FIXTURE_TX.withdrawBalance, 'WithdrawBalanceContract', 'staking'],
  ] as const) {
    test(`${name}: ${type} → ${category}, no transfers, owner TL24…`, async () => {
      const f = await facts(hash);
      assert.equal(f.state, 'confirmed');
      assert.equal(f.transactionType, type);
      assert.equal(f.category, category);
      assert.equal(f.owner, TL24);
      assert.equal(f.verified, true);
      assert.deepEqual(f.transfers, []);
      assert.equal(f.primaryTransfer, null);
    });
  }

  test('info-only recordings (USDT b69c51db…, TRX 23897196…): unknown state, missing body, never verified', async () => {
    for (const hash of [TRON_FIXTURE_TX.usdtTransferDocExample, TRON_FIXTURE_TX.trxTransferDocExample]) {
      const f = await facts(hash);
      assert.equal(f.state, 'unknown');
      assert.equal(f.verified, false);
      assert.equal(f.transactionType, 'unknown');
      assert.deepEqual(f.transfers, [], 'no body: nothing read from call data');
      assert.ok(f.missing.some((m) => m.includes('transaction body')));
    }
    const trx = await facts(TRON_FIXTURE_TX.trxTransferDocExample);
    assert.equal(trx.blockNumber, 66862205);
    assert.equal(trx.blockTime?.getTime(), 1731236190000);
  });

  test('abridged block 71723395: 1 sun from 41f96c47… to 4155181e…; the USDT call moves 10 USDT from 415a2744… to 413b9f38…', async () => {
    const t = await facts(TRON_FIXTURE_TX.blockTrxTransfer);
    assert.equal(t.category, 'trx_transfer');
    assert.equal(t.verified, true);
    assert.equal(hex(t.transfers[0]!.sender!), '41f96c4705e780785f6e46e84da9744105f0c2142a');
    assert.equal(hex(t.transfers[0]!.recipient!), '4155181e20f78902ed2ff8fc7a75814762887d497b');
    assert.equal(amountOf(t), '0.000001');
    const f = await facts(TRON_FIXTURE_TX.blockUsdtTransfer);
    assert.equal(f.category, 'trc20_transfer');
    assert.equal(f.verified, true);
    assert.equal(hex(f.transfers[0]!.sender!), '415a274493e64a26e6bbf38e86d42192045f4e6881');
    assert.equal(hex(f.transfers[0]!.recipient!), '413b9f381f7e5017f3966277d00a0ca5adfc563492');
    assert.equal(f.transfers[0]!.tokenContract, USDT_CONTRACT);
    assert.equal(amountOf(f), '10'); // call data and log value 0x989680
  });
});

describe('state and finality', () => {
  const block = 69316562; // the USDT fixture's block
  beforeEach(() => node.setHeights({ head: 71723495, solidified: 71723475 }));
  after(() => node.setHeights({ head: 71723495, solidified: 71723475 }));

  test('pending: in a block, not solidified yet', async () => {
    node.setHeights({ head: block + 5, solidified: block - 1 });
    const f = await facts(TRON_FIXTURE_TX.usdtTransfer);
    assert.equal(f.state, 'pending');
    assert.equal(f.finalized, false);
    assert.equal(f.confirmations, 6);
    assert.equal(f.category, 'trc20_transfer');
    assert.equal(amountOf(f), '41.677389');
    assert.deepEqual(f.disagreements, []);
  });

  test('19 confirmations with finalized evidence is confirmed; 18 is pending', async () => {
    node.setHeights({ head: block + 18, solidified: block });
    assert.equal((await facts(TRON_FIXTURE_TX.usdtTransfer)).state, 'confirmed');
    node.setHeights({ head: block + 17, solidified: block });
    const f = await facts(TRON_FIXTURE_TX.usdtTransfer);
    assert.equal(f.confirmations, 18);
    assert.equal(f.finalized, true);
    assert.equal(f.state, 'pending');
  });

  test('a lagging solidity node: 31 confirmations without finalized evidence is pending', async () => {
    node.setHeights({ head: block + 30, solidified: block - 1 });
    const f = await facts(TRON_FIXTURE_TX.usdtTransfer);
    assert.equal(f.confirmations, 31);
    assert.equal(f.finalized, false);
    assert.deepEqual(f.disagreements, [], 'the solidified head is below the block: lag, not a contradiction');
    assert.equal(f.state, 'pending');
  });

  test('broadcast but not in a block: pending, 0 confirmations, contract transfer known', async () => {
    const built = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 5_000_000 },
      blockNumber: 0,
    });
    node.addTransaction({ transaction: built.transaction, info: null });
    const f = await facts(built.txID);
    assert.equal(f.state, 'pending');
    assert.equal(f.blockNumber, null);
    assert.equal(f.confirmations, 0);
    assert.equal(f.verified, true);
    assert.equal(amountOf(f), '5');
  });

  test('ret[0].ret FAILED alone is a failure', async () => {
    const built = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 5 },
      blockNumber: 70_000_005,
    });
    node.addTransaction({ transaction: { ...built.transaction, ret: [{ ret: 'FAILED' }] }, info: built.info });
    const f = await facts(built.txID);
    assert.equal(f.state, 'failed');
    assert.deepEqual(f.transfers, []);
  });

  test('tx info result FAILED alone is a failure', async () => {
    const built = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 6 },
      blockNumber: 70_000_007,
      info: { result: 'FAILED' },
    });
    node.addTransaction(built);
    const f = await facts(built.txID);
    assert.equal(f.state, 'failed');
    assert.deepEqual(f.transfers, []);
  });

  test('a contract call whose tx info has no receipt.result: unknown and missing, never confirmed', async () => {
    const built = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: {
        owner_address: hex(TL24),
        contract_address: hex(USDT_CONTRACT),
        data: `a9059cbb${'0'.repeat(24)}${hex(TXVJ).slice(2)}${5n.toString(16).padStart(64, '0')}`,
      },
      blockNumber: 70_000_008,
      info: { receipt: { energy_usage_total: 13_000 }, log: [transferLog(USDT_CONTRACT, TL24, TXVJ, 5n)] },
    });
    node.addTransaction(built);
    const f = await facts(built.txID);
    assert.equal(f.state, 'unknown');
    assert.ok(f.missing.includes('receipt.result of the contract call'), f.missing.join('; '));
    assert.deepEqual(f.disagreements, []);
  });

  test('a tx info without blockNumber: unknown and missing, not clean', async () => {
    const built = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 8 },
      blockNumber: 70_000_009,
    });
    node.addTransaction(built);
    const { blockNumber: _omitted, ...noBlock } = built.info!;
    for (const n of ['full', 'solidity'] as const)
      node.setTransaction(built.txID, n, { transaction: built.transaction, info: noBlock });
    const f = await facts(built.txID);
    assert.equal(f.blockNumber, null);
    assert.equal(f.confirmations, null);
    assert.equal(f.state, 'unknown');
    assert.ok(f.missing.includes('blockNumber of the tx info'), f.missing.join('; '));
  });

  test('a tx info in a block without blockTimeStamp: missing, so the facts are partial (freshness has no transaction time)', async () => {
    const built = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 15 },
      blockNumber: 70_000_046,
    });
    node.addTransaction(built);
    const { blockTimeStamp: _omitted, ...noTime } = built.info!;
    for (const n of ['full', 'solidity'] as const)
      node.setTransaction(built.txID, n, { transaction: built.transaction, info: noTime });
    const f = await facts(built.txID);
    assert.equal(f.blockTime, null);
    assert.equal(f.state, 'confirmed', 'the state does not need the time');
    assert.deepEqual(f.missing, ['blockTimeStamp of the tx info']);
  });

  test('a head below the tx block: confirmations null, unknown and missing (not 1 confirmation)', async () => {
    const built = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 9 },
      blockNumber: 71_723_600,
    });
    node.addTransaction(built);
    // The full node serves the tx info of block 71723600 while its head says 71723495.
    node.setTransaction(built.txID, 'full', { transaction: built.transaction, info: built.info });
    const f = await facts(built.txID);
    assert.equal(f.confirmations, null);
    assert.equal(f.state, 'unknown');
    assert.ok(
      f.missing.some((m) => m.includes('below the tx block 71723600')),
      f.missing.join('; '),
    );
  });

  test('not found: neither node knows the hash', async () => {
    const f = await facts('ab'.repeat(32));
    assert.equal(f.state, 'not_found');
    assert.equal(f.transactionType, 'unknown');
    assert.equal(f.category, 'unknown');
    assert.equal(f.confirmations, null);
    assert.deepEqual(f.transfers, []);
    assert.deepEqual(f.missing, []);
  });

  test('upper-case hashes are the same transaction', async () => {
    const f = await facts(TRON_FIXTURE_TX.trxTransfer.toUpperCase());
    assert.equal(f.txHash, TRON_FIXTURE_TX.trxTransfer);
    assert.equal(f.verified, true);
  });
});

describe('disagreements and tampering', () => {
  let original: { transaction: Record<string, unknown>; info: Record<string, unknown> };
  before(async () => {
    const p = await fetch(`${node.url}/wallet/gettransactionbyid`, {
      method: 'POST',
      body: JSON.stringify({ value: TRON_FIXTURE_TX.usdtTransfer }),
    });
    const i = await fetch(`${node.url}/wallet/gettransactioninfobyid`, {
      method: 'POST',
      body: JSON.stringify({ value: TRON_FIXTURE_TX.usdtTransfer }),
    });
    original = {
      transaction: (await p.json()) as Record<string, unknown>,
      info: (await i.json()) as Record<string, unknown>,
    };
  });
  const fresh = () => structuredClone(original);

  test('nodes disagree on the block', async () => {
    const { info } = fresh();
    node.setTransaction(TRON_FIXTURE_TX.usdtTransfer, 'solidity', { info: { ...info, blockNumber: 69316563 } });
    try {
      const f = await facts(TRON_FIXTURE_TX.usdtTransfer);
      assert.ok(f.disagreements.some((d) => d.code === 'nodes_disagree' && d.detail.includes('blockNumber')));
    } finally {
      node.setTransaction(TRON_FIXTURE_TX.usdtTransfer, 'solidity', { info: original.info });
    }
  });

  test('the solidity node has a transaction the full node does not know', async () => {
    const before = await snapshot(TRON_FIXTURE_TX.trxTransfer);
    node.setTransaction(TRON_FIXTURE_TX.trxTransfer, 'full', { transaction: null, info: null });
    try {
      const f = await facts(TRON_FIXTURE_TX.trxTransfer);
      assert.ok(f.disagreements.some((d) => d.code === 'nodes_disagree'));
      assert.equal(f.verified, true, 'the body still verifies');
    } finally {
      node.setTransaction(TRON_FIXTURE_TX.trxTransfer, 'full', before);
    }
  });

  // A load-balanced endpoint (TronGrid) can serve these from backends racing near solidification:
  // partial facts that are never confirmed, not a lie.
  test('the solidity node has the tx info but answers {} for the body: missing and unknown, not a disagreement', async () => {
    const built = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 11 },
      blockNumber: 70_000_013,
    });
    node.addTransaction(built);
    node.setTransaction(built.txID, 'solidity', { transaction: null });
    const f = await facts(built.txID);
    assert.deepEqual(f.disagreements, []);
    assert.deepEqual(f.missing, ['the solidity node has the tx info but answers {} for the transaction']);
    assert.equal(f.state, 'unknown');
  });

  test("the solidity node's tx info in a block above its own solidified head: missing and unknown, not a disagreement", async () => {
    const built = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 12 },
      blockNumber: 71_723_480,
    });
    node.addTransaction(built);
    // Solidified head 71723475 (the default), yet the solidity node serves the tx of block 71723480.
    node.setTransaction(built.txID, 'solidity', { transaction: built.transaction, info: built.info });
    const f = await facts(built.txID);
    assert.deepEqual(f.disagreements, []);
    assert.deepEqual(f.missing, [
      "the solidity node's tx info is in block 71723480, above its own solidified head 71723475",
    ]);
    assert.equal(f.state, 'unknown');
  });

  test('a solidity node whose info differs in contents from the full node is still a disagreement', async () => {
    const built = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 14 },
      blockNumber: 70_000_015,
    });
    node.addTransaction(built);
    node.setTransaction(built.txID, 'solidity', {
      info: { ...built.info, blockTimeStamp: (built.info!.blockTimeStamp as number) + 3000 },
    });
    const f = await facts(built.txID);
    assert.ok(
      f.disagreements.some((d) => d.code === 'nodes_disagree' && d.detail.includes('blockTimeStamp')),
      JSON.stringify(f.disagreements),
    );
  });

  test("a tampered solidity body is a disagreement even when the full node's body is used", async () => {
    const { transaction } = fresh();
    const raw = transaction.raw_data as { contract: { parameter: { value: Record<string, unknown> } }[] };
    raw.contract[0]!.parameter.value.owner_address = hex(TXVJ);
    node.setTransaction(TRON_FIXTURE_TX.usdtTransfer, 'solidity', { transaction });
    try {
      const f = await facts(TRON_FIXTURE_TX.usdtTransfer);
      assert.equal(f.verified, false);
      const d = f.disagreements.find((x) => x.code === 'raw_data_mismatch');
      assert.ok(
        d && d.detail.startsWith("solidity node's transaction") && d.detail.includes('owner_address'),
        JSON.stringify(f.disagreements),
      );
      assert.equal(f.owner, TL24);
    } finally {
      node.setTransaction(TRON_FIXTURE_TX.usdtTransfer, 'solidity', { transaction: original.transaction });
    }
  });

  test('the full node lacks the tx info the solidity node has: a disagreement, not plain confirmed facts', async () => {
    const built = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 4 },
      blockNumber: 70_000_006,
    });
    node.addTransaction(built);
    node.setTransaction(built.txID, 'full', { info: null });
    const f = await facts(built.txID);
    assert.ok(
      f.disagreements.some(
        (d) => d.code === 'nodes_disagree' && d.detail === 'the solidity node has the tx info, the full node does not',
      ),
    );
  });

  test('a solidified block without the transaction on the solidity node', async () => {
    const built = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 1 },
      blockNumber: 70_000_000,
    });
    node.addTransaction(built);
    node.setTransaction(built.txID, 'solidity', { transaction: null, info: null });
    const f = await facts(built.txID);
    assert.equal(f.finalized, false);
    assert.ok(f.confirmations! >= 19);
    assert.equal(f.state, 'pending', 'confirmations alone never make it confirmed');
    assert.ok(f.disagreements.some((d) => d.code === 'nodes_disagree' && d.detail.includes('solidified')));
  });

  test('tx info for another transaction', async () => {
    const other = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 2 },
      blockNumber: 70_000_001,
    });
    node.addTransaction(other);
    const wrongInfo = { ...other.info!, id: TRON_FIXTURE_TX.trxTransfer };
    const victim = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 3 },
      blockNumber: 70_000_001,
    });
    node.addTransaction(victim);
    for (const n of ['full', 'solidity'] as const) node.setTransaction(victim.txID, n, { info: wrongInfo });
    const f = await facts(victim.txID);
    assert.ok(f.disagreements.some((d) => d.code === 'info_id_mismatch'));
  });

  test('tampered raw_data_hex: sha256 no longer gives the txID', async () => {
    const built = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 1_000_000 },
      blockNumber: 70_000_002,
    });
    const tx = built.transaction!;
    const raw = String(tx.raw_data_hex);
    // amount 1000000 is the varint c0 84 3d; its last byte 3d → 3e makes it 1016384 (0x3e << 14 | 0x440)
    const tampered = raw.replace('c0843d', 'c0843e');
    assert.notEqual(tampered, raw);
    node.addTransaction({ transaction: { ...tx, raw_data_hex: tampered }, info: built.info });
    const f = await facts(built.txID);
    assert.equal(f.verified, false);
    assert.ok(f.disagreements.some((d) => d.code === 'tx_id_mismatch' && d.detail.includes('sha256')));
    assert.ok(f.disagreements.some((d) => d.code === 'raw_data_mismatch' && d.detail.includes('amount')));
    assert.equal(f.transfers[0]!.rawAmount, 1_016_384n, 'transfers come from the bytes, and are flagged');
  });

  test('tampered JSON: the bytes hash correctly but say another amount and recipient', async () => {
    const { transaction, info } = fresh();
    const raw = transaction.raw_data as { contract: { parameter: { value: Record<string, unknown> } }[] };
    const value = raw.contract[0]!.parameter.value;
    value.data = String(value.data).replace('027bf24d', '3b9aca00');
    value.owner_address = hex(TXVJ);
    for (const n of ['full', 'solidity'] as const)
      node.setTransaction(TRON_FIXTURE_TX.usdtTransfer, n, { transaction, info });
    try {
      const f = await facts(TRON_FIXTURE_TX.usdtTransfer);
      assert.equal(f.verified, false);
      const d = f.disagreements.find((x) => x.code === 'raw_data_mismatch');
      assert.ok(d && d.detail.includes('data') && d.detail.includes('owner_address'), JSON.stringify(f.disagreements));
      assert.equal(f.owner, TL24, 'owner from the signed bytes');
    } finally {
      for (const n of ['full', 'solidity'] as const) node.setTransaction(TRON_FIXTURE_TX.usdtTransfer, n, original);
    }
  });

  /** Serves a copy of `hash`'s body with its JSON (not its bytes) changed, on both nodes; restores after. */
  async function withTamperedJson(
    hash: string,
    tamper: (contract: Record<string, unknown>, value: Record<string, unknown>) => void,
  ): Promise<ChainFacts> {
    const before = { full: await snapshot(hash, 'full'), solidity: await snapshot(hash, 'solidity') };
    const transaction = structuredClone(before.full.transaction);
    const contract = (transaction.raw_data as { contract: Record<string, unknown>[] }).contract[0]!;
    tamper(contract, (contract.parameter as { value: Record<string, unknown> }).value);
    for (const n of ['full', 'solidity'] as const) node.setTransaction(hash, n, { transaction });
    try {
      return await facts(hash);
    } finally {
      for (const n of ['full', 'solidity'] as const)
        node.setTransaction(hash, n, { transaction: before[n].transaction });
    }
  }
  const mismatchIn = (f: ChainFacts, field: string) => {
    assert.equal(f.verified, false);
    const d = f.disagreements.find((x) => x.code === 'raw_data_mismatch');
    assert.ok(d && d.detail.split(/differ in |, /).includes(field), `${field}: ${JSON.stringify(f.disagreements)}`);
  };

  test('tampered JSON to_address (TRX): raw_data_mismatch, recipient from the bytes', async () => {
    const f = await withTamperedJson(TRON_FIXTURE_TX.trxTransfer, (_, value) => {
      value.to_address = hex(TXVJ);
    });
    mismatchIn(f, 'to_address');
    assert.equal(f.transfers[0]!.recipient, TL24);
  });

  test('tampered JSON contract_address (USDT call): raw_data_mismatch', async () => {
    mismatchIn(
      await withTamperedJson(TRON_FIXTURE_TX.usdtTransfer, (_, value) => {
        value.contract_address = hex(TXVJ);
      }),
      'contract_address',
    );
  });

  test('tampered JSON contract type: raw_data_mismatch on the type number and type_url', async () => {
    const f = await withTamperedJson(TRON_FIXTURE_TX.usdtTransfer, (contract) => {
      contract.type = 'TransferAssetContract';
    });
    mismatchIn(f, 'contract type');
    mismatchIn(f, 'type_url');
  });

  test('tampered JSON parameter type_url: raw_data_mismatch', async () => {
    mismatchIn(
      await withTamperedJson(TRON_FIXTURE_TX.usdtTransfer, (contract) => {
        (contract.parameter as Record<string, unknown>).type_url = 'type.googleapis.com/protocol.TransferContract';
      }),
      'type_url',
    );
  });

  test('tampered JSON call_value: raw_data_mismatch', async () => {
    mismatchIn(
      await withTamperedJson(TRON_FIXTURE_TX.usdtTransfer, (_, value) => {
        value.call_value = 5_000_000;
      }),
      'call_value',
    );
  });

  test('tampered JSON vote address and resource receiver: raw_data_mismatch', async () => {
    mismatchIn(
      await withTamperedJson(TRON_FIXTURE_TX.voteWitness, (_, value) => {
        (value.votes as { vote_address: string }[])[0]!.vote_address = hex(TXVJ);
      }),
      'votes.vote_address',
    );
    const delegate = buildTronTransaction({
      contractType: 'DelegateResourceContract',
      parameter: { owner_address: hex(TL24), balance: 1_000_000, receiver_address: hex(TXVJ) },
      blockNumber: 70_000_014,
    });
    node.addTransaction(delegate);
    mismatchIn(
      await withTamperedJson(delegate.txID, (_, value) => {
        value.receiver_address = hex(USDT_CONTRACT);
      }),
      'receiver_address',
    );
  });

  test('txID of another transaction', async () => {
    const { transaction, info } = fresh();
    const hash = 'ef'.repeat(32);
    node.addTransaction({ transaction, info: { ...info, id: hash } });
    node.setTransaction(hash, 'full', { transaction });
    const f = await facts(hash);
    assert.equal(f.verified, false);
    assert.ok(f.disagreements.some((d) => d.code === 'tx_id_mismatch' && d.detail.includes('not the requested hash')));
  });

  test('tampered log on one node: log_mismatch', async () => {
    const { info } = fresh();
    const log = (info.log as { data: string }[])[0]!;
    log.data = log.data.replace('027bf24d', '3b9aca00');
    node.setTransaction(TRON_FIXTURE_TX.usdtTransfer, 'solidity', { info });
    try {
      const f = await facts(TRON_FIXTURE_TX.usdtTransfer);
      assert.ok(f.disagreements.some((d) => d.code === 'log_mismatch'));
    } finally {
      node.setTransaction(TRON_FIXTURE_TX.usdtTransfer, 'solidity', { info: original.info });
    }
  });

  test('the log, not the call data, gives the amount; a log from another contract is not the token called', async () => {
    const fake = 'TJzXt1sZautjqXnpjQT4xSCBHNSYgBkDr3';
    const data = `a9059cbb${'0'.repeat(24)}${hex(TXVJ).slice(2)}${100_000_000n.toString(16).padStart(64, '0')}`;
    const feeOnTransfer = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: { owner_address: hex(TL24), contract_address: hex(USDT_CONTRACT), data },
      blockNumber: 70_000_003,
      info: { receipt: { result: 'SUCCESS' }, log: [transferLog(USDT_CONTRACT, TL24, TXVJ, 99_000_000n)] },
    });
    const impostor = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: { owner_address: hex(TL24), contract_address: hex(USDT_CONTRACT), data },
      blockNumber: 70_000_003,
      nonce: 1,
      info: { receipt: { result: 'SUCCESS' }, log: [transferLog(fake, TL24, TXVJ, 100_000_000n)] },
    });
    node.addTransaction(feeOnTransfer);
    node.addTransaction(impostor);
    const a = await facts(feeOnTransfer.txID);
    assert.equal(a.category, 'trc20_transfer');
    assert.equal(amountOf(a), '99');
    const b = await facts(impostor.txID);
    assert.equal(b.category, 'smart_contract_call', 'the called contract emitted no Transfer');
    assert.equal(b.transfers[0]!.tokenContract, fake);
    assert.equal(b.transfers[0]!.decimals, null, 'unknown contract: no metadata');
    assert.equal(b.primaryTransfer, 0, 'the single Transfer log');
  });

  test('a body with two contracts (refused by java-tron): a disagreement, never the first contract alone', async () => {
    const second = 'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B';
    const built = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 1_000_000 },
      blockNumber: 70_000_047,
    });
    const raw = (built.transaction as { raw_data: Record<string, unknown> & { contract: Record<string, unknown>[] } })
      .raw_data;
    const p2 = { owner_address: hex(TL24), to_address: hex(second), amount: 5_000_000_000 };
    const rawDataHex = encodeRawData({
      ref_block_bytes: raw.ref_block_bytes as string,
      ref_block_hash: raw.ref_block_hash as string,
      expiration: raw.expiration as number,
      timestamp: raw.timestamp as number,
      contract: [
        {
          typeNumber: 1,
          typeName: 'TransferContract',
          parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount: 1_000_000 },
        },
        { typeNumber: 1, typeName: 'TransferContract', parameter: p2 },
      ],
    });
    const txID = createHash('sha256').update(Buffer.from(rawDataHex, 'hex')).digest('hex');
    const secondJson = {
      parameter: { value: p2, type_url: 'type.googleapis.com/protocol.TransferContract' },
      type: 'TransferContract',
    };
    node.addTransaction({
      transaction: {
        ...built.transaction,
        txID,
        raw_data: { ...raw, contract: [...raw.contract, secondJson] },
        raw_data_hex: rawDataHex,
      },
      info: { ...built.info, id: txID },
    });
    const f = await facts(txID);
    assert.equal(f.verified, false);
    assert.ok(
      f.disagreements.some((d) => d.detail.includes('2 contracts in one transaction')),
      JSON.stringify(f.disagreements),
    );
  });

  test('a body and an info that contradict each other', async () => {
    const { transaction, info } = fresh();
    const contradicting = {
      ...info,
      receipt: { ...(info.receipt as object), result: 'REVERT' },
      contract_address: hex(TXVJ),
    };
    for (const n of ['full', 'solidity'] as const)
      node.setTransaction(TRON_FIXTURE_TX.usdtTransfer, n, { transaction, info: contradicting });
    try {
      const f = await facts(TRON_FIXTURE_TX.usdtTransfer);
      assert.equal(f.state, 'failed', 'any failure evidence wins');
      const details = f.disagreements.map((d) => d.detail).join('; ');
      assert.ok(details.includes('receipt.result REVERT') && details.includes('another contract'), details);
    } finally {
      for (const n of ['full', 'solidity'] as const) node.setTransaction(TRON_FIXTURE_TX.usdtTransfer, n, original);
    }
  });

  test('a malformed Transfer log is reported missing, not read', async () => {
    const built = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: { owner_address: hex(TL24), contract_address: hex(USDT_CONTRACT), data: 'deadbeef' },
      blockNumber: 70_000_004,
      info: {
        receipt: { result: 'SUCCESS' },
        log: [{ ...transferLog(USDT_CONTRACT, TL24, TXVJ, 5n), data: '05' }],
      },
    });
    node.addTransaction(built);
    const f = await facts(built.txID);
    assert.deepEqual(f.transfers, []);
    assert.ok(f.missing.some((m) => m.includes('log 0')));
  });
});

describe('transfers', () => {
  test('internal transactions: TRX and TRC10 kept in order, rejected skipped', async () => {
    const built = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: { owner_address: hex(TL24), contract_address: hex(USDT_CONTRACT), data: 'deadbeef', call_value: 7 },
      blockNumber: 70_000_010,
      info: {
        receipt: { result: 'SUCCESS' },
        internal_transactions: [
          {
            hash: '01',
            caller_address: hex(USDT_CONTRACT),
            transferTo_address: hex(TXVJ),
            callValueInfo: [{ callValue: 2_500_000 }],
            note: '63616c6c',
          },
          {
            hash: '02',
            caller_address: hex(USDT_CONTRACT),
            transferTo_address: hex(TXVJ),
            callValueInfo: [{ callValue: 9 }],
            note: '63616c6c',
            rejected: true,
          },
          {
            hash: '03',
            caller_address: hex(USDT_CONTRACT),
            transferTo_address: hex(TL24),
            callValueInfo: [{ callValue: 42, tokenId: '1005065' }],
            note: '63616c6c',
          },
          {
            hash: '04',
            caller_address: hex(USDT_CONTRACT),
            transferTo_address: hex(TL24),
            callValueInfo: [{}],
            note: '63616c6c',
          },
        ],
      },
    });
    node.addTransaction(built);
    const f = await facts(built.txID);
    assert.deepEqual(
      f.transfers.map((t) => [t.index, t.source, t.assetType, t.recipient, t.rawAmount, t.decimals]),
      [
        [0, 'contract', 'trx', USDT_CONTRACT, 7n, 6],
        [1, 'internal', 'trx', TXVJ, 2_500_000n, 6],
        [2, 'internal', 'trc10', TL24, 42n, 6],
      ],
    );
    assert.equal(f.category, 'smart_contract_call');
    assert.equal(f.primaryTransfer, null, 'several transfers, none the obvious one');
  });

  test('fee-on-transfer: two Transfer logs of the called token, the primary transfer is the one to the payee', async () => {
    const feeCollector = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';
    const data = `a9059cbb${'0'.repeat(24)}${hex(TXVJ).slice(2)}${100n.toString(16).padStart(64, '0')}`;
    const built = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: { owner_address: hex(TL24), contract_address: hex(USDT_CONTRACT), data },
      blockNumber: 70_000_015,
      info: {
        receipt: { result: 'SUCCESS' },
        log: [transferLog(USDT_CONTRACT, TL24, feeCollector, 2n), transferLog(USDT_CONTRACT, TL24, TXVJ, 98n)],
      },
    });
    node.addTransaction(built);
    const f = await facts(built.txID);
    assert.equal(f.category, 'trc20_transfer');
    assert.equal(f.transfers.length, 2);
    assert.equal(f.primaryTransfer, 1);
    assert.equal(f.transfers[1]!.recipient, TXVJ);
    assert.equal(f.transfers[1]!.rawAmount, 98n);
  });

  test('an internal transfer whose token id is not a number is neither TRC10 nor TRX: missing', async () => {
    const built = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: { owner_address: hex(TL24), contract_address: hex(USDT_CONTRACT), data: 'deadbeef' },
      blockNumber: 70_000_016,
      info: {
        receipt: { result: 'SUCCESS' },
        internal_transactions: [
          {
            hash: '01',
            caller_address: hex(USDT_CONTRACT),
            transferTo_address: hex(TXVJ),
            callValueInfo: [{ callValue: 3, tokenId: 'abc' }],
          },
        ],
      },
    });
    node.addTransaction(built);
    const f = await facts(built.txID);
    assert.deepEqual(f.transfers, []);
    assert.ok(
      f.missing.some((m) => m.includes('internal transaction 0: token id "abc"')),
      f.missing.join('; '),
    );
  });

  test('a transfer whose party cannot be read is kept and reported missing (it cannot be screened)', async () => {
    const built = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: { owner_address: hex(TL24), contract_address: hex(USDT_CONTRACT), data: 'deadbeef' },
      blockNumber: 70_000_012,
      info: {
        receipt: { result: 'SUCCESS' },
        internal_transactions: [
          { hash: '01', transferTo_address: hex(TXVJ), callValueInfo: [{ callValue: 3 }], note: '63616c6c' },
        ],
      },
    });
    node.addTransaction(built);
    const f = await facts(built.txID);
    assert.equal(f.transfers[0]!.sender, null);
    assert.equal(f.transfers[0]!.recipient, TXVJ);
    assert.deepEqual(f.missing, ['transfer 0: sender unreadable']);
    assert.equal(f.state, 'confirmed', 'the state itself is established');
  });

  test('truncation: 150 Transfer logs are cut at maxTransfers', async () => {
    const logs = Array.from({ length: 150 }, (_, i) => transferLog(USDT_CONTRACT, TL24, TXVJ, BigInt(i + 1)));
    const built = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: { owner_address: hex(TL24), contract_address: hex(USDT_CONTRACT), data: 'deadbeef' },
      blockNumber: 70_000_011,
      info: { receipt: { result: 'SUCCESS' }, log: logs },
    });
    node.addTransaction(built);
    const byDefault = await facts(built.txID);
    assert.equal(byDefault.transfers.length, 100);
    assert.equal(byDefault.transfersTruncated, true);
    assert.deepEqual(
      byDefault.transfers.map((t) => t.index),
      Array.from({ length: 100 }, (_, i) => i),
    );
    assert.equal(byDefault.transfers[99]!.rawAmount, 100n);
    const small = createTronChainFactsProvider({ fullNodeUrl: node.url, maxTransfers: 5 });
    try {
      const f = await facts(built.txID, small);
      assert.equal(f.transfers.length, 5);
      assert.equal(f.transfersTruncated, true);
    } finally {
      await small.close();
    }
    const one = await facts(TRON_FIXTURE_TX.usdtTransfer);
    assert.equal(one.transfersTruncated, false);
  });
});

describe('token metadata', () => {
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
    node.addTransaction(built);
    return built.txID;
  };

  test('malformed and bytes32-style answers decode defensively', async () => {
    const a = 'TYPG8VeuoVAh2hP7Vfw6ww7vK98nvXXXUG';
    node.setToken(a, {
      decimals: { raw: 'ff'.repeat(32) }, // absurd decimals
      symbol: { raw: Buffer.from('MKR').toString('hex').padEnd(64, '0') }, // bytes32
      name: { raw: '0000000000000000000000000000000000000000000000000000000000000020ffff' }, // cut string
    });
    const f = await facts(tokenTx(a, 70_000_020));
    const t = f.transfers[0]!;
    assert.equal(f.category, 'trc20_transfer');
    assert.equal(t.decimals, null);
    assert.equal(t.tokenSymbol, 'MKR');
    assert.equal(t.tokenName, null);
    assert.deepEqual(f.missing, [], 'the token answered: nothing is missing, the values are just unknown');
  });

  test('a contract that reverts or does not exist: nulls, transfer kept', async () => {
    const b = 'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B';
    node.setToken(b, { decimals: 'revert', symbol: 'revert', name: 'revert' });
    const f = await facts(tokenTx(b, 70_000_021));
    assert.equal(f.transfers[0]!.decimals, null);
    assert.equal(f.transfers[0]!.rawAmount, 1234n);
  });

  test('a revert is cached only briefly (tokenNegativeCacheMs)', async () => {
    const d = hexToBase58Address(`41${'5a'.repeat(20)}`)!; // a token no other test uses
    node.setToken(d, { decimals: 'revert', symbol: 'revert', name: 'revert' });
    const txId = tokenTx(d, 70_000_025);
    let now = 0;
    const brief = createTronChainFactsProvider({
      fullNodeUrl: node.url,
      tokenNegativeCacheMs: 60_000,
      tokenCacheClock: () => now,
    });
    try {
      assert.equal((await facts(txId, brief)).transfers[0]!.decimals, null);
      node.setToken(d, { decimals: 8, symbol: 'LATE', name: 'Late Token' });
      now += 59_999;
      assert.equal((await facts(txId, brief)).transfers[0]!.decimals, null, 'still the cached revert');
      now += 2;
      const later = await facts(txId, brief);
      assert.equal(later.transfers[0]!.decimals, 8, 'read again once the negative entry expired');
      assert.equal(later.transfers[0]!.tokenSymbol, 'LATE');
    } finally {
      await brief.close();
    }
  });

  test('a token with decimals but no name(): a complete answer, cached for tokenCacheMs, then read again', async () => {
    const n = hexToBase58Address(`41${'5b'.repeat(20)}`)!;
    node.setToken(n, { decimals: 6, symbol: 'NONAME', name: 'revert' });
    const txId = tokenTx(n, 70_000_026);
    let now = 0;
    const p = createTronChainFactsProvider({
      fullNodeUrl: node.url,
      tokenNegativeCacheMs: 60_000,
      tokenCacheMs: 3_600_000,
      tokenCacheClock: () => now,
    });
    const reads = () =>
      node.calls.filter((c) => c.path === 'triggerconstantcontract' && JSON.stringify(c.body).includes(hex(n))).length;
    try {
      const first = await facts(txId, p);
      assert.equal(first.transfers[0]!.decimals, 6);
      assert.equal(first.transfers[0]!.tokenName, null);
      const cold = reads();
      assert.equal(cold, 3, 'decimals(), symbol(), name()');
      now += 120_000; // past the negative cache's 60 s
      assert.equal((await facts(txId, p)).transfers[0]!.decimals, 6);
      assert.equal(reads(), cold, 'not re-read for its missing name');
      node.setToken(n, { decimals: 18, symbol: 'NONAME', name: 'revert' });
      now += 3_600_000;
      assert.equal((await facts(txId, p)).transfers[0]!.decimals, 18, 'one node answer is not kept forever');
      assert.equal(reads(), cold * 2);
    } finally {
      await p.close();
    }
  });

  test('node failures while reading metadata: decimals null and a missing entry, not cached', async () => {
    const c = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';
    node.setToken(c, { decimals: 18, symbol: 'TKN', name: 'Token' });
    const txId = tokenTx(c, 70_000_022);
    const remove = node.fault({ path: 'triggerconstantcontract', fault: { kind: 'status', status: 503 } });
    try {
      const f = await facts(txId);
      assert.equal(f.transfers[0]!.decimals, null);
      assert.ok(f.missing.some((m) => m.includes('token metadata')));
      assert.equal(f.state, 'confirmed', 'the transaction facts themselves are complete');
    } finally {
      remove();
    }
    const again = await facts(txId);
    assert.equal(again.transfers[0]!.decimals, 18);
    assert.equal(again.transfers[0]!.tokenSymbol, 'TKN');
  });

  test('TRC10 asset unknown to the node: decimals null', async () => {
    const built = buildTronTransaction({
      contractType: 'TransferAssetContract',
      parameter: {
        owner_address: hex(TL24),
        to_address: hex(TXVJ),
        asset_name: Buffer.from('1000001').toString('hex'),
        amount: 10,
      },
      blockNumber: 70_000_023,
    });
    node.addTransaction(built);
    node.setAsset('1000001', null);
    const f = await facts(built.txID);
    assert.equal(f.transfers[0]!.tokenId, '1000001');
    assert.equal(f.transfers[0]!.decimals, null);
  });

  test('TRC10 precision beyond any asset (a lying node): decimals null and the metadata missing, never a wrong amount', async () => {
    const built = buildTronTransaction({
      contractType: 'TransferAssetContract',
      parameter: {
        owner_address: hex(TL24),
        to_address: hex(TXVJ),
        asset_name: Buffer.from('1000002').toString('hex'),
        amount: 8_888_880_000,
      },
      blockNumber: 70_000_024,
    });
    node.addTransaction(built);
    node.setAsset('1000002', {
      id: '1000002',
      name: Buffer.from('Big').toString('hex'),
      abbr: Buffer.from('BIG').toString('hex'),
      precision: 20_000_000,
    });
    const f = await facts(built.txID);
    assert.equal(f.transfers[0]!.decimals, null, 'so no amount is formatted from it');
    assert.ok(
      f.missing.some((m) => m.includes('token metadata')),
      f.missing.join('; '),
    );
  });

  test('the metadata cache is bounded (LRU of tokenCacheSize tokens)', async () => {
    const tiny = createTronChainFactsProvider({ fullNodeUrl: node.url, tokenCacheSize: 1 });
    const symbolCalls = () =>
      node.calls.filter((c) => (c.body as { function_selector?: string }).function_selector === 'symbol()').length;
    try {
      node.clearCalls();
      await facts(TRON_FIXTURE_TX.usdtTransfer, tiny); // USDT cached
      await facts(TRON_FIXTURE_TX.trc10Transfer, tiny); // TRC10 asset evicts USDT
      await facts(TRON_FIXTURE_TX.usdtTransfer, tiny);
      assert.equal(symbolCalls(), 2);
    } finally {
      await tiny.close();
    }
  });

  test('cold lookups are coalesced, warm ones are cached', async () => {
    const fresh = createTronChainFactsProvider({ fullNodeUrl: node.url });
    try {
      node.clearCalls();
      await Promise.all([facts(TRON_FIXTURE_TX.usdtTransfer, fresh), facts(TRON_FIXTURE_TX.blockUsdtTransfer, fresh)]);
      const decimalsCalls = () =>
        node.calls.filter(
          (c) =>
            c.path === 'triggerconstantcontract' &&
            (c.body as { function_selector?: string }).function_selector === 'decimals()',
        ).length;
      assert.equal(decimalsCalls(), 1);
      await facts(TRON_FIXTURE_TX.usdtTransfer, fresh);
      assert.equal(decimalsCalls(), 1);
    } finally {
      await fresh.close();
    }
  });
});

describe('counterparties', () => {
  const b58 = (h: string) => hexToBase58Address(h)!;

  test('votes: the voted witness; staking and withdraw: nobody besides the owner', async () => {
    assert.deepEqual((await facts(TRON_FIXTURE_TX.voteWitness)).counterparties, [
      b58('414ce8225c8ea6c8e1e0a483132211610c765fc6df'),
    ]);
    for (const hash of [
      TRON_FIXTURE_TX.freezeBalanceV2,
      TRON_FIXTURE_TX.unfreezeBalanceV1,
      TRON_FIXTURE_TX.withdrawBalance,
    ]) {
      assert.deepEqual((await facts(hash)).counterparties, [], hash);
    }
  });

  test('transfers: the called contract beside the token transfer parties; a TRX transfer names only its parties', async () => {
    assert.deepEqual(
      (await facts(TRON_FIXTURE_TX.usdtTransfer)).counterparties,
      [USDT_CONTRACT],
      'TXVj… is the transfer recipient already',
    );
    assert.deepEqual((await facts(TRON_FIXTURE_TX.trxTransfer)).counterparties, []);
    const failed = await facts(node.failedUsdtTx);
    assert.deepEqual(failed.transfers, []);
    assert.deepEqual(failed.counterparties, [USDT_CONTRACT, TXVJ], 'a failed transfer() still names its recipient');
  });

  test('a value-less approve() call: the contract and the spender', async () => {
    const spender = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';
    const built = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: {
        owner_address: hex(TL24),
        contract_address: hex(USDT_CONTRACT),
        data: `095ea7b3${'0'.repeat(24)}${hex(spender).slice(2)}${'f'.repeat(64)}`,
      },
      blockNumber: 70_000_030,
      info: { receipt: { result: 'SUCCESS' } },
    });
    node.addTransaction(built);
    const f = await facts(built.txID);
    assert.equal(f.state, 'confirmed');
    assert.deepEqual(f.transfers, []);
    assert.deepEqual(f.counterparties, [USDT_CONTRACT, spender]);
  });

  test('resource delegation: the receiver, from the signed bytes; the owner is never listed', async () => {
    for (const [contractType, blockNumber] of [
      ['DelegateResourceContract', 70_000_031],
      ['UnDelegateResourceContract', 70_000_032],
    ] as const) {
      const built = buildTronTransaction({
        contractType,
        parameter: { owner_address: hex(TL24), balance: 1_000_000, receiver_address: hex(TXVJ) },
        blockNumber,
      });
      node.addTransaction(built);
      const f = await facts(built.txID);
      assert.equal(f.verified, true, contractType);
      assert.equal(f.category, 'resource_operation');
      assert.deepEqual(f.counterparties, [TXVJ], contractType);
    }
    const self = buildTronTransaction({
      contractType: 'DelegateResourceContract',
      parameter: { owner_address: hex(TL24), balance: 1, receiver_address: hex(TL24) },
      blockNumber: 70_000_033,
    });
    node.addTransaction(self);
    assert.deepEqual((await facts(self.txID)).counterparties, []);
  });

  test('raw bytes that do not decode: no counterparties from the unverified JSON', async () => {
    const built = buildTronTransaction({
      contractType: 'DelegateResourceContract',
      parameter: { owner_address: hex(TL24), balance: 2, receiver_address: hex(TXVJ) },
      blockNumber: 70_000_034,
    });
    node.addTransaction({ transaction: { ...built.transaction, raw_data_hex: 'ff' }, info: built.info });
    const f = await facts(built.txID);
    assert.equal(f.verified, false);
    assert.deepEqual(f.counterparties, []);
  });

  describe('accounts named without a fungible transfer', () => {
    const acct = (byte: string) => b58(`41${byte.repeat(20)}`);
    const [NFT, NFT2, A, B, C, D, E] = ['21', '22', '31', '32', '33', '34', '35'].map(acct) as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const word = (a: string) => hex(a).slice(2).padStart(64, '0');
    const id7 = 7n.toString(16).padStart(64, '0');
    const call = (data: string, blockNumber: number, info: Record<string, unknown> = {}) => {
      const built = buildTronTransaction({
        contractType: 'TriggerSmartContract',
        parameter: { owner_address: hex(TL24), contract_address: hex(NFT), data },
        blockNumber,
        info: { receipt: { result: 'SUCCESS' }, ...info },
      });
      node.addTransaction(built);
      return built.txID;
    };
    const nftLog = (emitter: string, from: string, to: string) => ({
      address: hex(emitter).slice(2),
      topics: [transferLog(emitter, from, to, 0n).topics, id7].flat(),
      data: '',
    });

    test('safeTransferFrom, transferFrom and setApprovalForAll: every address argument, from the signed call data', async () => {
      const cases: [string, string, string[]][] = [
        ['safeTransferFrom(A, B, 7)', `42842e0e${word(A)}${word(B)}${id7}`, [NFT, A, B]],
        ['transferFrom(A, owner, 7)', `23b872dd${word(A)}${word(TL24)}${id7}`, [NFT, A]],
        ['setApprovalForAll(A, true)', `a22cb465${word(A)}${1n.toString(16).padStart(64, '0')}`, [NFT, A]],
      ];
      for (const [i, [name, data, expected]] of cases.entries()) {
        const f = await facts(call(data, 70_000_040 + i));
        assert.equal(f.state, 'confirmed', name);
        assert.deepEqual(f.transfers, [], name);
        assert.deepEqual(f.counterparties, expected, name);
      }
    });

    test('an ERC-721 Transfer log (four topics): its parties and emitter are counterparties, not a transfer; other logs: their emitter', async () => {
      const otherLog = {
        address: hex(E).slice(2),
        topics: ['8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925'],
        data: '',
      };
      const f = await facts(call('deadbeef', 70_000_043, { log: [nftLog(NFT2, C, D), otherLog] }));
      assert.equal(f.state, 'confirmed');
      assert.deepEqual(f.missing, []);
      assert.deepEqual(f.transfers, []);
      assert.deepEqual(f.counterparties, [NFT, NFT2, C, D, E]);
    });

    test('internal transactions: a value-less one names caller and callee; a rejected one too, moving nothing; a valued one is a transfer', async () => {
      const internal = (to: string, extra: Record<string, unknown>) => ({
        hash: 'ab'.repeat(32),
        caller_address: hex(NFT2),
        transferTo_address: hex(to),
        ...extra,
      });
      const f = await facts(
        call('deadbeef', 70_000_044, {
          internal_transactions: [
            internal(A, { callValueInfo: [{}] }),
            internal(B, { callValueInfo: [{}], rejected: true }),
            internal(C, { callValueInfo: [{ callValue: 5 }] }),
          ],
        }),
      );
      assert.deepEqual(
        f.transfers.map((t) => [t.source, t.sender, t.recipient, t.rawAmount]),
        [['internal', NFT2, C, 5n]],
      );
      assert.deepEqual(
        f.counterparties,
        [NFT, A, B],
        'the caller NFT2 and C are transfer parties already; B was called, though rejected',
      );
    });
  });

  test('a token transfer call without its Transfer event (a "fake deposit"): its effect is missing, never a complete empty list', async () => {
    const data = `a9059cbb${'0'.repeat(24)}${hex(TXVJ).slice(2)}${1000n.toString(16).padStart(64, '0')}`;
    const built = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: { owner_address: hex(TL24), contract_address: hex(b58(`41${'51'.repeat(20)}`)), data },
      blockNumber: 70_000_046,
      info: { receipt: { result: 'SUCCESS' } },
    });
    node.addTransaction(built);
    const f = await facts(built.txID);
    assert.equal(f.state, 'confirmed');
    assert.deepEqual(f.transfers, []);
    assert.ok(
      f.missing.some((m) => m.includes('no matching Transfer event')),
      f.missing.join('; '),
    );
    // Not yet executed (broadcast, no tx info): nothing could have been emitted, nothing is missing.
    const pending = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: { owner_address: hex(TL24), contract_address: hex(b58(`41${'52'.repeat(20)}`)), data },
      blockNumber: 70_000_048,
    });
    node.addTransaction({ transaction: pending.transaction, info: null });
    const p = await facts(pending.txID);
    assert.equal(p.state, 'pending');
    assert.deepEqual(p.missing, []);
  });

  test('types that move value without listed transfers (a deployment with call value): the list is marked incomplete', async () => {
    const built = buildTronTransaction({
      contractType: 'ParticipateAssetIssueContract',
      parameter: {
        owner_address: hex(TL24),
        to_address: hex(TXVJ),
        asset_name: Buffer.from('1002000').toString('hex'),
        amount: 5,
      },
      blockNumber: 70_000_047,
    });
    node.addTransaction(built);
    const f = await facts(built.txID);
    assert.deepEqual(f.transfers, []);
    assert.ok(
      f.missing.some((m) => m.includes('ParticipateAssetIssueContract moves')),
      f.missing.join('; '),
    );
  });

  test('AccountPermissionUpdateContract: the owner, witness and active keys, from the signed bytes; a JSON key that differs is a mismatch', async () => {
    const [W, K1, K2] = ['41', '42', '43'].map((b) => b58(`41${b.repeat(20)}`)) as [string, string, string];
    const permission = (type: string, id: number, keys: string[]) => ({
      type,
      id,
      permission_name: type.toLowerCase(),
      threshold: 1,
      keys: keys.map((k) => ({ address: hex(k), weight: 1 })),
    });
    const built = buildTronTransaction({
      contractType: 'AccountPermissionUpdateContract',
      parameter: {
        owner_address: hex(TL24),
        owner: permission('Owner', 0, [TL24]),
        witness: permission('Witness', 1, [W]),
        actives: [permission('Active', 2, [TL24, K1]), permission('Active', 3, [K2])],
      },
      blockNumber: 70_000_045,
    });
    node.addTransaction(built);
    const f = await facts(built.txID);
    assert.deepEqual(f.disagreements, []);
    assert.equal(f.verified, true);
    assert.equal(f.category, 'permission_update');
    assert.deepEqual(f.counterparties, [W, K1, K2]);

    // The node's JSON shows another active key than the signed bytes.
    const json = structuredClone(built.transaction) as {
      raw_data: { contract: { parameter: { value: { actives: { keys: { address: string }[] }[] } } }[] };
    };
    json.raw_data.contract[0]!.parameter.value.actives[1]!.keys[0]!.address = hex(TXVJ);
    node.setTransaction(built.txID, 'full', { transaction: json });
    node.setTransaction(built.txID, 'solidity', { transaction: json });
    const tampered = await facts(built.txID);
    assert.ok(
      tampered.disagreements.some((d) => d.code === 'raw_data_mismatch' && d.detail.includes('actives.keys.address')),
      JSON.stringify(tampered.disagreements),
    );
    assert.deepEqual(tampered.counterparties, [W, K1, K2], 'from the signed bytes, not the JSON');
  });

  test('AccountUpdateContract: the owner is field 2 of its parameter, and verifies', async () => {
    const built = buildTronTransaction({
      contractType: 'AccountUpdateContract',
      parameter: { account_name: Buffer.from('merchant').toString('hex'), owner_address: hex(TL24) },
      blockNumber: 70_000_035,
    });
    node.addTransaction(built);
    const f = await facts(built.txID);
    assert.deepEqual(f.disagreements, []);
    assert.equal(f.verified, true);
    assert.equal(f.owner, TL24);
  });
});

describe('calls', () => {
  test('the six lookups go out in parallel, then metadata; API key header sent', async () => {
    const slow = await startFakeTronNode({ latencyMs: 80 });
    const p = createTronChainFactsProvider({ fullNodeUrl: slow.url, apiKey: 'test-key' });
    try {
      await facts(TRON_FIXTURE_TX.usdtTransfer, p);
      const first = slow.calls.slice(0, 6);
      assert.deepEqual(first.map((c) => `${c.node}:${c.path}`).sort(), [
        'full:getnowblock',
        'full:gettransactionbyid',
        'full:gettransactioninfobyid',
        'solidity:getnowblock',
        'solidity:gettransactionbyid',
        'solidity:gettransactioninfobyid',
      ]);
      const lastStart = Math.max(...first.map((c) => c.startedAt));
      const firstEnd = Math.min(...first.map((c) => c.finishedAt ?? Infinity));
      assert.ok(lastStart < firstEnd, 'every lookup started before any finished');
      const rest = slow.calls.slice(6);
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
    const other = await startFakeTronNode();
    const p = createTronChainFactsProvider({ fullNodeUrl: node.url, solidityNodeUrl: other.url });
    try {
      other.clearCalls();
      const f = await facts(TRON_FIXTURE_TX.trxTransfer, p);
      assert.equal(f.state, 'confirmed');
      assert.deepEqual(f.disagreements, []);
      assert.deepEqual(f.missing, []);
      assert.ok(other.calls.length >= 3 && other.calls.every((c) => c.node === 'solidity'));
    } finally {
      await p.close();
      await other.close();
    }
  });
});
