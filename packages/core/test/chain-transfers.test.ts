// Transfers by source, category and primary transfer, counterparties and token metadata, from plain
// node answers (no HTTP).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assembleFacts, planTokens } from '../src/chain/assemble.js';
import { deriveFacts } from '../src/chain/derive.js';
import { tokenKey, type TokenMetadata } from '../src/chain/token-metadata.js';
import { contractTransfers } from '../src/chain/transfers/contract.js';
import { internalTransfers } from '../src/chain/transfers/internal.js';
import { askedTransfer, logTransfers } from '../src/chain/transfers/logs.js';
import { categoryAndPrimary } from '../src/chain/transfers/primary.js';
import type { NodeLog } from '../src/chain/node-codecs.js';
import type { ContractView } from '../src/chain/verify.js';
import { base58ToHexAddress, hexToBase58Address } from '../src/tron/address.js';
import { formatAmount } from '../src/tron/amount.js';
import {
  buildTronTransaction,
  internalTransaction,
  transferLog,
  TRON_FIXTURE_TX,
  USDT_CONTRACT,
  type JsonObject,
} from '../src/testing/fake-tron-fixtures.js';
import { answersFor, codes, derive, details, factsOf, FIXTURES, fixture } from './chain-answers.js';

const TL24 = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';
const TXVJ = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';
const hex = (a: string) => base58ToHexAddress(a)!;
const b58 = (h: string) => hexToBase58Address(h)!;
const transferCall = (to: string, amount: bigint) =>
  `a9059cbb${'0'.repeat(24)}${hex(to).slice(2)}${amount.toString(16).padStart(64, '0')}`;

/** A successful contract call of `contract` by TL24… with this data and execution. */
const call = (contract: string, data: string, blockNumber: number, info: JsonObject = {}) =>
  buildTronTransaction({
    contractType: 'TriggerSmartContract',
    parameter: { owner_address: hex(TL24), contract_address: hex(contract), data },
    blockNumber,
    info: { receipt: { result: 'SUCCESS' }, ...info },
  });

