import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { decode } from '@tron-safety/codec';
import fc from 'fast-check';
import { categoryOf, CONTRACT_TYPES, contractTypeNumber } from '../src/chain/categories.js';
import { LruCache } from '../src/chain/lru.js';
import { createTronChainFactsProvider, type TronChainFactsProvider } from '../src/chain/provider.js';
import { NodeTransaction } from '../src/chain/node-codecs.js';
import { assetIdOf, verifyTransaction } from '../src/chain/verify.js';
import { base58ToHexAddress } from '../src/tron/address.js';
import {
  decodeAbiString,
  decodeCallAccounts,
  decodeDecimals,
  decodeTokenTransferCall,
  encodeAbiString,
  encodeUint256,
  hexToText,
  readTransferLog,
  TRANSFER_EVENT_TOPIC,
} from '../src/tron/abi.js';
import { decodeRawData } from '../src/tron/protobuf.js';
import { buildTronTransaction, startFakeTronNode, type FakeTronNode } from '../src/testing/index.js';
import { fixturePath } from '../src/testing/fixtures.js';

/** The reference's table (shared/reference/tron-api.md §3), written out independently of the code's. */
const REFERENCE_TABLE: [number, string, string][] = [
  [0, 'AccountCreateContract', 'account_operation'],
  [1, 'TransferContract', 'trx_transfer'],
  [2, 'TransferAssetContract', 'trc10_transfer'],
  [3, 'VoteAssetContract', 'voting'],
  [4, 'VoteWitnessContract', 'voting'],
  [5, 'WitnessCreateContract', 'governance'],
  [6, 'AssetIssueContract', 'other'],
  [8, 'WitnessUpdateContract', 'governance'],
  [9, 'ParticipateAssetIssueContract', 'other'],
  [10, 'AccountUpdateContract', 'account_operation'],
  [11, 'FreezeBalanceContract', 'staking'],
  [12, 'UnfreezeBalanceContract', 'staking'],
  [13, 'WithdrawBalanceContract', 'staking'],
  [14, 'UnfreezeAssetContract', 'other'],
  [15, 'UpdateAssetContract', 'other'],
  [16, 'ProposalCreateContract', 'governance'],
  [17, 'ProposalApproveContract', 'governance'],
  [18, 'ProposalDeleteContract', 'governance'],
  [19, 'SetAccountIdContract', 'account_operation'],
  [20, 'CustomContract', 'other'],
  [30, 'CreateSmartContract', 'smart_contract_deploy'],
  [31, 'TriggerSmartContract', 'smart_contract_call'],
  [32, 'GetContract', 'other'],
  [33, 'UpdateSettingContract', 'other'],
  [41, 'ExchangeCreateContract', 'exchange'],
  [42, 'ExchangeInjectContract', 'exchange'],
  [43, 'ExchangeWithdrawContract', 'exchange'],
  [44, 'ExchangeTransactionContract', 'exchange'],
  [45, 'UpdateEnergyLimitContract', 'other'],
  [46, 'AccountPermissionUpdateContract', 'permission_update'],
  [48, 'ClearABIContract', 'other'],
  [49, 'UpdateBrokerageContract', 'governance'],
  [51, 'ShieldedTransferContract', 'other'],
  [52, 'MarketSellAssetContract', 'market'],
  [53, 'MarketCancelOrderContract', 'market'],
  [54, 'FreezeBalanceV2Contract', 'staking'],
  [55, 'UnfreezeBalanceV2Contract', 'staking'],
  [56, 'WithdrawExpireUnfreezeContract', 'staking'],
  [57, 'DelegateResourceContract', 'resource_operation'],
  [58, 'UnDelegateResourceContract', 'resource_operation'],
  [59, 'CancelAllUnfreezeV2Contract', 'staking'],
];

