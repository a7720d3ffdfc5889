// Risk evidence end to end: what the providers answer, and what a check may conclude from it. Through
// `handle`, the fake java-tron node and fake Chainalysis over HTTP, the real providers (a host's own
// provider beside them where noted), store-memory.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { combineSanctionsProviders } from '../src/risk/sanctions-combine.js';
import type { AmlProvider, SanctionsProvider } from '../src/risk/signals.js';
import { base58ToHexAddress } from '../src/tron/address.js';
import { buildTronTransaction, transferLog, USDT_CONTRACT } from '../src/testing/fake-tron-fixtures.js';
import { check, json, period, serviceEnvironment } from './runtime-support.js';

const env = serviceEnvironment();
const SIGNER = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';
const PAYER = 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC';
const MERCHANT = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';
const ROUTER = 'TYPG8VeuoVAh2hP7Vfw6ww7vK98nvXXXUG';
const hex = (a: string) => base58ToHexAddress(a)!;
let nonce = 0;

/** A final, successful call by SIGNER whose logs show these USDT transfers ([from, to, raw amount]). */
function usdtTransfers(...transfers: [from: string, to: string, raw: bigint][]): string {
  const tx = buildTronTransaction({
    contractType: 'TriggerSmartContract',
    parameter: { owner_address: hex(SIGNER), contract_address: hex(ROUTER), data: 'deadbeef' },
    blockNumber: env.node.heights.solidified - 5,
    nonce: ++nonce,
    info: {
      receipt: { result: 'SUCCESS' },
      log: transfers.map(([from, to, raw]) => transferLog(USDT_CONTRACT, from, to, raw)),
    },
  });
  env.node.addTransaction(tx);
  return tx.txID;
}

/** SIGNER moves 5 USDT from PAYER (or `payer`) to MERCHANT. */
const payment = (payer = PAYER) => usdtTransfers([payer, MERCHANT, 5_000_000n]);

describe("a provider answering outside its type (a host's own provider) is unavailable, never clean", () => {
  test('the payment as the baseline: CLEAR with complete coverage', async () => {
    const r = json(await check(await env.setup(), payment()));
    assert.equal(r.overall_state, 'CLEAR', JSON.stringify(r.reasons));
    assert.equal(r.coverage, 'complete');
  });

  test('an AML answer of a status of its own ("pending") for the payer: AML unavailable, never CLEAR', async () => {
    const aml: AmlProvider = {
      supportsAsset: (asset) => env.risk.aml.supportsAsset(asset),
      assessAddress: (address, ctx) =>
        address === PAYER ? Promise.resolve({ status: 'pending' } as never) : env.risk.aml.assessAddress(address, ctx),
    };
    const r = json(await check(await env.setup({}, {}, { risk: { ...env.risk, aml } }), payment()));
    assert.equal(r.aml_risk_level, 'unknown');
    assert.ok(r.reasons.some((x: { code: string }) => x.code === 'AML_UNAVAILABLE'));
    assert.equal(r.overall_state, 'LIMITED_DATA');
    assert.equal(r.coverage, 'partial');
  });

  test('a sole sanctions source of a status of its own: SANCTIONS_UNAVAILABLE with a 200 (no invalid as-of, no 500), nothing billed or held', async () => {
    const odd: SanctionsProvider = { screen: () => Promise.resolve({ status: 'error', reason: 'x' } as never) };
    for (const sanctions of [combineSanctionsProviders([odd]), combineSanctionsProviders([env.risk.sanctions, odd])]) {
      const s = await env.setup({}, {}, { risk: { ...env.risk, sanctions } });
      const res = await check(s, payment(), { 'idempotency-key': `odd-sanctions-${nonce}` });
      assert.equal(res.status, 200, res.body);
      const r = json(res);
      assert.equal(r.sanctions_hit, null);
      assert.ok(r.reasons.some((x: { code: string }) => x.code === 'SANCTIONS_UNAVAILABLE'));
      assert.equal(r.overall_state, 'LIMITED_DATA');
      assert.equal(r.coverage, 'partial');
      assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
    }
  });
});

