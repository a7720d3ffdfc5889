// Expected-payment matching end to end: a payment received is value a transaction moved to the
// expected recipient, as java-tron records it. Through `handle`, the fake java-tron node and fake
// Chainalysis over HTTP, the real providers, store-memory.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { base58ToHexAddress } from '../src/tron/address.js';
import {
  buildTronTransaction,
  internalTransaction,
  transferLog,
  USDT_CONTRACT,
  type JsonObject,
} from '../src/testing/fake-tron-fixtures.js';
import { check, json, serviceEnvironment } from './runtime-support.js';

const env = serviceEnvironment();
const PAYER = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';
const MERCHANT = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';
/** A merchant's payment gateway: a contract with a public function that moves its own funds to itself. */
const GATEWAY = 'TYPG8VeuoVAh2hP7Vfw6ww7vK98nvXXXUG';
/** A contract with 100 TRX staked for energy, which it can delegate. */
const STAKER = 'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B';
const hex = (a: string) => base58ToHexAddress(a)!;
let nonce = 0;

/** A successful call of `contract` by PAYER whose execution left this tx info. */
function contractCall(contract: string, info: JsonObject): string {
  const tx = buildTronTransaction({
    contractType: 'TriggerSmartContract',
    parameter: { owner_address: hex(PAYER), contract_address: hex(contract), data: '5c19a95c' },
    blockNumber: env.node.heights.solidified - 5,
    nonce: ++nonce,
    info: { receipt: { result: 'SUCCESS' }, contract_address: hex(contract), ...info },
  });
  env.node.addTransaction(tx);
  return tx.txID;
}

const stakerSteps = (...steps: [note: string, callee?: string, value?: number][]) =>
  contractCall(STAKER, {
    internal_transactions: steps.map(([note, callee, value]) =>
      internalTransaction({ note, caller: STAKER, callee, value }),
    ),
  });

const outcome = (b: Record<string, any>) =>
  JSON.stringify({
    overall: b.overall_state,
    match: [b.recipient_match, b.amount_match],
    transfers: b.transfers.map((t: Record<string, unknown>) => [t.asset_type, t.recipient, t.amount]),
  });

describe('Matching: a payment received is value moved to the expected recipient', () => {
  test("a contract's staking or resource delegation to the recipient is no TRX paid: never CLEAR, never listed", async () => {
    const s = await env.setup();
    const delegations = {
      delegated: stakerSteps(['delegateResourceOfEnergy', MERCHANT, 100_000_000]),
      'frozen, then delegated': stakerSteps(
        ['freezeBalanceV2ForEnergy', STAKER, 100_000_000],
        ['delegateResourceOfEnergy', MERCHANT, 100_000_000],
      ),
      'taken back': stakerSteps(['unDelegateResourceOfEnergy', MERCHANT, 100_000_000]),
    };
    for (const [name, hash] of Object.entries(delegations)) {
      const b = json(await check(s, hash, {}, { expected_recipient: MERCHANT, expected_amount: '100' }));
      assert.notEqual(b.overall_state, 'CLEAR', `${name}: ${outcome(b)}`);
      assert.notEqual(b.amount_match, true, `${name}: ${outcome(b)}`);
      assert.deepEqual(b.transfers, [], `${name}: no TRX moved`);
    }
  });

  test("TRX a contract's internal call sent to the recipient is a payment, beside the contract's vote: CLEAR", async () => {
    const s = await env.setup();
    const hash = stakerSteps(['voteWitness'], ['call', MERCHANT, 100_000_000]);
    const b = json(await check(s, hash, {}, { expected_recipient: MERCHANT, expected_amount: '100' }));
    assert.equal(b.overall_state, 'CLEAR', outcome(b));
    assert.equal(b.coverage, 'complete', 'a vote names no callee, and needs none');
    assert.deepEqual([b.recipient, b.amount], [MERCHANT, '100']);
  });

  test('a transfer from the recipient to itself is not paid to it, whoever triggered it: never CLEAR', async () => {
    const s = await env.setup();
    const selfPaid = {
      'USDT Transfer(gateway → gateway)': {
        hash: contractCall(GATEWAY, { log: [transferLog(USDT_CONTRACT, GATEWAY, GATEWAY, 10_000_000n)] }),
        expected: { expected_recipient: GATEWAY, expected_token_contract: USDT_CONTRACT, expected_amount: '10' },
      },
      'internal call gateway → gateway': {
        hash: contractCall(GATEWAY, {
          internal_transactions: [
            internalTransaction({ note: 'call', caller: GATEWAY, callee: GATEWAY, value: 10_000_000 }),
          ],
        }),
        expected: { expected_recipient: GATEWAY, expected_amount: '10' },
      },
    };
    for (const [name, { hash, expected }] of Object.entries(selfPaid)) {
      const b = json(await check(s, hash, {}, expected));
      assert.equal(b.overall_state, 'REVIEW', `${name}: ${outcome(b)}`);
      assert.equal(b.recipient_match, false, `${name}: ${outcome(b)}`);
      assert.ok(
        b.reasons.some((r: { code: string }) => r.code === 'EXPECTED_RECIPIENT_MISMATCH'),
        name,
      );
      assert.equal(b.transfers.length, 1, `${name}: still listed`);
    }
  });

  test('rule 8: a TRX amount at int64 max is read exactly from the signed bytes; one sun less is a mismatch', async () => {
    const s = await env.setup();
    const tx = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(PAYER), to_address: hex(MERCHANT), amount: 9_223_372_036_854_775_807n },
      blockNumber: env.node.heights.solidified - 5,
      nonce: ++nonce,
    });
    env.node.addTransaction(tx);
    const all = json(
      await check(s, tx.txID, {}, { expected_recipient: MERCHANT, expected_amount: '9223372036854.775807' }),
    );
    assert.equal(all.amount, '9223372036854.775807');
    assert.equal(all.overall_state, 'CLEAR', outcome(all));
    const less = json(
      await check(s, tx.txID, {}, { expected_recipient: MERCHANT, expected_amount: '9223372036854.775806' }),
    );
    assert.equal(less.amount_match, false, outcome(less));
  });
});