describe('ContractType categories', () => {
  test('every ContractType of java-tron has its number and category', () => {
    assert.equal(Object.keys(CONTRACT_TYPES).length, REFERENCE_TABLE.length);
    for (const [number, name, category] of REFERENCE_TABLE) {
      assert.equal(contractTypeNumber(name), number, name);
      assert.equal(categoryOf(name), category, name);
    }
  });

  test('unknown and future names are other', () => {
    for (const name of ['FancyNewContract', '', 'constructor', 'toString', '__proto__'])
      assert.equal(categoryOf(name), 'other');
  });

  const owner = base58ToHexAddress('TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre')!;
  const build = (name: string, i: number) =>
    buildTronTransaction({
      contractType: name as keyof typeof CONTRACT_TYPES,
      parameter: { owner_address: owner },
      blockNumber: 70_100_000 + i,
      ...(name === 'TriggerSmartContract' || name === 'CreateSmartContract'
        ? { info: { receipt: { result: 'SUCCESS' } } }
        : {}),
    });

  test('a transaction of every type verifies against its raw bytes (type number, type_url, owner)', () => {
    REFERENCE_TABLE.forEach(([, name], i) => {
      const built = build(name, i);
      const decoded = decode(NodeTransaction, built.transaction);
      if (decoded.isErr()) return assert.fail(`${name}: the built body does not decode`);
      const v = verifyTransaction(built.txID, decoded.value);
      assert.equal(v.verified, true, `${name}: ${JSON.stringify(v.disagreements)}`);
    });
  });

  describe('over HTTP', () => {
    let node: FakeTronNode;
    let provider: TronChainFactsProvider;
    before(async () => {
      node = await startFakeTronNode();
      provider = createTronChainFactsProvider({ fullNodeUrl: node.url });
    });
    after(async () => {
      await provider.close();
      await node.close();
    });
    test('one type of each category gets its category through the provider', async () => {
      // One per category keeps this fast; the table test above covers every type.
      const seen = new Set<string>();
      const sample = REFERENCE_TABLE.filter(([, , category]) => !seen.has(category) && seen.add(category));
      const built = sample.map(([, name], i) => build(name, i));
      for (const b of built) node.addTransaction(b);
      const answers = await Promise.all(
        built.map((b) => provider.getTransactionFacts(b.txID, { signal: AbortSignal.timeout(5000) })),
      );
      for (const [i, r] of answers.entries()) {
        const [, name, category] = sample[i]!;
        assert.ok(r.isOk(), name);
        assert.equal(r.value.transactionType, name);
        assert.equal(r.value.category, category, name);
        assert.equal(r.value.verified, true, name);
        assert.equal(r.value.state, 'confirmed', name);
      }
    });
  });
});

