import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTronChainFactsProvider, type TronChainFactsProvider } from '../src/chain/provider.js';
import { startFakeTronNode, TRON_FIXTURE_TX, type FakeTronNode, type FakeTronScenario } from '../src/testing/index.js';

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

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${node.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
};

describe('java-tron answers', () => {
  test('gettransactionbyid keeps only java-tron fields of the v1 record', async () => {
    const body = JSON.parse(
      (await post('/wallet/gettransactionbyid', { value: TRON_FIXTURE_TX.unfreezeBalanceV1 })).text,
    );
    assert.deepEqual(Object.keys(body).sort(), ['raw_data', 'raw_data_hex', 'ret', 'signature', 'txID']);
    assert.deepEqual(body.ret, [{ contractRet: 'SUCCESS' }], 'no v1 fee in ret');
    assert.deepEqual(body.raw_data.contract[0].parameter.value, {
      owner_address: '416e3b44b96104b26f84057974a1f0c9880f7c9b13',
    });
    assert.equal(createHash('sha256').update(Buffer.from(body.raw_data_hex, 'hex')).digest('hex'), body.txID);
  });

  test('not found is {}; an unknown path is a 404 page; blocks follow the heights, heads the clock', async () => {
    assert.equal((await post('/wallet/gettransactioninfobyid', { value: '00'.repeat(32) })).text, '{}');
    assert.equal((await post('/wallet/nosuchapi', {})).status, 404);
    const askedAt = Date.now();
    const head = JSON.parse((await post('/wallet/getnowblock', {})).text);
    const solid = JSON.parse((await post('/walletsolidity/getnowblock', {})).text);
    assert.equal(head.block_header.raw_data.number, node.heights.head);
    assert.equal(solid.block_header.raw_data.number, node.heights.solidified);
    const { timestamp } = head.block_header.raw_data;
    assert.ok(timestamp >= askedAt && timestamp <= Date.now(), 'the head block was made now');
    const solidBehind = timestamp - solid.block_header.raw_data.timestamp;
    assert.ok(
      Math.abs(solidBehind - (node.heights.head - node.heights.solidified) * 3000) < 1000,
      'and 3 s a block before it',
    );
    node.setHeights({ headAgeMs: 60_000 });
    const stalled = JSON.parse((await post('/wallet/getnowblock', {})).text);
    node.setHeights({ headAgeMs: 0 });
    assert.ok(stalled.block_header.raw_data.timestamp <= Date.now() - 60_000, 'a stalled head, a minute old');
    assert.equal(head.blockID.slice(0, 16), node.heights.head.toString(16).padStart(16, '0'));
    assert.equal((await post('/walletsolidity/getblockbynum', { num: node.heights.head })).text, '{}');
    const abridged = JSON.parse((await post('/wallet/getblockbynum', { num: 71723395 })).text);
    assert.equal(abridged.transactions.length, 2);
  });

  test('triggerconstantcontract: USDT metadata; an unknown contract is CONTRACT_VALIDATE_ERROR', async () => {
    const usdt = '41a614f803b6fd780986a42c78ec9c7f77e6ded13c';
    const decimals = JSON.parse(
      (
        await post('/wallet/triggerconstantcontract', {
          owner_address: usdt,
          contract_address: usdt,
          function_selector: 'decimals()',
        })
      ).text,
    );
    assert.equal(BigInt(`0x${decimals.constant_result[0]}`), 6n);
    const missing = JSON.parse(
      (
        await post('/wallet/triggerconstantcontract', {
          owner_address: usdt,
          contract_address: `41${'00'.repeat(20)}`,
          function_selector: 'decimals()',
        })
      ).text,
    );
    assert.equal(missing.result.code, 'CONTRACT_VALIDATE_ERROR');
  });
});

describe('scenarios', () => {
  const run = async (hash: string) => {
    const r = await provider.getTransactionFacts(hash, { signal: AbortSignal.timeout(5000) });
    assert.ok(r.isOk());
    return r.value;
  };
  const cases: [FakeTronScenario, string, (f: Awaited<ReturnType<typeof run>>) => void][] = [
    [
      { kind: 'pending', confirmations: 3 },
      TRON_FIXTURE_TX.usdtTransfer,
      (f) => {
        assert.equal(f.state, 'pending');
        assert.equal(f.confirmations, 3);
      },
    ],
    [{ kind: 'not_found' }, TRON_FIXTURE_TX.trxTransfer, (f) => assert.equal(f.state, 'not_found')],
    [
      { kind: 'nodes_disagree' },
      TRON_FIXTURE_TX.trxTransferToNewAccount,
      (f) => assert.ok(f.disagreements.some((d) => d.code === 'nodes_disagree')),
    ],
    [
      { kind: 'tampered_raw_data_hex' },
      TRON_FIXTURE_TX.trc10Transfer,
      (f) => {
        assert.equal(f.verified, false);
        assert.ok(f.disagreements.some((d) => d.code === 'tx_id_mismatch'));
      },
    ],
    [
      { kind: 'tampered_log' },
      TRON_FIXTURE_TX.blockUsdtTransfer,
      (f) => assert.ok(f.disagreements.some((d) => d.code === 'log_mismatch')),
    ],
  ];
  for (const [scenario, hash, check] of cases) {
    test(scenario.kind, async () => {
      const heights = { ...node.heights };
      node.applyScenario(hash, scenario);
      try {
        check(await run(hash));
      } finally {
        node.setHeights(heights);
      }
    });
  }
});
