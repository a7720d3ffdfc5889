import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createTronChainFactsProvider, type TronChainFactsProvider } from '../src/chain/provider.js';
import { sameNetwork, TRON_MAINNET, TRON_NILE, TRON_SHASTA } from '../src/chain/network.js';
import { createRiskProviders } from '../src/risk/providers.js';
import { createSafetyService } from '../src/runtime/service.js';
import { startFakeChainalysis, type FakeChainalysis } from '../src/testing/fake-vendors.js';
import { startFakeTronNode, type FakeTronNode } from '../src/testing/fake-tron-node.js';
import { buildTronTransaction, USDT_CONTRACT } from '../src/testing/fake-tron-fixtures.js';
import { checkBody, instantChain, instantRisk, seedTenant } from '../src/testing/service-harness.js';
import { base58ToHexAddress } from '../src/tron/address.js';

const PAYER = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';
const PAYEE = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';
const hex = (address: string) => base58ToHexAddress(address)!;

describe("Network: a service's chain and risk providers are of one network", () => {
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  let chain: TronChainFactsProvider;
  before(async () => {
    node = await startFakeTronNode({ network: TRON_NILE });
    vendors = await startFakeChainalysis();
    chain = createTronChainFactsProvider({ fullNodeUrl: node.url, retry: { attempts: 1 }, network: TRON_NILE });
  });
  after(async () => {
    await chain.close();
    await Promise.all([node.close(), vendors.close()]);
  });
  const vendorConfig = () => ({
    chainalysisApiUrl: vendors.entityUrl,
    chainalysisApiKey: 'k',
    chainalysisSanctionsUrl: vendors.sanctionsUrl,
    chainalysisSanctionsApiKey: 'k',
  });

  test('a Nile chain provider beside mainnet risk providers (the default) is refused: createSafetyService throws', () => {
    assert.equal(chain.network, TRON_NILE);
    const mainnet = createRiskProviders(vendorConfig())._unsafeUnwrap();
    assert.throws(
      () => createSafetyService(createMemoryStores(), { chain, risk: mainnet }),
      /the chain provider reads TRON nile but the risk providers are TRON mainnet's/,
    );
    const shasta = createRiskProviders({ ...vendorConfig(), network: TRON_SHASTA })._unsafeUnwrap();
    assert.throws(() => createSafetyService(createMemoryStores(), { chain, risk: shasta }), /TRON shasta's/);
  });

  test('providers that declare no network are mainnet: accepted beside mainnet ones, refused beside Nile ones', () => {
    const mainnet = createRiskProviders()._unsafeUnwrap();
    assert.equal(mainnet.network, TRON_MAINNET);
    createSafetyService(createMemoryStores(), { chain: instantChain(), risk: mainnet });
    createSafetyService(createMemoryStores(), { chain: null, risk: instantRisk() });
    const nile = createRiskProviders({ network: TRON_NILE })._unsafeUnwrap();
    assert.throws(() => createSafetyService(createMemoryStores(), { chain: instantChain(), risk: nile }));
  });

  test('one network is one genesis block id in either case, as the node verifier reads it', async () => {
    const upper = { ...TRON_MAINNET, genesisBlockId: TRON_MAINNET.genesisBlockId.toUpperCase() };
    const risk = createRiskProviders({ network: upper })._unsafeUnwrap();
    createSafetyService(createMemoryStores(), { chain: instantChain(), risk });
    assert.ok(sameNetwork(upper, TRON_MAINNET));
    // Still mainnet: the bundled registry stays, USDT at its contract official.
    const usdt = await risk.tokens.assess(
      {
        asset: { kind: 'trc20', contract: USDT_CONTRACT },
        symbol: 'USDT',
        name: 'Tether USD',
      },
      { signal: new AbortController().signal },
    );
    assert.equal(usdt.status === 'answered' && usdt.authenticity, 'official');
  });

  test('on Nile no mainnet token is official: TRC10 id 1002000 is not BTT, and a TRX payment is not CLEAR', async () => {
    const risk = createRiskProviders({ ...vendorConfig(), network: TRON_NILE })._unsafeUnwrap();
    const service = createSafetyService(createMemoryStores(), { chain, risk });
    const { apiKey } = await seedTenant(service, {});
    // Ids are assigned per network, in sequence: Nile's 1002000 is some other token.
    node.setAsset('1002000', {
      owner_address: hex(PAYER),
      name: Buffer.from('NileJunk').toString('hex'),
      abbr: Buffer.from('JUNK').toString('hex'),
      precision: 6,
      id: '1002000',
    });
    const trc10 = buildTronTransaction({
      contractType: 'TransferAssetContract',
      parameter: {
        asset_name: Buffer.from('1002000').toString('hex'),
        owner_address: hex(PAYER),
        to_address: hex(PAYEE),
        amount: 5_000_000,
      },
      blockNumber: node.heights.solidified - 40,
    });
    const trx = buildTronTransaction({
      contractType: 'TransferContract',
      parameter: { owner_address: hex(PAYER), to_address: hex(PAYEE), amount: 1_000_000 },
      blockNumber: node.heights.solidified - 41,
    });
    for (const built of [trc10, trx]) node.addTransaction({ transaction: built.transaction, info: built.info });
    const ask = async (hash: string) => {
      const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
      const res = await service.handle({
        method: 'POST',
        path: '/v1/transaction/check',
        query: {},
        headers,
        body: checkBody(hash),
      });
      return JSON.parse(res.body) as Record<string, any>;
    };
    const token = await ask(trc10.txID);
    assert.deepEqual([token.token_authenticity, token.overall_state], ['unknown', 'LIMITED_DATA']);
    const payment = await ask(trx.txID);
    assert.equal(payment.transaction_state, 'confirmed', JSON.stringify(payment.reasons));
    assert.equal(payment.overall_state, 'LIMITED_DATA', JSON.stringify(payment.reasons));
  });

  test("Nile's own tokens are official when given (extraTokens), even named as a mainnet token", () => {
    const nileUsdt = {
      symbol: 'USDT',
      name: 'Tether USD',
      contract: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
      decimals: 6,
    };
    assert.ok(createRiskProviders({ network: TRON_NILE, extraTokens: [nileUsdt] }).isOk());
    assert.match(
      createRiskProviders({ extraTokens: [nileUsdt] })._unsafeUnwrapErr().message,
      /symbol "USDT" is the bundled USDT's/,
    );
  });
});