describe('ABI decoding', () => {
  test('decimals: a uint word; absurd, short, revert and garbage answers are null', () => {
    assert.equal(decodeDecimals(encodeUint256(6n)), 6);
    assert.equal(decodeDecimals(encodeUint256(18n) + encodeUint256(1n)), 18);
    assert.equal(decodeDecimals(encodeUint256(78n)), null);
    assert.equal(decodeDecimals('ff'.repeat(32)), null);
    assert.equal(decodeDecimals('06'), null);
    assert.equal(decodeDecimals(''), null);
    assert.equal(decodeDecimals('zz'.repeat(32)), null);
    assert.equal(decodeDecimals(`08c379a0${encodeUint256(32n)}`), null);
  });

  test('strings: ABI string, bytes32, and malformed ones', () => {
    assert.equal(decodeAbiString(encodeAbiString('USDT')), 'USDT');
    assert.equal(decodeAbiString(encodeAbiString('Tether USD')), 'Tether USD');
    assert.equal(decodeAbiString(encodeAbiString('Ωmega ✓')), 'Ωmega ✓');
    assert.equal(decodeAbiString(Buffer.from('MKR').toString('hex').padEnd(64, '0')), 'MKR');
    assert.equal(decodeAbiString('00'.repeat(32)), null);
    assert.equal(
      decodeAbiString(`${Buffer.from('MK').toString('hex')}00ff${'0'.repeat(56)}`),
      null,
      'junk after the zero padding',
    );
    assert.equal(decodeAbiString(encodeUint256(64n) + encodeUint256(4n)), null, 'offset past the end');
    assert.equal(
      decodeAbiString(encodeUint256(32n) + encodeUint256(1000n) + '00'.repeat(32)),
      null,
      'length past the end',
    );
    assert.equal(
      decodeAbiString(encodeUint256(32n) + encodeUint256(2n) + 'fffe'.padEnd(64, '0')),
      null,
      'invalid UTF-8',
    );
    assert.equal(decodeAbiString(''), null);
  });

  test('strings: zero bytes ending an ABI string are padding; control characters are shown as U+FFFD, never passed on', () => {
    const abiString = (hex: string) => encodeUint256(32n) + encodeUint256(BigInt(hex.length / 2)) + hex.padEnd(64, '0');
    const text = (s: string) => Buffer.from(s, 'latin1').toString('hex');
    assert.equal(decodeAbiString(abiString(text('USDT\0\0\0'))), 'USDT', 'a bytes32 converted whole');
    assert.equal(decodeAbiString(abiString(text('\0\0'))), null, 'nothing but padding');
    assert.equal(decodeAbiString(abiString(text('USDT\t'))), 'USDT\uFFFD');
    assert.equal(decodeAbiString(abiString(text('US\0DT\r\n'))), 'US\uFFFDDT\uFFFD\uFFFD');
    assert.equal(decodeAbiString(abiString(text('\x7f'))), '\uFFFD', 'DEL');
    assert.equal(decodeAbiString(abiString(Buffer.from('\u009bUSDT').toString('hex'))), '\uFFFDUSDT', 'C1 (CSI)');
    assert.equal(hexToText(text('FIX\x1bT')), 'FIX\uFFFDT', 'TRC10 metadata too');
  });

  test('no input makes a decoder throw', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        decodeAbiString(s);
        decodeDecimals(s);
        decodeTokenTransferCall(s);
        decodeCallAccounts(s);
        readTransferLog([s, s, s], s);
        readTransferLog([s, s, s, s], s);
        decodeRawData(s);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const hex = Buffer.from(bytes).toString('hex');
        decodeAbiString(hex);
        decodeRawData(hex);
      }),
      { numRuns: 300 },
    );
  });

  test('transfer call data: the 41-prefixed address word of the USDT fixture', () => {
    const data =
      'a9059cbb000000000000000000000041ec20315a879c48f5e3a6a1c9826d5225f8b658b800000000000000000000000000000000000000000000000000000000027bf24d';
    assert.deepEqual(decodeTokenTransferCall(data), {
      selector: 'a9059cbb',
      from: null,
      to: 'ec20315a879c48f5e3a6a1c9826d5225f8b658b8',
      amount: 41677389n,
    });
    assert.equal(decodeTokenTransferCall('a9059cbb'), null);
    assert.equal(decodeTokenTransferCall('095ea7b3' + data.slice(8)), null, 'approve is not a transfer');
  });

  test('the accounts a token or NFT call names: transfer, transferFrom, approve, safeTransferFrom, setApprovalForAll', () => {
    const a = '6e3b44b96104b26f84057974a1f0c9880f7c9b13';
    const b = 'ec20315a879c48f5e3a6a1c9826d5225f8b658b8';
    const w = (x: string) => x.padStart(64, '0');
    const one = encodeUint256(1n);
    assert.deepEqual(decodeCallAccounts(`a9059cbb${w(b)}${one}`), [b]);
    assert.deepEqual(decodeCallAccounts(`23b872dd${w(a)}${w(b)}${one}`), [a, b], 'transferFrom: from and to');
    assert.deepEqual(decodeCallAccounts(`095ea7b3${w(b)}${one}`), [b]);
    assert.deepEqual(decodeCallAccounts(`42842e0e${w(a)}${w(b)}${one}`), [a, b], 'ERC-721 safeTransferFrom');
    assert.deepEqual(decodeCallAccounts(`b88d4fde${w(a)}${w(b)}${one}${encodeUint256(128n)}${encodeUint256(0n)}`), [
      a,
      b,
    ]);
    assert.deepEqual(decodeCallAccounts(`f242432a${w(a)}${w(b)}${one}${one}`), [a, b], 'ERC-1155 safeTransferFrom');
    assert.deepEqual(decodeCallAccounts(`a22cb465${w(b)}${one}`), [b], 'setApprovalForAll: the operator');
    assert.deepEqual(
      decodeCallAccounts(`a22cb465${'ff'.repeat(12)}${b}`),
      [b],
      'dirty high bytes: the low 20 bytes, as a masking contract reads them',
    );
    assert.deepEqual(decodeCallAccounts(`23b872dd${w(a)}`), [], 'a missing argument word');
    assert.deepEqual(decodeCallAccounts(`deadbeef${w(a)}`), []);
  });

  test('Transfer logs: three topics and one word; ERC-721 style gives parties but no amount', () => {
    const from = `${'0'.repeat(24)}6e3b44b96104b26f84057974a1f0c9880f7c9b13`;
    const to = `${'0'.repeat(24)}ec20315a879c48f5e3a6a1c9826d5225f8b658b8`;
    assert.equal(readTransferLog([TRANSFER_EVENT_TOPIC, from, to], encodeUint256(5n)).kind, 'transfer');
    assert.deepEqual(readTransferLog([TRANSFER_EVENT_TOPIC, from, to, encodeUint256(5n)], ''), {
      kind: 'token_id',
      from: from.slice(24),
      to: to.slice(24),
    });
    assert.equal(
      readTransferLog([TRANSFER_EVENT_TOPIC, from, `ff${to.slice(2)}`, encodeUint256(5n)], '').kind,
      'malformed',
    );
    assert.equal(
      readTransferLog([TRANSFER_EVENT_TOPIC, from, to, encodeUint256(5n), encodeUint256(6n)], '').kind,
      'malformed',
    );
    assert.equal(readTransferLog([TRANSFER_EVENT_TOPIC], from + to + encodeUint256(5n)).kind, 'malformed');
    assert.equal(
      readTransferLog([TRANSFER_EVENT_TOPIC, `ff${from.slice(2)}`, to], encodeUint256(5n)).kind,
      'malformed',
    );
    assert.equal(readTransferLog(['00'.repeat(32)], '').kind, 'other');
  });
});

