// Chain facts from plain node answers (no HTTP): state and finality, gaps, disagreements and tampering.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { decode } from '@tron-safety/codec';
import { deriveFacts } from '../src/chain/derive.js';
import { BLOCK_TIME_SKEW_MS } from '../src/chain/gaps.js';
import { NodeTransactionInfo } from '../src/chain/node-codecs.js';
import type { ChainFacts } from '../src/chain/facts.js';
import { stateOf, type StateEvidence } from '../src/chain/state.js';
import { base58ToHexAddress } from '../src/tron/address.js';
import { formatAmount } from '../src/tron/amount.js';
import { encodeRawData } from '../src/tron/protobuf.js';
import {
  buildTronTransaction,
  transferLog,
  TRON_FIXTURE_TX,
  USDT_CONTRACT,
  type FakeTronTransaction,
  type JsonObject,
} from '../src/testing/fake-tron-fixtures.js';
import {
  answersFor,
  codes,
  derive,
  details,
  factsOf,
  FIXTURES,
  fixture,
  HEIGHTS,
  timeout,
  type AnswerScript,
} from './chain-answers.js';

const TL24 = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';
const TXVJ = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';
const hex = (a: string) => base58ToHexAddress(a)!;
const USDT = fixture(TRON_FIXTURE_TX.usdtTransfer);

const amountOf = (f: ChainFacts, i = f.primaryTransfer ?? 0) => {
  const t = f.transfers[i]!;
  return t.decimals === null ? null : formatAmount(t.rawAmount, t.decimals);
};

/** A TRX transfer of `amount` sun from TL24… to TXVj… in `blockNumber` (null: broadcast, no tx info yet). */
const trxTransfer = (amount: number, blockNumber: number, info?: JsonObject): FakeTronTransaction & { txID: string } =>
  buildTronTransaction({
    contractType: 'TransferContract',
    parameter: { owner_address: hex(TL24), to_address: hex(TXVJ), amount },
    blockNumber,
    ...(info ? { info } : {}),
  });

/** The same answer on both nodes, whatever the heights. */
const onBoth = (answer: { transaction?: JsonObject | null; info?: JsonObject | null }): AnswerScript => ({
  full: answer,
  solidity: answer,
});

