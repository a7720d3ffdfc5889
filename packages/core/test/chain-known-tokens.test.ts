// The registry's tokens are seeded metadata (a cold USDT check reads none) that the chain confirms off
// the checks' path: at warm-up and every tokenCacheMs. The real service over HTTP: a fake java-tron node
// and fake Chainalysis servers on 127.0.0.1, store-memory.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { knownTokensOf, REGISTRY_KNOWN_TOKENS } from '../src/chain/known-tokens.js';
import {
  createTronChainFactsProvider,
  type KnownTokenDisagreement,
  type TronChainFactsProviderOptions,
} from '../src/chain/provider.js';
import type { TransactionCheckRequest, TransactionCheckResponse } from '../src/contract/models.js';
import { OFFICIAL_TOKENS_AS_OF, type OfficialTokenData } from '../src/risk/data/official-tokens.js';
import { createRiskProviders } from '../src/risk/providers.js';
import type { RiskProviders } from '../src/risk/signals.js';
import { createSafetyService } from '../src/runtime/service.js';
import { currentOfacList } from '../src/testing/fake-ofac.js';
import {
  buildTronTransaction,
  transferLog,
  TRON_FIXTURE_TX,
  USDT_CONTRACT,
} from '../src/testing/fake-tron-fixtures.js';
import { base58ToHexAddress } from '../src/tron/address.js';
import { startFakeTronNode, type FakeTronCall, type FakeTronNode } from '../src/testing/fake-tron-node.js';
import { startFakeChainalysis, type FakeChainalysis } from '../src/testing/fake-vendors.js';
import { seedTenant } from '../src/testing/service-harness.js';

const REGISTRY_AS_OF = new Date(OFFICIAL_TOKENS_AS_OF).toISOString();
const PAYER = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';
const hex = (address: string) => base58ToHexAddress(address)!;
const USDT_PAYMENT: TransactionCheckRequest = {
  tx_hash: TRON_FIXTURE_TX.usdtTransfer,
  network: 'tron',
  expected_recipient: 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx',
  expected_token_contract: USDT_CONTRACT,
  expected_amount: '41.677389',
};

let vendors: FakeChainalysis;
let risk: RiskProviders;
/** The risk providers, with a deployment's own tokens in the registry. */
const riskWith = (extraTokens: OfficialTokenData[]) =>
  createRiskProviders({
    chainalysisApiUrl: vendors.entityUrl,
    chainalysisApiKey: 'k',
    ofacList: { current: () => currentOfacList() },
    extraTokens,
  })._unsafeUnwrap();
before(async () => {
  vendors = await startFakeChainalysis();
  risk = riskWith([]);
});
after(() => vendors.close());

/** A fresh fake node, a chain provider on it (not warmed up) and the service over both. */
async function setup(options: Partial<TronChainFactsProviderOptions> = {}, providers: RiskProviders = risk) {
  const node = await startFakeTronNode();
  const disagreements: KnownTokenDisagreement[] = [];
  const chain = createTronChainFactsProvider({
    fullNodeUrl: node.url,
    retry: { attempts: 1 },
    onKnownTokenDisagrees: (d) => disagreements.push(d),
    ...options,
  });
  const service = createSafetyService(createMemoryStores(), { chain, risk: providers });
  const { apiKey } = await seedTenant(service);
  const check = async (request: TransactionCheckRequest) => {
    const answer = await service.check({ apiKey, request });
    assert.ok(answer.ok, JSON.stringify(answer.body));
    return answer.body as TransactionCheckResponse;
  };
  const close = async () => {
    await service.close({ timeoutMs: 100 });
    await chain.close();
    await node.close();
  };
  return { node, chain, disagreements, check, close };
}

const metadataCalls = (node: FakeTronNode): FakeTronCall[] =>
  node.calls.filter((c) => c.path === 'triggerconstantcontract');