describe('transfers by source', () => {
  const view = (v: Partial<ContractView>): ContractView => ({
    type: 'TriggerSmartContract',
    owner: hex(TL24),
    to: null,
    amount: null,
    assetId: null,
    contractAddress: hex(USDT_CONTRACT),
    data: null,
    callValue: 0n,
    callTokenValue: 0n,
    tokenId: null,
    named: [],
    ...v,
  });

  test('contract: a call sends its TRX and TRC10 call value to the contract it calls; an unreadable asset id is a gap', () => {
    const sent = contractTransfers(view({ callValue: 7n, callTokenValue: 3n, tokenId: '1005065' }));
    assert.deepEqual(
      sent.transfers.map((t) => [t.assetType, t.sender, t.recipient, t.rawAmount]),
      [
        ['trx', TL24, USDT_CONTRACT, 7n],
        ['trc10', TL24, USDT_CONTRACT, 3n],
      ],
    );
    const unreadable = contractTransfers(view({ type: 'TransferAssetContract', amount: 5n, to: hex(TXVJ) }));
    assert.deepEqual(unreadable.transfers, []);
    assert.deepEqual(unreadable.gaps, [{ code: 'asset_id_unreadable', detail: 'TRC10 asset id of the transfer' }]);
  });

  test('logs: the first Transfer event of the called contract between the called parties is the asked one', () => {
    const asked = askedTransfer(view({ data: transferCall(TXVJ, 5n) }));
    assert.ok(asked);
    const fee = transferLog(USDT_CONTRACT, TL24, 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC', 1n);
    const other = transferLog('TJzXt1sZautjqXnpjQT4xSCBHNSYgBkDr3', TL24, TXVJ, 5n);
    const paid = transferLog(USDT_CONTRACT, TL24, TXVJ, 4n);
    const read = logTransfers([fee, other, paid, paid] as NodeLog[], asked);
    assert.equal(read.transfers.length, 4);
    assert.equal(read.matching, 2);
    assert.equal(askedTransfer(view({ data: 'deadbeef' })), null, 'not a token transfer call');
  });

  test('internal: rejected calls move nothing but their parties are involved; valued ones are transfers', () => {
    const read = internalTransfers([
      {
        caller_address: hex(USDT_CONTRACT),
        transferTo_address: hex(TXVJ),
        rejected: true,
        callValueInfo: [{ callValue: 9 }],
      },
      {
        caller_address: hex(USDT_CONTRACT),
        transferTo_address: hex(TL24),
        callValueInfo: [{ callValue: 2 }],
        note: '63616c6c',
      },
      { transferTo_address: hex(TL24), callValueInfo: [{}] },
    ]);
    assert.deepEqual(
      read.transfers.map((t) => [t.source, t.recipient, t.rawAmount]),
      [['internal', TL24, 2n]],
    );
    assert.deepEqual(read.involved, [USDT_CONTRACT, TXVJ, USDT_CONTRACT, TL24, TL24]);
    assert.deepEqual(read.gaps, [
      { code: 'internal_transaction_unreadable', detail: 'internal transaction 2: caller address unreadable' },
    ]);
  });

  test("primary: a TRX or TRC10 transfer's own transfer, else the asked-for event, else the only transfer", () => {
    const primary = categoryAndPrimary;
    assert.deepEqual(primary({ category: 'trx_transfer', contractTransfers: 1, asked: null, total: 3 }), {
      category: 'trx_transfer',
      primary: 0,
    });
    assert.deepEqual(primary({ category: 'smart_contract_call', contractTransfers: 1, asked: 2, total: 3 }), {
      category: 'trc20_transfer',
      primary: 2,
    });
    assert.deepEqual(primary({ category: 'smart_contract_call', contractTransfers: 0, asked: null, total: 1 }), {
      category: 'smart_contract_call',
      primary: 0,
    });
    assert.equal(
      primary({ category: 'smart_contract_call', contractTransfers: 0, asked: null, total: 2 }).primary,
      null,
    );
  });
});

describe('transfers', () => {
  test('internal transactions: TRX and TRC10 kept in order, rejected skipped', () => {
    const internal = (hash: string, to: string, extra: JsonObject) => ({
      hash,
      caller_address: hex(USDT_CONTRACT),
      transferTo_address: hex(to),
      note: '63616c6c',
      ...extra,
    });
    const built = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: { owner_address: hex(TL24), contract_address: hex(USDT_CONTRACT), data: 'deadbeef', call_value: 7 },
      blockNumber: 70_000_010,
      info: {
        receipt: { result: 'SUCCESS' },
        internal_transactions: [
          internal('01', TXVJ, { callValueInfo: [{ callValue: 2_500_000 }] }),
          internal('02', TXVJ, { callValueInfo: [{ callValue: 9 }], rejected: true }),
          internal('03', TL24, { callValueInfo: [{ callValue: 42, tokenId: '1005065' }] }),
          internal('04', TL24, { callValueInfo: [{}] }),
        ],
      },
    });
    const f = factsOf(built);
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

  test('internal transactions: only a call, create or suicide moves its value; a staking, resource or vote step pays no one, its parties are screened', () => {
    const [staker, merchant, shop, created] = [
      'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B',
      'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC',
      'TJzXt1sZautjqXnpjQT4xSCBHNSYgBkDr3',
      'TYPG8VeuoVAh2hP7Vfw6ww7vK98nvXXXUG',
    ];
    const step = (note: string, callee: string | undefined, value?: number) =>
      internalTransaction({ note, caller: staker, callee, value });
    const f = derive(
      call(staker, 'deadbeef', 70_000_051, {
        internal_transactions: [
          step('freezeBalanceV2ForEnergy', staker, 100_000_000),
          step('delegateResourceOfEnergy', merchant, 100_000_000),
          step('unDelegateResourceOfBandwidth', shop, 7_000_000),
          step('voteWitness', undefined),
          step('create', created, 1),
          // java-tron adds the expired unfrozen balance to the suicide record and records it again beside it
          step('suicide', TXVJ, 8_000_000),
          step('withdrawExpireUnfreezeWhileSuiciding', TXVJ, 3_000_000),
        ],
      }),
    );
    assert.deepEqual(
      f.transfers.map((t) => [t.source, t.sender, t.recipient, t.rawAmount]),
      [
        ['internal', staker, created, 1n],
        ['internal', staker, TXVJ, 8_000_000n],
      ],
    );
    assert.deepEqual(f.missing, [], 'a vote names no callee, and needs none');
    assert.deepEqual(f.counterparties, [merchant, shop], 'the staker is a transfer party already');
  });

  test('internal transactions: a value under a missing or unknown note is missing evidence, never a transfer', () => {
    const note = (text: string) => Buffer.from(text).toString('hex');
    const valued = (extra: JsonObject) => ({
      caller_address: hex(USDT_CONTRACT),
      transferTo_address: hex(TXVJ),
      callValueInfo: [{ callValue: 5 }],
      ...extra,
    });
    const f = derive(
      call(USDT_CONTRACT, 'deadbeef', 70_000_052, {
        internal_transactions: [
          valued({}),
          valued({ note: note('transfer') }),
          valued({ note: 'call' }),
          { caller_address: hex(USDT_CONTRACT), transferTo_address: hex(TL24), callValueInfo: [{}] },
        ],
      }),
    );
    assert.deepEqual(f.transfers, []);
    assert.deepEqual(details(f), [
      'internal transaction 0: a value with no note, so whether it moved is unknown',
      `internal transaction 1: a value with the unknown note "${note('transfer')}", so whether it moved is unknown`,
      'internal transaction 2: a value with the unknown note "call", so whether it moved is unknown',
    ]);
    assert.deepEqual(f.counterparties, [USDT_CONTRACT, TXVJ], 'parties of every record are screened');
  });

  test('fee-on-transfer: two Transfer logs of the called token, the primary transfer is the one to the payee', () => {
    const feeCollector = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';
    const built = call(USDT_CONTRACT, transferCall(TXVJ, 100n), 70_000_015, {
      log: [transferLog(USDT_CONTRACT, TL24, feeCollector, 2n), transferLog(USDT_CONTRACT, TL24, TXVJ, 98n)],
    });
    const f = derive(built);
    assert.equal(f.category, 'trc20_transfer');
    assert.equal(f.transfers.length, 2);
    assert.equal(f.primaryTransfer, 1);
    assert.equal(f.transfers[1]!.recipient, TXVJ);
    assert.equal(f.transfers[1]!.rawAmount, 98n);
  });

  test('the log, not the call data, gives the amount; a log from another contract is not the token called', () => {
    const fake = 'TJzXt1sZautjqXnpjQT4xSCBHNSYgBkDr3';
    const data = transferCall(TXVJ, 100_000_000n);
    const a = factsOf(
      call(USDT_CONTRACT, data, 70_000_003, { log: [transferLog(USDT_CONTRACT, TL24, TXVJ, 99_000_000n)] }),
    );
    assert.equal(a.category, 'trc20_transfer');
    assert.equal(formatAmount(a.transfers[0]!.rawAmount, a.transfers[0]!.decimals!), '99');
    const b = factsOf(call(USDT_CONTRACT, data, 70_000_003, { log: [transferLog(fake, TL24, TXVJ, 100_000_000n)] }));
    assert.equal(b.category, 'smart_contract_call', 'the called contract emitted no Transfer');
    assert.equal(b.transfers[0]!.tokenContract, fake);
    assert.equal(b.transfers[0]!.decimals, null, 'unknown contract: no metadata');
    assert.equal(b.primaryTransfer, 0, 'the single Transfer log');
  });

  test('a malformed Transfer log is reported missing, not read', () => {
    const f = derive(
      call(USDT_CONTRACT, 'deadbeef', 70_000_004, {
        log: [{ ...transferLog(USDT_CONTRACT, TL24, TXVJ, 5n), data: '05' }],
      }),
    );
    assert.deepEqual(f.transfers, []);
    assert.deepEqual(f.missing, [{ code: 'log_unreadable', detail: 'log 0: Transfer event with an unexpected shape' }]);
  });

  test('an internal transfer whose token id is not a number is neither TRC10 nor TRX: missing', () => {
    const f = derive(
      call(USDT_CONTRACT, 'deadbeef', 70_000_016, {
        internal_transactions: [
          {
            hash: '01',
            caller_address: hex(USDT_CONTRACT),
            transferTo_address: hex(TXVJ),
            callValueInfo: [{ callValue: 3, tokenId: 'abc' }],
            note: '63616c6c',
          },
        ],
      }),
    );
    assert.deepEqual(f.transfers, []);
    assert.deepEqual(details(f), ['internal transaction 0: token id "abc" is not a TRC10 id']);
  });

  test('a transfer whose party cannot be read is kept and reported missing (it cannot be screened)', () => {
    const f = derive(
      call(USDT_CONTRACT, 'deadbeef', 70_000_012, {
        internal_transactions: [
          { hash: '01', transferTo_address: hex(TXVJ), callValueInfo: [{ callValue: 3 }], note: '63616c6c' },
        ],
      }),
    );
    assert.equal(f.transfers[0]!.sender, null);
    assert.equal(f.transfers[0]!.recipient, TXVJ);
    assert.deepEqual(f.missing, [{ code: 'party_unreadable', detail: 'transfer 0: sender unreadable' }]);
    assert.equal(f.state, 'confirmed', 'the state itself is established');
  });

  test('truncation: 150 Transfer logs are cut at the limit (default 100), in order', () => {
    const logs = Array.from({ length: 150 }, (_, i) => transferLog(USDT_CONTRACT, TL24, TXVJ, BigInt(i + 1)));
    const built = call(USDT_CONTRACT, 'deadbeef', 70_000_011, { log: logs });
    const byDefault = derive(built);
    assert.equal(byDefault.transfers.length, 100);
    assert.equal(byDefault.transfersTruncated, true);
    assert.equal(byDefault.transfers[99]!.rawAmount, 100n);
    const small = deriveFacts(built.txID, answersFor(built), 5)._unsafeUnwrap();
    assert.equal(small.transfers.length, 5);
    assert.equal(small.transfersTruncated, true);
    assert.equal(derive(fixture(TRON_FIXTURE_TX.usdtTransfer)).transfersTruncated, false);
    const f = factsOf(built);
    assert.deepEqual(
      f.transfers.map((t) => t.index),
      Array.from({ length: 100 }, (_, i) => i),
    );
  });

  test('a token transfer call without its Transfer event (a "fake deposit"): its effect is missing, never a complete empty list', () => {
    const data = transferCall(TXVJ, 1000n);
    const f = derive(call(b58(`41${'51'.repeat(20)}`), data, 70_000_046));
    assert.equal(f.state, 'confirmed');
    assert.deepEqual(f.transfers, []);
    assert.deepEqual(codes(f), ['transfer_event_missing']);
    // Not yet executed (broadcast, no tx info): nothing could have been emitted, nothing is missing.
    const pending = call(b58(`41${'52'.repeat(20)}`), data, 70_000_048);
    const p = derive({ transaction: pending.transaction, info: null });
    assert.equal(p.state, 'pending');
    assert.deepEqual(p.missing, []);
  });

  test('types that move value without listed transfers (a deployment with call value): the list is marked incomplete', () => {
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
    const f = derive(built);
    assert.deepEqual(f.transfers, []);
    assert.deepEqual(f.missing, [
      { code: 'value_not_listed', detail: 'the value a ParticipateAssetIssueContract moves (not listed as transfers)' },
    ]);
  });
});

describe('token metadata in the facts', () => {
  const read = (decimals: number | null, at: string, complete = true): TokenMetadata => ({
    decimals,
    symbol: decimals === null ? null : 'TKN',
    name: null,
    readAt: new Date(at),
    complete,
  });
  const tokens = ['41', '42', '43'].map((b) => b58(`41${b.repeat(20)}`));
  const built = call(tokens[0]!, 'deadbeef', 70_000_050, {
    log: tokens.map((t, i) => transferLog(t, TL24, TXVJ, BigInt(i + 1))),
  });
  const derived = derive(built);
  const key = (contract: string) => tokenKey({ kind: 'trc20', contractHex: hex(contract) });

  test('each token read once, in transfer order, up to the lookup limit; the rest are missing by name', () => {
    const plan = planTokens([...derived.transfers, ...derived.transfers], 2);
    assert.deepEqual(plan.looked, [
      { kind: 'trc20', contractHex: hex(tokens[0]!) },
      { kind: 'trc20', contractHex: hex(tokens[1]!) },
    ]);
    assert.deepEqual(plan.overLimit, [key(tokens[2]!)]);
    const f = assembleFacts(derived, plan, new Map());
    assert.deepEqual(f.missing, [
      { code: 'token_lookup_limit', detail: `token metadata of ${key(tokens[2]!)} (lookup limit)` },
    ]);
  });

  test('a token no node answered about: decimals null and missing, and no read time (tokenDataAt is the oldest answered read)', () => {
    const table = new Map([
      [key(tokens[0]!), read(6, '2026-11-21T10:00:00Z')],
      [key(tokens[1]!), read(null, '2026-11-21T09:00:00Z', false)],
      [key(tokens[2]!), read(18, '2026-11-21T11:00:00Z')],
    ]);
    const f = assembleFacts(derived, planTokens(derived.transfers, 20), table);
    assert.deepEqual(
      f.transfers.map((t) => [t.index, t.decimals, t.tokenSymbol]),
      [
        [0, 6, 'TKN'],
        [1, null, null],
        [2, 18, 'TKN'],
      ],
    );
    assert.deepEqual(f.missing, [
      {
        code: 'token_metadata_unavailable',
        detail: `token metadata of ${key(tokens[1]!)} (no usable answer from the nodes)`,
      },
    ]);
    assert.equal(f.tokenDataAt?.toISOString(), '2026-11-21T10:00:00.000Z', 'the unanswered 09:00 attempt read nothing');
  });
});

describe('counterparties', () => {
  test('votes: the voted witness; staking and withdraw: nobody besides the owner', () => {
    assert.deepEqual(derive(fixture(TRON_FIXTURE_TX.voteWitness)).counterparties, [
      b58('414ce8225c8ea6c8e1e0a483132211610c765fc6df'),
    ]);
    for (const hash of [
      TRON_FIXTURE_TX.freezeBalanceV2,
      TRON_FIXTURE_TX.unfreezeBalanceV1,
      TRON_FIXTURE_TX.withdrawBalance,
    ]) {
      assert.deepEqual(derive(fixture(hash)).counterparties, [], hash);
    }
  });

  test('transfers: the called contract beside the token transfer parties; a TRX transfer names only its parties', () => {
    assert.deepEqual(
      derive(fixture(TRON_FIXTURE_TX.usdtTransfer)).counterparties,
      [USDT_CONTRACT],
      'TXVj… is the transfer recipient already',
    );
    assert.deepEqual(derive(fixture(TRON_FIXTURE_TX.trxTransfer)).counterparties, []);
    const failed = derive(fixture(FIXTURES.failedUsdtTx));
    assert.deepEqual(failed.transfers, []);
    assert.deepEqual(failed.counterparties, [USDT_CONTRACT, TXVJ], 'a failed transfer() still names its recipient');
  });

  test('a value-less approve() call: the contract and the spender', () => {
    const spender = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';
    const f = derive(
      call(USDT_CONTRACT, `095ea7b3${'0'.repeat(24)}${hex(spender).slice(2)}${'f'.repeat(64)}`, 70_000_030),
    );
    assert.equal(f.state, 'confirmed');
    assert.deepEqual(f.transfers, []);
    assert.deepEqual(f.counterparties, [USDT_CONTRACT, spender]);
  });

  test('resource delegation: the receiver, from the signed bytes; the owner is never listed', () => {
    for (const [contractType, blockNumber] of [
      ['DelegateResourceContract', 70_000_031],
      ['UnDelegateResourceContract', 70_000_032],
    ] as const) {
      const f = derive(
        buildTronTransaction({
          contractType,
          parameter: { owner_address: hex(TL24), balance: 1_000_000, receiver_address: hex(TXVJ) },
          blockNumber,
        }),
      );
      assert.equal(f.verified, true, contractType);
      assert.equal(f.category, 'resource_operation');
      assert.deepEqual(f.counterparties, [TXVJ], contractType);
    }
    const self = buildTronTransaction({
      contractType: 'DelegateResourceContract',
      parameter: { owner_address: hex(TL24), balance: 1, receiver_address: hex(TL24) },
      blockNumber: 70_000_033,
    });
    assert.deepEqual(derive(self).counterparties, []);
  });

  test('raw bytes that do not decode: no counterparties from the unverified JSON', () => {
    const built = buildTronTransaction({
      contractType: 'DelegateResourceContract',
      parameter: { owner_address: hex(TL24), balance: 2, receiver_address: hex(TXVJ) },
      blockNumber: 70_000_034,
    });
    const f = derive({ transaction: { ...built.transaction, raw_data_hex: 'ff' }, info: built.info });
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
    const nftCall = (data: string, blockNumber: number, info: JsonObject = {}) =>
      derive(call(NFT, data, blockNumber, info));
    const nftLog = (emitter: string, from: string, to: string) => ({
      address: hex(emitter).slice(2),
      topics: [transferLog(emitter, from, to, 0n).topics, id7].flat(),
      data: '',
    });

    test('safeTransferFrom, transferFrom and setApprovalForAll: every address argument, from the signed call data', () => {
      const cases: [string, string, string[]][] = [
        ['safeTransferFrom(A, B, 7)', `42842e0e${word(A)}${word(B)}${id7}`, [NFT, A, B]],
        ['transferFrom(A, owner, 7)', `23b872dd${word(A)}${word(TL24)}${id7}`, [NFT, A]],
        ['setApprovalForAll(A, true)', `a22cb465${word(A)}${1n.toString(16).padStart(64, '0')}`, [NFT, A]],
      ];
      for (const [i, [name, data, expected]] of cases.entries()) {
        const f = nftCall(data, 70_000_040 + i);
        assert.equal(f.state, 'confirmed', name);
        assert.deepEqual(f.transfers, [], name);
        assert.deepEqual(f.counterparties, expected, name);
      }
    });

    test('an ERC-721 Transfer log (four topics): its parties and emitter are counterparties, not a transfer; other logs: their emitter', () => {
      const otherLog = {
        address: hex(E).slice(2),
        topics: ['8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925'],
        data: '',
      };
      const f = nftCall('deadbeef', 70_000_043, { log: [nftLog(NFT2, C, D), otherLog] });
      assert.equal(f.state, 'confirmed');
      assert.deepEqual(f.missing, []);
      assert.deepEqual(f.transfers, []);
      assert.deepEqual(f.counterparties, [NFT, NFT2, C, D, E]);
    });

    test('internal transactions: a value-less one names caller and callee; a rejected one too, moving nothing; a valued one is a transfer', () => {
      const internal = (to: string, extra: JsonObject) => ({
        hash: 'ab'.repeat(32),
        caller_address: hex(NFT2),
        transferTo_address: hex(to),
        note: '63616c6c',
        ...extra,
      });
      const f = nftCall('deadbeef', 70_000_044, {
        internal_transactions: [
          internal(A, { callValueInfo: [{}] }),
          internal(B, { callValueInfo: [{}], rejected: true }),
          internal(C, { callValueInfo: [{ callValue: 5 }] }),
        ],
      });
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

  test('AccountPermissionUpdateContract: the owner, witness and active keys, from the signed bytes; a JSON key that differs is a mismatch', () => {
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
    const f = derive(built);
    assert.deepEqual(f.disagreements, []);
    assert.equal(f.verified, true);
    assert.equal(f.category, 'permission_update');
    assert.deepEqual(f.counterparties, [W, K1, K2]);

    // The node's JSON shows another active key than the signed bytes.
    const json = structuredClone(built.transaction) as {
      raw_data: { contract: { parameter: { value: { actives: { keys: { address: string }[] }[] } } }[] };
    };
    json.raw_data.contract[0]!.parameter.value.actives[1]!.keys[0]!.address = hex(TXVJ);
    const tampered = derive(built, { full: { transaction: json }, solidity: { transaction: json } });
    assert.ok(
      tampered.disagreements.some((d) => d.code === 'raw_data_mismatch' && d.detail.includes('actives.keys.address')),
      JSON.stringify(tampered.disagreements),
    );
    assert.deepEqual(tampered.counterparties, [W, K1, K2], 'from the signed bytes, not the JSON');
  });

  test('AccountUpdateContract: the owner is field 2 of its parameter, and verifies', () => {
    const f = derive(
      buildTronTransaction({
        contractType: 'AccountUpdateContract',
        parameter: { account_name: Buffer.from('merchant').toString('hex'), owner_address: hex(TL24) },
        blockNumber: 70_000_035,
      }),
    );
    assert.deepEqual(f.disagreements, []);
    assert.equal(f.verified, true);
    assert.equal(f.owner, TL24);
  });
});
