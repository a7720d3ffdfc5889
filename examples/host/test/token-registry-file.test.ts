import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTronChainFactsProvider, type TronChainFactsProvider } from '@tron-safety/core';
import {
  buildTronTransaction,
  startFakeChainalysis,
  startFakeTronNode,
  transferLog,
  TRON_FIXTURE_TX,
  USDT_CONTRACT,
  type FakeTronNode,
} from '@tron-safety/core/testing';
import { base58ToHexAddress, hexToBase58Address, REGISTRY_KNOWN_TOKENS } from '@tron-safety/core/tron';
import { request } from 'undici';
import { hostTokens, type HostTokens } from '../src/token-registry-file.js';
import { fakeProvidersEnv, startTestHost, TEST_KEY } from './support.js';

const OWN = hexToBase58Address(`41${'cd'.repeat(20)}`)!;
const SUNOLD = 'TKkeiboTkxXKJpbmVFbv4a8ov5rAfRDMf9';
const PAYER = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';
const PAYEE = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';

function tokenFile(entries: object[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tron-safety-tokens-')), 'tokens.json');
  writeFileSync(path, JSON.stringify(entries));
  return path;
}

test('TOKEN_REGISTRY_FILE is read once: its tokens join the risk registry and are seeded for the chain to confirm', () => {
  const now = new Date('2026-11-24T12:00:00Z');
  const own = { contract: OWN, symbol: 'OWN', decimals: 6, name: 'Own Dollar' };
  const tokens = hostTokens({ tokenRegistryFile: tokenFile([own]), timeoutMs: 900 }, now)._unsafeUnwrap();
  assert.equal(tokens.risk.tokenRegistryFile, null);
  assert.equal(tokens.risk.timeoutMs, 900);
  assert.deepEqual(tokens.risk.extraTokens, [own]);
  assert.deepEqual(tokens.knownTokens.slice(0, -1), REGISTRY_KNOWN_TOKENS);
  assert.deepEqual(tokens.knownTokens.at(-1), {
    contract: OWN,
    symbol: 'OWN',
    name: 'Own Dollar',
    decimals: 6,
    asOf: now,
  });
  assert.deepEqual(tokens.warnings, []);
});

test('without TOKEN_REGISTRY_FILE the bundled registry alone is seeded and the risk configuration is unchanged', () => {
  const risk = { timeoutMs: 900 };
  const tokens = hostTokens(risk)._unsafeUnwrap();
  assert.equal(tokens.risk, risk);
  assert.equal(tokens.knownTokens, REGISTRY_KNOWN_TOKENS);
});

test('an unreadable token file is a TOKEN_REGISTRY_FILE error naming the file', () => {
  const error = hostTokens({ tokenRegistryFile: '/nonexistent/tokens.json' })._unsafeUnwrapErr();
  assert.equal(error.field, 'TOKEN_REGISTRY_FILE');
  assert.match(error.message, /^TOKEN_REGISTRY_FILE: \/nonexistent\/tokens\.json: /);
});

test('TOKEN_REGISTRY_FILE: an entry at another contract named as a bundled token refuses the start; a derivative of one is a warning naming the file and the entry', () => {
  const impostor = tokenFile([{ contract: OWN, symbol: 'USDT', decimals: 6, name: 'Tether USD' }]);
  const error = hostTokens({ tokenRegistryFile: impostor })._unsafeUnwrapErr();
  assert.equal(error.field, 'TOKEN_REGISTRY_FILE');
  assert.match(error.message, /: entry 0 \("USDT" at T.*\): symbol "USDT" is the bundled USDT's/);

  const derivative = tokenFile([{ contract: OWN, symbol: 'jUSDT', decimals: 8, name: 'JustLend USDT' }]);
  const tokens = hostTokens({ tokenRegistryFile: derivative })._unsafeUnwrap();
  assert.equal(tokens.warnings.length, 1);
  assert.ok(tokens.warnings[0]!.startsWith(`${derivative}: entry 0 ("jUSDT" at ${OWN}): `), tokens.warnings[0]);
});

describe('TOKEN_REGISTRY_FILE: a bundled token the file restates keeps its bundled seed', () => {
  /** A chain provider over `node` seeded with the file's tokens, hearing the chain's disagreements. */
  function provider(node: FakeTronNode, tokens: HostTokens) {
    const disagreements: unknown[] = [];
    const chain = createTronChainFactsProvider({
      fullNodeUrl: node.url,
      retry: { attempts: 1 },
      knownTokens: tokens.knownTokens,
      onKnownTokenDisagrees: (d) => disagreements.push(d),
    });
    return { chain, disagreements };
  }
  const metadataCalls = (node: FakeTronNode) => node.calls.filter((c) => c.path === 'triggerconstantcontract').length;
  const factsOf = async (chain: TronChainFactsProvider, hash: string) =>
    (await chain.getTransactionFacts(hash, { signal: AbortSignal.timeout(5000) }))._unsafeUnwrap();

  test('restating SUNOLD (whose contract answers symbol() "SUN"): the chain contradicts nothing, and its transfers are served from the seed', async () => {
    const file = tokenFile([{ contract: SUNOLD, symbol: 'SUNOLD', decimals: 18, name: 'SUNOLD' }]);
    const node = await startFakeTronNode();
    const { chain, disagreements } = provider(node, hostTokens({ tokenRegistryFile: file })._unsafeUnwrap());
    try {
      const hex = (address: string) => base58ToHexAddress(address)!;
      const built = buildTronTransaction({
        contractType: 'TriggerSmartContract',
        parameter: {
          owner_address: hex(PAYER),
          contract_address: hex(SUNOLD),
          data: `a9059cbb${'0'.repeat(24)}${hex(PAYEE).slice(2)}${'1'.padStart(64, '0')}`,
        },
        blockNumber: 70_000_600,
        info: { receipt: { result: 'SUCCESS' }, log: [transferLog(SUNOLD, PAYER, PAYEE, 1n)] },
      });
      node.addTransaction(built);
      await chain.warmUp();
      assert.deepEqual(disagreements, []);
      node.clearCalls();
      assert.equal((await factsOf(chain, built.txID)).transfers[0]?.tokenSymbol, 'SUN');
      assert.equal(metadataCalls(node), 0, 'still seeded');
    } finally {
      await chain.close();
      await node.close();
    }
  });

  test('restating USDT: a cold check reads no metadata and its token data is as of the bundled registry, not the file', async () => {
    const file = tokenFile([{ contract: USDT_CONTRACT, symbol: 'USDT', decimals: 6, name: 'Tether USD' }]);
    const node = await startFakeTronNode();
    const { chain } = provider(node, hostTokens({ tokenRegistryFile: file })._unsafeUnwrap());
    try {
      const facts = await factsOf(chain, TRON_FIXTURE_TX.usdtTransfer);
      assert.equal(metadataCalls(node), 0);
      const bundled = REGISTRY_KNOWN_TOKENS.find((t) => t.contract === USDT_CONTRACT)!;
      assert.equal(facts.tokenDataAt?.toISOString(), bundled.asOf.toISOString());
    } finally {
      await chain.close();
      await node.close();
    }
  });
});

describe('TOKEN_REGISTRY_FILE: an entry is official only while the chain names its contract as the entry does', () => {
  // The chain's names at two contracts: the file's token, and a USDT look-alike.
  const IMPOSTOR = hexToBase58Address(`41${'ef'.repeat(20)}`)!;
  let node: FakeTronNode;
  let vendors: Awaited<ReturnType<typeof startFakeChainalysis>>;
  const payments = new Map<string, string>();
  before(async () => {
    [node, vendors] = await Promise.all([startFakeTronNode(), startFakeChainalysis()]);
    node.setToken(OWN, { symbol: 'OWN', name: 'Own Dollar', decimals: 6 });
    node.setToken(IMPOSTOR, { symbol: 'USDT', name: 'Tether USD', decimals: 6 });
    const hex = (address: string) => base58ToHexAddress(address)!;
    for (const [i, contract] of [OWN, IMPOSTOR].entries()) {
      const built = buildTronTransaction({
        contractType: 'TriggerSmartContract',
        parameter: {
          owner_address: hex(PAYER),
          contract_address: hex(contract),
          data: `a9059cbb${'0'.repeat(24)}${hex(PAYEE).slice(2)}${(5_000_000).toString(16).padStart(64, '0')}`,
        },
        blockNumber: node.heights.solidified - 70 - i,
        info: { receipt: { result: 'SUCCESS' }, log: [transferLog(contract, PAYER, PAYEE, 5_000_000n)] },
      });
      node.addTransaction(built);
      payments.set(contract, built.txID);
    }
  });
  after(() => Promise.all([node.close(), vendors.close()]));

  const checkWith = async (entry: object, contract: string) => {
    const tokens = tokenFile([entry]);
    const { host } = await startTestHost({ ...fakeProvidersEnv(node, vendors), TOKEN_REGISTRY_FILE: tokens });
    try {
      const res = await request(`${host.url}/v1/transaction/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY },
        body: JSON.stringify({ tx_hash: payments.get(contract), network: 'tron' }),
      });
      const body = (await res.body.json()) as Record<string, any>;
      return [body.token_symbol, body.token_authenticity, body.overall_state, body.reasons.map((r: any) => r.code)];
    } finally {
      await host.stop('test end');
    }
  };

  test('an entry the chain agrees with is official, and its payment CLEAR', async () => {
    const [symbol, authenticity, state] = await checkWith(
      { contract: OWN, symbol: 'OWN', decimals: 6, name: 'Own Dollar' },
      OWN,
    );
    assert.deepEqual([symbol, authenticity, state], ['OWN', 'official', 'CLEAR']);
  });

  test('an entry "ACME" at a contract the chain calls USDT / Tether USD: fake and HIGH_RISK, never official', async () => {
    const [symbol, authenticity, state, codes] = await checkWith(
      { contract: IMPOSTOR, symbol: 'ACME', decimals: 6, name: 'Acme Dollar' },
      IMPOSTOR,
    );
    assert.deepEqual([symbol, authenticity, state], ['USDT', 'fake', 'HIGH_RISK']);
    assert.ok(codes.includes('TOKEN_FAKE'), codes.join());
  });

  test('an entry at a contract the chain names otherwise (not as an official token): TX_FACTS_DISAGREE, LIMITED_DATA', async () => {
    const [, authenticity, state, codes] = await checkWith(
      { contract: OWN, symbol: 'ACME', decimals: 6, name: 'Acme Dollar' },
      OWN,
    );
    assert.deepEqual([authenticity, state], ['unknown', 'LIMITED_DATA']);
    assert.ok(codes.includes('TX_FACTS_DISAGREE'), codes.join());
  });
});