const codes = (body: TransactionCheckResponse) => body.reasons.map((r) => r.code);
const until = async (what: string, done: () => boolean | Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('Known tokens: the chain confirms the seeded registry metadata off the check path', () => {
  test('warm-up confirms every registry token, a few at a time, once for concurrent warm-ups; a cold check then reads no metadata and dates its token data at the confirmation', async () => {
    const s = await setup();
    try {
      const cold = await s.check(USDT_PAYMENT);
      assert.equal(cold.freshness.token_data_at, REGISTRY_AS_OF, 'not confirmed yet: the registry date');
      const startedAt = Date.now();
      const slow = s.node.fault({ path: 'triggerconstantcontract', fault: { kind: 'latency', ms: 30 } });
      await Promise.all([s.chain.warmUp(), s.chain.warmUp()]);
      slow();
      const calls = metadataCalls(s.node);
      assert.equal(calls.length, 3 * REGISTRY_KNOWN_TOKENS.length, 'decimals(), symbol(), name() of each, once');
      const inFlight = (at: number) => calls.filter((o) => o.startedAt <= at && at < o.finishedAt!).length;
      const most = Math.max(...calls.map((c) => inFlight(c.startedAt)));
      assert.ok(most <= 12, `at most 4 tokens (12 calls) at once, saw ${most}`);
      assert.deepEqual(s.disagreements, [], 'the fake mainnet agrees with the registry');

      s.node.clearCalls();
      const body = await s.check(USDT_PAYMENT);
      assert.equal(metadataCalls(s.node).length, 0, 'no metadata call on the check path');
      assert.equal(body.overall_state, 'CLEAR');
      assert.ok(Date.parse(body.freshness.token_data_at!) >= startedAt, body.freshness.token_data_at!);
    } finally {
      await s.close();
    }
  });

  test('before the first confirmation the token data is as of the registry date; a round the node failed is tried again', async () => {
    const s = await setup({ tokenCacheMs: 1000 });
    try {
      const down = s.node.fault({ path: 'triggerconstantcontract', fault: { kind: 'status', status: 503 } });
      await s.chain.warmUp();
      const unconfirmed = await s.check(USDT_PAYMENT);
      assert.equal(unconfirmed.freshness.token_data_at, REGISTRY_AS_OF, 'honest: not confirmed');
      assert.equal(unconfirmed.amount, '41.677389', 'the seed still serves the registry values');
      down();
      const tokenDataAt = async () =>
        (await s.chain.getTransactionFacts(USDT_PAYMENT.tx_hash, { signal: AbortSignal.timeout(5000) }))
          ._unsafeUnwrap()
          .tokenDataAt!.toISOString();
      await until('the next round confirms', async () => (await tokenDataAt()) !== REGISTRY_AS_OF);
      const confirmed = await s.check(USDT_PAYMENT);
      assert.ok(Date.parse(confirmed.freshness.token_data_at!) > Date.parse(REGISTRY_AS_OF));
    } finally {
      await s.close();
    }
  });

  test('decimals the chain contradicts end the seed: the check reads the chain, TX_FACTS_DISAGREE, that token has no amounts', async () => {
    const s = await setup();
    try {
      s.node.setToken(USDT_CONTRACT, { decimals: 18, symbol: 'USDT', name: 'Tether USD' });
      await s.chain.warmUp();
      assert.deepEqual(s.disagreements, [
        { contract: USDT_CONTRACT, known: { symbol: 'USDT', decimals: 6 }, chain: { symbol: 'USDT', decimals: 18 } },
      ]);
      const body = await s.check(USDT_PAYMENT);
      assert.equal(body.overall_state, 'LIMITED_DATA');
      assert.ok(codes(body).includes('TX_FACTS_DISAGREE'), codes(body).join());
      assert.deepEqual([body.decimals, body.amount, body.amount_match], [null, null, null]);
      assert.ok(body.transfers.every((t) => t.amount === null));
    } finally {
      await s.close();
    }
  });

  test('a token that changes after its confirmation is caught by the next round, tokenCacheMs later', async () => {
    const s = await setup({ tokenCacheMs: 1000 });
    try {
      await s.chain.warmUp();
      assert.equal((await s.check(USDT_PAYMENT)).overall_state, 'CLEAR');
      s.node.setToken(USDT_CONTRACT, { decimals: 8, symbol: 'USDT', name: 'Tether USD' });
      await until('the next round finds the change', () => s.disagreements.length > 0);
      const body = await s.check(USDT_PAYMENT);
      assert.ok(codes(body).includes('TX_FACTS_DISAGREE'), codes(body).join());
      assert.equal(body.amount_match, null, 'never matched at a rescaled amount');
    } finally {
      await s.close();
    }
  });

  test('a symbol the chain contradicts ends the seed too: the token is shown as the chain names it', async () => {
    const s = await setup();
    try {
      s.node.setToken(USDT_CONTRACT, { decimals: 6, symbol: 'USDT2', name: 'Tether USD v2' });
      await s.chain.warmUp();
      assert.deepEqual(s.disagreements[0]?.chain, { symbol: 'USDT2', decimals: 6 });
      const facts = await s.chain.getTransactionFacts(TRON_FIXTURE_TX.usdtTransfer, {
        signal: AbortSignal.timeout(5000),
      });
      assert.deepEqual(
        [facts._unsafeUnwrap().transfers[0]!.tokenSymbol, facts._unsafeUnwrap().transfers[0]!.tokenName],
        ['USDT2', 'Tether USD v2'],
      );
    } finally {
      await s.close();
    }
  });

  test('status(): a registry token is stale when the first round could not confirm it, or once its confirmation is overdue (twice tokenCacheMs)', async () => {
    const s = await setup({ tokenCacheMs: 1000 });
    const usdt = () => s.chain.status().knownTokens.find((t) => t.contract === USDT_CONTRACT)!;
    try {
      assert.deepEqual([usdt().state, usdt().stale], ['unconfirmed', false], 'no round yet');
      assert.equal(usdt().servedAsOf?.toISOString(), REGISTRY_AS_OF);
      const down = s.node.fault({ path: 'triggerconstantcontract', fault: { kind: 'status', status: 503 } });
      await s.chain.warmUp();
      assert.deepEqual([usdt().state, usdt().stale], ['unconfirmed', true], 'the round ended without confirming it');
      down();
      await until('a round confirms it', () => usdt().state === 'confirmed');
      assert.equal(usdt().stale, false);
      const confirmedAt = usdt().servedAsOf!.getTime();
      s.node.fault({ path: 'triggerconstantcontract', fault: { kind: 'status', status: 503 } });
      await until('its confirmation is overdue', () => usdt().stale);
      assert.ok(Date.now() - confirmedAt > 2000, 'not before twice the period');
      assert.equal(usdt().servedAsOf!.getTime(), confirmedAt, 'still served as of its last confirmation');
    } finally {
      await s.close();
    }
  });

  test('close() ends the confirmations: no round after it', async () => {
    const node = await startFakeTronNode();
    try {
      const chain = createTronChainFactsProvider({ fullNodeUrl: node.url, tokenCacheMs: 1000 });
      await chain.warmUp();
      await chain.close();
      const count = node.calls.length;
      await new Promise((r) => setTimeout(r, 1300));
      assert.equal(node.calls.length, count);
    } finally {
      await node.close();
    }
  });
});

describe("Known tokens: a deployment's own tokens are served only once the chain agreed with them", () => {
  const ACME = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
  const ON_CHAIN = { decimals: 6, symbol: 'ACME', name: 'Acme' };
  /** A TRC20 payment of 100 raw units of ACME (0.0001 on chain), and a request expecting "100". */
  const payment = (node: FakeTronNode): TransactionCheckRequest => {
    const to = hex(USDT_PAYMENT.expected_recipient!);
    const built = buildTronTransaction({
      contractType: 'TriggerSmartContract',
      parameter: {
        owner_address: hex(PAYER),
        contract_address: hex(ACME),
        data: `a9059cbb${'0'.repeat(24)}${to.slice(2)}${100n.toString(16).padStart(64, '0')}`,
      },
      blockNumber: 70_000_500,
      info: { receipt: { result: 'SUCCESS' }, log: [transferLog(ACME, PAYER, USDT_PAYMENT.expected_recipient!, 100n)] },
    });
    node.addTransaction(built);
    return { ...USDT_PAYMENT, tx_hash: built.txID, expected_token_contract: ACME, expected_amount: '100' };
  };
  const own = (decimals: number) => {
    const token = { contract: ACME, symbol: 'ACME', name: 'Acme', decimals };
    const knownTokens = [...REGISTRY_KNOWN_TOKENS, ...knownTokensOf([token], new Date())];
    return [{ knownTokens }, riskWith([token])] as const;
  };

  test('wrong decimals (a registry file saying 0 for a 6-decimal token) are never CLEAR: unreadable metadata is LIMITED_DATA, a cold check reads the chain and is TX_FACTS_DISAGREE, the confirmation is heard as a disagreement', async () => {
    const s = await setup(...own(0));
    try {
      s.node.setToken(ACME, ON_CHAIN);
      const request = payment(s.node);
      const down = s.node.fault({ path: 'triggerconstantcontract', fault: { kind: 'status', status: 503 } });
      const blind = await s.check(request);
      down();
      assert.equal(blind.overall_state, 'LIMITED_DATA', 'the seed is not served before the chain confirmed it');
      assert.deepEqual([blind.amount, blind.amount_match], [null, null]);

      const cold = await s.check(request);
      assert.equal(cold.overall_state, 'LIMITED_DATA');
      assert.ok(codes(cold).includes('TX_FACTS_DISAGREE'), codes(cold).join());
      assert.deepEqual([cold.amount, cold.amount_match], [null, null]);

      await s.chain.warmUp();
      assert.deepEqual(s.disagreements, [
        { contract: ACME, known: { symbol: 'ACME', decimals: 0 }, chain: { symbol: 'ACME', decimals: 6 } },
      ]);
      const confirmed = await s.check(request);
      assert.ok(codes(confirmed).includes('TX_FACTS_DISAGREE'), codes(confirmed).join());
    } finally {
      await s.close();
    }
  });

  test('an own token the chain agrees with is read on a cold check, then served without a call once confirmed', async () => {
    const s = await setup(...own(6));
    try {
      s.node.setToken(ACME, ON_CHAIN);
      const request = { ...payment(s.node), expected_amount: '0.0001' };
      const startedAt = Date.now();
      const cold = await s.check(request);
      assert.equal(metadataCalls(s.node).length, 3, 'decimals(), symbol(), name() from the chain');
      assert.equal(cold.overall_state, 'CLEAR');
      assert.ok(Date.parse(cold.freshness.token_data_at!) >= startedAt, 'dated by the reading');
      await s.chain.warmUp();
      assert.deepEqual(s.disagreements, []);
      s.node.clearCalls();
      assert.equal((await s.check(request)).overall_state, 'CLEAR');
      assert.equal(metadataCalls(s.node).length, 0, 'confirmed: served from its seed');
    } finally {
      await s.close();
    }
  });
});

describe('Freshness: max_source_age_seconds stays usable', () => {
  test('after warm-up a registry-token payment and a TRX payment are seconds old, whatever the registry date', async () => {
    const s = await setup();
    try {
      await s.chain.warmUp();
      for (const request of [USDT_PAYMENT, { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' as const }]) {
        const body = await s.check(request);
        assert.equal(body.overall_state, 'CLEAR', request.tx_hash);
        assert.notEqual(body.freshness.token_data_at, REGISTRY_AS_OF);
        assert.ok(body.freshness.max_source_age_seconds < 60, JSON.stringify(body.freshness));
      }
    } finally {
      await s.close();
    }
  });

  test("Freshness: the chain data is as old as the nodes' head; a head stalled over a minute is never CLEAR", async () => {
    const s = await setup();
    const TRX_PAYMENT = { tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' as const };
    try {
      await s.chain.warmUp();
      const current = await s.check(TRX_PAYMENT);
      assert.equal(current.overall_state, 'CLEAR');
      assert.ok(current.freshness.max_source_age_seconds <= 5, JSON.stringify(current.freshness));
      // Behind, within the minute a working node and this host's clock skew may account for.
      s.node.setHeights({ headAgeMs: 30_000 });
      const behind = await s.check(TRX_PAYMENT);
      assert.equal(behind.overall_state, 'CLEAR');
      assert.ok(behind.freshness.max_source_age_seconds >= 30, JSON.stringify(behind.freshness));
      const stalledMs = 90 * 24 * 3600 * 1000;
      s.node.setHeights({ headAgeMs: stalledMs });
      const stalled = await s.check(TRX_PAYMENT);
      assert.equal(stalled.overall_state, 'LIMITED_DATA');
      assert.ok(codes(stalled).includes('TX_FACTS_PARTIAL'), codes(stalled).join());
      assert.ok(stalled.freshness.max_source_age_seconds >= stalledMs / 1000, JSON.stringify(stalled.freshness));
    } finally {
      await s.close();
    }
  });
});