describe('recorded mainnet fixtures', () => {
  test('USDT 0130dfde…: 41.677389 USDT from TL24… to TXVj…, confirmed and verified', () => {
    const f = factsOf(USDT);
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
    assert.equal(f.confirmations, HEIGHTS.head - 69316562 + 1);
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

  test('TRX 5144c4f5…: 1 sun from 4121b72c… to TL24…', () => {
    const f = factsOf(fixture(TRON_FIXTURE_TX.trxTransfer));
    assert.equal(f.state, 'confirmed');
    assert.equal(f.category, 'trx_transfer');
    assert.equal(f.verified, true);
    const t = f.transfers[0]!;
    assert.equal(base58ToHexAddress(t.sender!), '4121b72c741caed659bf48c3fa2b717b007c20fb4b');
    assert.equal(t.recipient, TL24);
    assert.equal(t.rawAmount, 1n);
    assert.equal(amountOf(f), '0.000001');
    assert.equal(t.tokenSymbol, 'TRX');
    assert.equal(f.tokenDataAt, null, 'no token involved');
  });

  test('TRX to a new account 3f8b651b…: 150.46632 TRX from TL24… to 4115e75f…', () => {
    const f = factsOf(fixture(TRON_FIXTURE_TX.trxTransferToNewAccount));
    assert.equal(f.state, 'confirmed');
    assert.equal(f.transfers.length, 1);
    assert.equal(f.transfers[0]!.sender, TL24);
    assert.equal(base58ToHexAddress(f.transfers[0]!.recipient!), '4115e75fb8683b09c857d7b8a740b1d0234a3ca97b');
    assert.equal(amountOf(f), '150.46632');
  });

  test('TRC10 034897cb…: 8888880000 units of asset 1005065 to TL24…, decimals from precision', () => {
    const f = factsOf(fixture(TRON_FIXTURE_TX.trc10Transfer));
    assert.equal(f.category, 'trc10_transfer');
    assert.equal(f.verified, true, 'hex asset_name equals the raw bytes');
    const t = f.transfers[0]!;
    assert.equal(t.assetType, 'trc10');
    assert.equal(t.tokenId, '1005065');
    assert.equal(t.tokenContract, null);
    assert.equal(base58ToHexAddress(t.sender!), '414a590bf4bbbb25e162987084d3529ae2078ac177');
    assert.equal(t.recipient, TL24);
    assert.equal(t.rawAmount, 8888880000n);
    assert.equal(t.decimals, 6); // synthetic precision of the fake node
    assert.equal(t.tokenSymbol, 'FIXT');
    assert.equal(amountOf(f), '8888.88');
  });

  test('failed USDT call (OUT_OF_ENERGY, synthetic body): failed, no transfers, not a trc20_transfer', () => {
    const f = derive(fixture(FIXTURES.failedUsdtTx));
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
    test(`${name}: ${type} → ${category}, no transfers, owner TL24…`, () => {
      const f = derive(fixture(hash));
      assert.equal(f.state, 'confirmed');
      assert.equal(f.transactionType, type);
      assert.equal(f.category, category);
      assert.equal(f.owner, TL24);
      assert.equal(f.verified, true);
      assert.deepEqual(f.transfers, []);
      assert.equal(f.primaryTransfer, null);
    });
  }

  test('info-only recordings (USDT b69c51db…, TRX 23897196…): unknown state, missing body, never verified', () => {
    for (const hash of [TRON_FIXTURE_TX.usdtTransferDocExample, TRON_FIXTURE_TX.trxTransferDocExample]) {
      const f = derive(fixture(hash));
      assert.equal(f.state, 'unknown');
      assert.equal(f.verified, false);
      assert.equal(f.transactionType, 'unknown');
      assert.deepEqual(f.transfers, [], 'no body: nothing read from call data');
      assert.ok(codes(f).includes('transaction_body_missing'), details(f).join('; '));
    }
    const trx = derive(fixture(TRON_FIXTURE_TX.trxTransferDocExample));
    assert.equal(trx.blockNumber, 66862205);
    assert.equal(trx.blockTime?.getTime(), 1731236190000);
  });

  test('abridged block 71723395: 1 sun from 41f96c47… to 4155181e…; the USDT call moves 10 USDT from 415a2744… to 413b9f38…', () => {
    const t = factsOf(fixture(TRON_FIXTURE_TX.blockTrxTransfer));
    assert.equal(t.category, 'trx_transfer');
    assert.equal(t.verified, true);
    assert.equal(base58ToHexAddress(t.transfers[0]!.sender!), '41f96c4705e780785f6e46e84da9744105f0c2142a');
    assert.equal(base58ToHexAddress(t.transfers[0]!.recipient!), '4155181e20f78902ed2ff8fc7a75814762887d497b');
    assert.equal(amountOf(t), '0.000001');
    const f = factsOf(fixture(TRON_FIXTURE_TX.blockUsdtTransfer));
    assert.equal(f.category, 'trc20_transfer');
    assert.equal(f.verified, true);
    assert.equal(base58ToHexAddress(f.transfers[0]!.sender!), '415a274493e64a26e6bbf38e86d42192045f4e6881');
    assert.equal(base58ToHexAddress(f.transfers[0]!.recipient!), '413b9f381f7e5017f3966277d00a0ca5adfc563492');
    assert.equal(f.transfers[0]!.tokenContract, USDT_CONTRACT);
    assert.equal(amountOf(f), '10'); // call data and log value 0x989680
  });
});

describe('the state table', () => {
  const evidence = (e: Partial<StateEvidence>): StateEvidence => ({
    found: true,
    lookupsAnswered: true,
    current: true,
    failed: false,
    established: true,
    final: true,
    ...e,
  });

  test('not found only when every lookup answered on a current head; unknown when one of them failed or the head is stale', () => {
    assert.equal(stateOf(evidence({ found: false })), 'not_found');
    assert.equal(stateOf(evidence({ found: false, lookupsAnswered: false })), 'unknown');
    assert.equal(stateOf(evidence({ found: false, current: false })), 'unknown');
  });

  test('failure evidence wins over anything left open; an open state is unknown, never pending or confirmed', () => {
    assert.equal(stateOf(evidence({ failed: true, established: false, final: false })), 'failed');
    assert.equal(stateOf(evidence({ established: false })), 'unknown');
    assert.equal(stateOf(evidence({})), 'confirmed');
    assert.equal(stateOf(evidence({ final: false })), 'pending');
  });
});

describe('state and finality', () => {
  const block = 69316562; // the USDT fixture's block

  test('pending: in a block, not solidified yet', () => {
    const f = factsOf(USDT, { heights: { head: block + 5, solidified: block - 1 } });
    assert.equal(f.state, 'pending');
    assert.equal(f.finalized, false);
    assert.equal(f.confirmations, 6);
    assert.equal(f.category, 'trc20_transfer');
    assert.equal(amountOf(f), '41.677389');
    assert.deepEqual(f.disagreements, []);
  });

  test('19 confirmations with finalized evidence is confirmed; 18 is pending', () => {
    assert.equal(derive(USDT, { heights: { head: block + 18, solidified: block } }).state, 'confirmed');
    const f = derive(USDT, { heights: { head: block + 17, solidified: block } });
    assert.equal(f.confirmations, 18);
    assert.equal(f.finalized, true);
    assert.equal(f.state, 'pending');
  });

  test('a lagging solidity node: 31 confirmations without finalized evidence is pending', () => {
    const f = derive(USDT, { heights: { head: block + 30, solidified: block - 1 } });
    assert.equal(f.confirmations, 31);
    assert.equal(f.finalized, false);
    assert.deepEqual(f.disagreements, [], 'the solidified head is below the block: lag, not a contradiction');
    assert.equal(f.state, 'pending');
  });

  test('broadcast but not in a block: pending, 0 confirmations, contract transfer known', () => {
    const built = trxTransfer(5_000_000, 0);
    const f = factsOf({ transaction: built.transaction, info: null });
    assert.equal(f.state, 'pending');
    assert.equal(f.blockNumber, null);
    assert.equal(f.confirmations, 0);
    assert.equal(f.verified, true);
    assert.equal(amountOf(f), '5');
  });

  test("Confirmations: 0 only on the full node's word that the tx has no info; the solidity node's {} alone is unknown", () => {
    const built = trxTransfer(5_000_000, 0);
    const broadcast = { transaction: built.transaction, info: null };
    const f = factsOf(broadcast, { full: { info: timeout('full', 'gettransactioninfobyid') } });
    assert.equal(f.confirmations, null, 'the solidity node has an info only once solidified');
    assert.equal(factsOf(broadcast, { solidity: { info: timeout('solidity', 'x') } }).confirmations, 0);
  });

  test('ret[0].ret FAILED alone is a failure', () => {
    const built = trxTransfer(5, 70_000_005);
    const f = derive({ transaction: { ...built.transaction, ret: [{ ret: 'FAILED' }] }, info: built.info });
    assert.equal(f.state, 'failed');
    assert.deepEqual(f.transfers, []);
  });

  test('tx info result FAILED alone is a failure', () => {
    const f = derive(trxTransfer(6, 70_000_007, { result: 'FAILED' }));
    assert.equal(f.state, 'failed');
    assert.deepEqual(f.transfers, []);
  });

  test('a failure seen on one node is still a failure', () => {
    const f = derive(fixture(FIXTURES.failedUsdtTx), { full: { transaction: timeout('full', 'gettransactionbyid') } });
    assert.equal(f.state, 'failed');
  });

  test('a contract call whose tx info has no receipt.result: unknown and missing, never confirmed', () => {
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
    const f = derive(built);
    assert.equal(f.state, 'unknown');
    assert.deepEqual(codes(f), ['receipt_result_missing']);
    assert.deepEqual(details(f), ['receipt.result of the contract call']);
    assert.deepEqual(f.disagreements, []);
  });

  test('a tx info without blockNumber: unknown and missing, not clean', () => {
    const built = trxTransfer(8, 70_000_009);
    const { blockNumber: _omitted, ...noBlock } = built.info!;
    const f = derive(built, onBoth({ transaction: built.transaction, info: noBlock }));
    assert.equal(f.blockNumber, null);
    assert.equal(f.confirmations, null);
    assert.equal(f.state, 'unknown');
    assert.deepEqual(codes(f), ['block_number_missing']);
  });

  test('a tx info in a block without blockTimeStamp: missing, so the facts are partial (freshness has no transaction time)', () => {
    const built = trxTransfer(15, 70_000_046);
    const { blockTimeStamp: _omitted, ...noTime } = built.info!;
    const f = derive(built, onBoth({ transaction: built.transaction, info: noTime }));
    assert.equal(f.blockTime, null);
    assert.equal(f.state, 'confirmed', 'the state does not need the time');
    assert.deepEqual(f.missing, [{ code: 'block_time_missing', detail: 'blockTimeStamp of the tx info' }]);
  });

  test('a block time after the observation (beyond a minute of clock skew): not believed, the facts are partial', () => {
    const built = trxTransfer(16, 70_000_047);
    const blockTime = Number(built.info!.blockTimeStamp);
    const ahead = derive(built, { ...onBoth(built), observedAt: new Date(blockTime - BLOCK_TIME_SKEW_MS - 1) });
    assert.deepEqual(codes(ahead), ['block_time_ahead']);
    const skewed = derive(built, { ...onBoth(built), observedAt: new Date(blockTime - BLOCK_TIME_SKEW_MS) });
    assert.deepEqual(codes(skewed), [], 'within the clock skew allowed');
  });

  test('a block time no RFC 3339 date-time can show does not decode: the tx info is unreadable, never a 500', () => {
    const built = trxTransfer(17, 70_000_048);
    for (const blockTimeStamp of [253_402_300_800_000, 9_000_000_000_000_000]) {
      assert.ok(decode(NodeTransactionInfo, { ...built.info!, blockTimeStamp }).isErr(), String(blockTimeStamp));
    }
    assert.ok(decode(NodeTransactionInfo, { ...built.info!, blockTimeStamp: 253_402_300_799_999 }).isOk());
  });

  test('a negative amount in the signed bytes (java-tron refuses one): no transfer, the facts are partial', () => {
    const f = derive(trxTransfer(-5_000_000, 70_000_049));
    assert.deepEqual(f.transfers, []);
    assert.deepEqual(codes(f), ['amount_invalid']);
  });

  test('a head below the tx block: confirmations null, unknown and missing (not 1 confirmation)', () => {
    // The full node serves the tx info of block 71723600 while its head says 71723495.
    const built = trxTransfer(9, 71_723_600);
    const f = derive(built, { full: { transaction: built.transaction, info: built.info } });
    assert.equal(f.confirmations, null);
    assert.equal(f.state, 'unknown');
    assert.deepEqual(details(f), ["confirmations (the nodes' head 71723495 is below the tx block 71723600)"]);
    assert.deepEqual(codes(f), ['head_below_block']);
  });

  test('not found: neither node knows the hash', () => {
    const f = derive({ transaction: null, info: null }, {}, 'ab'.repeat(32));
    assert.equal(f.state, 'not_found');
    assert.equal(f.transactionType, 'unknown');
    assert.equal(f.category, 'unknown');
    assert.equal(f.confirmations, null);
    assert.deepEqual(f.transfers, []);
    assert.deepEqual(f.missing, []);
  });

  test('not found on one node while a lookup failed on the other: unknown, the failed call missing', () => {
    const f = derive(
      { transaction: null, info: null },
      { solidity: { info: timeout('solidity', 'gettransactioninfobyid') } },
    );
    assert.equal(f.state, 'unknown');
    assert.deepEqual(f.missing, [
      { code: 'node_call_failed', detail: 'solidity node gettransactioninfobyid: timeout' },
    ]);
  });

  test('no lookup answered at all: unavailable, not unknown, naming every failed call', () => {
    const failing = (node: 'full' | 'solidity') => ({
      transaction: timeout(node, 'gettransactionbyid'),
      info: timeout(node, 'gettransactioninfobyid'),
    });
    const answers = answersFor(USDT, { full: failing('full'), solidity: failing('solidity') });
    const derived = deriveFacts(TRON_FIXTURE_TX.usdtTransfer, answers, 100);
    assert.ok(derived.isErr());
    assert.deepEqual(derived.error, {
      kind: 'unavailable',
      detail: [
        'full node gettransactionbyid: timeout',
        'full node gettransactioninfobyid: timeout',
        'solidity node gettransactionbyid: timeout',
        'solidity node gettransactioninfobyid: timeout',
      ].join('; '),
    });
  });

  test("failed calls are gaps in call order; the solidity node's head alone does not leave the state open", () => {
    const f = derive(USDT, { solidity: { head: timeout('solidity', 'getnowblock') } });
    assert.deepEqual(f.missing, [{ code: 'node_call_failed', detail: 'solidity node getnowblock: timeout' }]);
    assert.equal(f.state, 'confirmed');
    const g = derive(USDT, { full: { head: timeout('full', 'getnowblock'), info: timeout('full', 'x') } });
    assert.deepEqual(details(g), ['full node x: timeout', 'full node getnowblock: timeout']);
    assert.equal(g.state, 'unknown');
  });
});

describe('disagreements and tampering', () => {
  const usdtTx = USDT.transaction!;
  const usdtInfo = USDT.info!;

  test('nodes disagree on the block', () => {
    const f = derive(USDT, { solidity: { info: { ...usdtInfo, blockNumber: 69316563 } } });
    assert.ok(f.disagreements.some((d) => d.code === 'nodes_disagree' && d.detail.includes('blockNumber')));
  });

  test('the solidity node has a transaction the full node does not know', () => {
    const f = derive(fixture(TRON_FIXTURE_TX.trxTransfer), { full: { transaction: null, info: null } });
    assert.ok(f.disagreements.some((d) => d.code === 'nodes_disagree'));
    assert.equal(f.verified, true, 'the body still verifies');
  });

  // A load-balanced endpoint (TronGrid) can serve these from backends racing near solidification:
  // partial facts that are never confirmed, not a lie.
  test('the solidity node has the tx info but answers {} for the body: missing and unknown, not a disagreement', () => {
    const f = derive(trxTransfer(11, 70_000_013), { solidity: { transaction: null } });
    assert.deepEqual(f.disagreements, []);
    assert.deepEqual(f.missing, [
      { code: 'solidity_node_racing', detail: 'the solidity node has the tx info but answers {} for the transaction' },
    ]);
    assert.equal(f.state, 'unknown');
  });

  test("the solidity node's tx info in a block above its own solidified head: missing and unknown, not a disagreement", () => {
    // Solidified head 71723475 (the default), yet the solidity node serves the tx of block 71723480.
    const built = trxTransfer(12, 71_723_480);
    const f = derive(built, { solidity: { transaction: built.transaction, info: built.info } });
    assert.deepEqual(f.disagreements, []);
    assert.deepEqual(details(f), [
      "the solidity node's tx info is in block 71723480, above its own solidified head 71723475",
    ]);
    assert.deepEqual(codes(f), ['solidity_node_racing']);
    assert.equal(f.state, 'unknown');
  });

  test('a solidity node whose info differs in contents from the full node is still a disagreement', () => {
    const built = trxTransfer(14, 70_000_015);
    const later = { ...built.info, blockTimeStamp: (built.info!.blockTimeStamp as number) + 3000 };
    const f = derive(built, { solidity: { info: later } });
    assert.ok(
      f.disagreements.some((d) => d.code === 'nodes_disagree' && d.detail.includes('blockTimeStamp')),
      JSON.stringify(f.disagreements),
    );
  });

  test("a tampered solidity body is a disagreement even when the full node's body is used", () => {
    const transaction = structuredClone(usdtTx);
    const raw = transaction.raw_data as { contract: { parameter: { value: JsonObject } }[] };
    raw.contract[0]!.parameter.value.owner_address = hex(TXVJ);
    const f = derive(USDT, { solidity: { transaction } });
    assert.equal(f.verified, false);
    const d = f.disagreements.find((x) => x.code === 'raw_data_mismatch');
    assert.ok(
      d && d.detail.startsWith("solidity node's transaction") && d.detail.includes('owner_address'),
      JSON.stringify(f.disagreements),
    );
    assert.equal(f.owner, TL24);
  });

  test('the full node lacks the tx info the solidity node has: a disagreement, not plain confirmed facts', () => {
    const f = derive(trxTransfer(4, 70_000_006), { full: { info: null } });
    assert.ok(
      f.disagreements.some(
        (d) => d.code === 'nodes_disagree' && d.detail === 'the solidity node has the tx info, the full node does not',
      ),
    );
  });

  test('a solidified block without the transaction on the solidity node', () => {
    const f = derive(trxTransfer(1, 70_000_000), { solidity: { transaction: null, info: null } });
    assert.equal(f.finalized, false);
    assert.ok(f.confirmations! >= 19);
    assert.equal(f.state, 'pending', 'confirmations alone never make it confirmed');
    assert.ok(f.disagreements.some((d) => d.code === 'nodes_disagree' && d.detail.includes('solidified')));
  });

  test('tx info for another transaction', () => {
    const other = trxTransfer(2, 70_000_001);
    const victim = trxTransfer(3, 70_000_001);
    const wrongInfo = { ...other.info!, id: TRON_FIXTURE_TX.trxTransfer };
    const f = derive(victim, onBoth({ info: wrongInfo }));
    assert.ok(f.disagreements.some((d) => d.code === 'info_id_mismatch'));
  });

  test('tampered raw_data_hex: sha256 no longer gives the txID', () => {
    const built = trxTransfer(1_000_000, 70_000_002);
    const raw = String(built.transaction!.raw_data_hex);
    // amount 1000000 is the varint c0 84 3d; its last byte 3d → 3e makes it 1016384 (0x3e << 14 | 0x440)
    const tampered = raw.replace('c0843d', 'c0843e');
    assert.notEqual(tampered, raw);
    const f = derive({ transaction: { ...built.transaction, raw_data_hex: tampered }, info: built.info });
    assert.equal(f.verified, false);
    assert.ok(f.disagreements.some((d) => d.code === 'tx_id_mismatch' && d.detail.includes('sha256')));
    assert.ok(f.disagreements.some((d) => d.code === 'raw_data_mismatch' && d.detail.includes('amount')));
    assert.equal(f.transfers[0]!.rawAmount, 1_016_384n, 'transfers come from the bytes, and are flagged');
  });

  test('tampered JSON: the bytes hash correctly but say another amount and recipient', () => {
    const transaction = structuredClone(usdtTx);
    const raw = transaction.raw_data as { contract: { parameter: { value: JsonObject } }[] };
    const value = raw.contract[0]!.parameter.value;
    value.data = String(value.data).replace('027bf24d', '3b9aca00');
    value.owner_address = hex(TXVJ);
    const f = derive(USDT, onBoth({ transaction, info: usdtInfo }));
    assert.equal(f.verified, false);
    const d = f.disagreements.find((x) => x.code === 'raw_data_mismatch');
    assert.ok(d && d.detail.includes('data') && d.detail.includes('owner_address'), JSON.stringify(f.disagreements));
    assert.equal(f.owner, TL24, 'owner from the signed bytes');
  });

  /** `entry`'s body with its JSON (not its bytes) changed, served by both nodes. */
  function withTamperedJson(
    entry: FakeTronTransaction,
    tamper: (contract: JsonObject, value: JsonObject) => void,
  ): ReturnType<typeof derive> {
    const transaction = structuredClone(entry.transaction!);
    const contract = (transaction.raw_data as { contract: JsonObject[] }).contract[0]!;
    tamper(contract, (contract.parameter as { value: JsonObject }).value);
    return derive(entry, { full: { transaction }, solidity: { transaction } });
  }
  const mismatchIn = (f: ReturnType<typeof derive>, field: string) => {
    assert.equal(f.verified, false);
    const d = f.disagreements.find((x) => x.code === 'raw_data_mismatch');
    assert.ok(d && d.detail.split(/differ in |, /).includes(field), `${field}: ${JSON.stringify(f.disagreements)}`);
  };

  test('tampered JSON to_address (TRX): raw_data_mismatch, recipient from the bytes', () => {
    const f = withTamperedJson(fixture(TRON_FIXTURE_TX.trxTransfer), (_, value) => {
      value.to_address = hex(TXVJ);
    });
    mismatchIn(f, 'to_address');
    assert.equal(f.transfers[0]!.recipient, TL24);
  });

  test('tampered JSON contract_address (USDT call): raw_data_mismatch', () => {
    mismatchIn(
      withTamperedJson(USDT, (_, value) => {
        value.contract_address = hex(TXVJ);
      }),
      'contract_address',
    );
  });

  test('tampered JSON contract type: raw_data_mismatch on the type number and type_url', () => {
    const f = withTamperedJson(USDT, (contract) => {
      contract.type = 'TransferAssetContract';
    });
    mismatchIn(f, 'contract type');
    mismatchIn(f, 'type_url');
  });

  test('tampered JSON parameter type_url: raw_data_mismatch', () => {
    mismatchIn(
      withTamperedJson(USDT, (contract) => {
        (contract.parameter as JsonObject).type_url = 'type.googleapis.com/protocol.TransferContract';
      }),
      'type_url',
    );
  });

  test('tampered JSON call_value: raw_data_mismatch', () => {
    mismatchIn(
      withTamperedJson(USDT, (_, value) => {
        value.call_value = 5_000_000;
      }),
      'call_value',
    );
  });

  test('tampered JSON vote address and resource receiver: raw_data_mismatch', () => {
    mismatchIn(
      withTamperedJson(fixture(TRON_FIXTURE_TX.voteWitness), (_, value) => {
        (value.votes as { vote_address: string }[])[0]!.vote_address = hex(TXVJ);
      }),
      'votes.vote_address',
    );
    const delegate = buildTronTransaction({
      contractType: 'DelegateResourceContract',
      parameter: { owner_address: hex(TL24), balance: 1_000_000, receiver_address: hex(TXVJ) },
      blockNumber: 70_000_014,
    });
    mismatchIn(
      withTamperedJson(delegate, (_, value) => {
        value.receiver_address = hex(USDT_CONTRACT);
      }),
      'receiver_address',
    );
  });

  test('txID of another transaction', () => {
    const f = derive({ transaction: usdtTx, info: null }, {}, 'ef'.repeat(32));
    assert.equal(f.verified, false);
    assert.ok(f.disagreements.some((d) => d.code === 'tx_id_mismatch' && d.detail.includes('not the requested hash')));
  });

  test('tampered log on one node: log_mismatch', () => {
    const info = structuredClone(usdtInfo);
    const log = (info.log as { data: string }[])[0]!;
    log.data = log.data.replace('027bf24d', '3b9aca00');
    const f = derive(USDT, { solidity: { info } });
    assert.ok(f.disagreements.some((d) => d.code === 'log_mismatch'));
  });

  test('a body with two contracts (refused by java-tron): a disagreement, never the first contract alone', () => {
    const second = 'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B';
    const built = trxTransfer(1_000_000, 70_000_047);
    const raw = (built.transaction as { raw_data: JsonObject & { contract: JsonObject[] } }).raw_data;
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
    const f = derive({
      transaction: {
        ...built.transaction,
        txID,
        raw_data: { ...raw, contract: [...raw.contract, secondJson] },
        raw_data_hex: rawDataHex,
      },
      info: { ...built.info, id: txID },
    });
    assert.equal(f.verified, false);
    assert.ok(
      f.disagreements.some((d) => d.detail.includes('2 contracts in one transaction')),
      JSON.stringify(f.disagreements),
    );
  });

  test('a body and an info that contradict each other', () => {
    const contradicting = {
      ...usdtInfo,
      receipt: { ...(usdtInfo.receipt as object), result: 'REVERT' },
      contract_address: hex(TXVJ),
    };
    const f = derive(USDT, onBoth({ transaction: usdtTx, info: contradicting }));
    assert.equal(f.state, 'failed', 'any failure evidence wins');
    const text = f.disagreements.map((d) => d.detail).join('; ');
    assert.ok(text.includes('receipt.result REVERT') && text.includes('another contract'), text);
  });
});