describe('coverage and overall state are independent: a high-risk finding beside missing evidence is partial, not billed', () => {
  test("the payer's AML lookup fails (HTTP 500) while the signer is High: HIGH_RISK, coverage partial, nothing billed", async () => {
    const s = await env.setup();
    env.vendors.setEntity(SIGNER, { risk: 'High' });
    env.vendors.setFault('entity', PAYER, { kind: 'status', status: 500 });
    try {
      const r = json(await check(s, payment()));
      assert.equal(r.overall_state, 'HIGH_RISK');
      assert.equal(r.aml_risk_level, 'high');
      assert.equal(r.coverage, 'partial');
      assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
    } finally {
      env.vendors.setEntity(SIGNER, { risk: 'Low' });
      env.vendors.setFault('entity', PAYER, null);
    }
  });

  test('stale lists hit the payer while the sanctions API is down (503): HIGH_RISK, coverage partial, nothing billed', async () => {
    const SDN = 'TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre'; // the bundled OFAC snapshot, older than the age limit here
    const s = await env.setup();
    env.vendors.setFault('sanctions', '*', { kind: 'status', status: 503 });
    const r = json(await check(s, payment(SDN)));
    assert.equal(r.sanctions_hit, true);
    assert.equal(r.overall_state, 'HIGH_RISK');
    assert.equal(r.coverage, 'partial', 'signer, merchant and token contract were screened by no current source');
    assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
  });

  test("no hit from a screen that says it is incomplete (a host's own provider) is no clean screen: SANCTIONS_UNAVAILABLE", async () => {
    const sanctions: SanctionsProvider = {
      screen: () => Promise.resolve({ status: 'answered', hits: [], asOf: new Date(), incomplete: true }),
    };
    const res = await check(await env.setup({}, {}, { risk: { ...env.risk, sanctions } }), payment());
    assert.equal(res.status, 200, res.body);
    const r = json(res);
    assert.equal(r.sanctions_hit, null);
    assert.equal(r.overall_state, 'LIMITED_DATA');
    assert.equal(r.coverage, 'partial');
  });

  test("a low AML level from an answer that says it is incomplete (a host's own provider) is no clean AML: AML_UNAVAILABLE, nothing billed", async () => {
    const aml: AmlProvider = {
      supportsAsset: (asset) => env.risk.aml.supportsAsset(asset),
      assessAddress: async (address, ctx) => {
        const answer = await env.risk.aml.assessAddress(address, ctx);
        return address === PAYER && answer.status === 'answered' ? { ...answer, incomplete: true } : answer;
      },
    };
    const s = await env.setup({}, {}, { risk: { ...env.risk, aml } });
    const r = json(await check(s, payment()));
    assert.equal(r.aml_risk_level, 'unknown');
    assert.ok(r.reasons.some((x: { code: string }) => x.code === 'AML_UNAVAILABLE'));
    assert.equal(r.overall_state, 'LIMITED_DATA');
    assert.equal(r.coverage, 'partial');
    assert.deepEqual(await period(s), { ...(await period(s)), used: 0, reserved: 0 });
  });

  test('the same stale list hit with the sanctions API answering for every address: complete and billed', async () => {
    const SDN = 'TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre';
    const s = await env.setup();
    const r = json(await check(s, payment(SDN)));
    assert.equal(r.overall_state, 'HIGH_RISK');
    assert.equal(r.coverage, 'complete');
    assert.deepEqual(await period(s), { ...(await period(s)), used: 1, reserved: 0 });
  });
});

describe('AML: whoever pays the recipient in the same transaction is a counterparty of the payment', () => {
  test('a Severe-risk address paying the merchant 1 USDT beside the expected 5 USDT from a clean payer: HIGH_RISK, never CLEAR', async () => {
    const DIRTY = 'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B'; // on no sanctions list
    const s = await env.setup();
    env.vendors.setEntity(DIRTY, { risk: 'Severe', cluster: { name: 'mixer', category: 'mixing' } });
    try {
      const tx = usdtTransfers([DIRTY, MERCHANT, 1_000_000n], [PAYER, MERCHANT, 5_000_000n]);
      const expected = { expected_recipient: MERCHANT, expected_token_contract: USDT_CONTRACT, expected_amount: '5' };
      const r = json(await check(s, tx, {}, expected));
      assert.equal(r.amount_match, true, "the clean payer's transfer is the one selected");
      assert.equal(r.sender, PAYER);
      assert.equal(r.aml_risk_level, 'severe');
      assert.equal(r.overall_state, 'HIGH_RISK');
      assert.ok(r.reasons.some((x: { code: string }) => x.code === 'AML_HIGH'));
    } finally {
      env.vendors.setEntity(DIRTY, { risk: 'Low' });
    }
  });
});