describe('protobuf', () => {
  test('the USDT fixture raw bytes decode to the JSON values', () => {
    const record = JSON.parse(
      readFileSync(fixturePath('tron/trc20_usdt_transfer/trongrid_v1_account_transaction_record.json'), 'utf8'),
    ) as { raw_data_hex: string };
    const raw = decodeRawData(record.raw_data_hex)._unsafeUnwrap();
    assert.equal(raw.ref_block_bytes, 'afbf');
    assert.equal(raw.fee_limit, 50_000_000n);
    assert.equal(raw.timestamp, 1738601502223n);
    const c = raw.contract[0]!;
    assert.equal(c.typeNumber, 31);
    assert.equal(c.parameter.type, 'TriggerSmartContract');
    if (c.parameter.type === 'TriggerSmartContract') {
      assert.equal(c.parameter.contract_address, '41a614f803b6fd780986a42c78ec9c7f77e6ded13c');
      assert.equal(c.parameter.owner_address, '416e3b44b96104b26f84057974a1f0c9880f7c9b13');
    }
  });

  test('garbage is an error value', () => {
    assert.ok(decodeRawData('0a').isErr());
    assert.ok(decodeRawData('xyz').isErr());
  });

  test('TRC10 asset names: hex (java-tron) and plain (TronGrid v1) forms', () => {
    assert.equal(assetIdOf('31303035303635'), '1005065');
    assert.equal(assetIdOf('1005065'), '1005065');
    assert.equal(assetIdOf('10050650'), '10050650');
    assert.equal(assetIdOf('abcd'), null);
  });
});

describe('LRU', () => {
  test('keeps the most recently used entries', () => {
    const lru = new LruCache<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    assert.equal(lru.get('a'), 1);
    lru.set('c', 3);
    assert.equal(lru.get('b'), undefined);
    assert.equal(lru.get('a'), 1);
    assert.equal(lru.get('c'), 3);
    assert.equal(lru.size, 2);
    assert.throws(() => new LruCache(0));
  });
});
