import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createRiskProviders,
  type ProviderCall,
  type ProviderCallEnd,
  type ProviderCallObserver,
} from '../src/index.js';
import { TronNodeClient } from '../src/tron.js';
import {
  startFakeChainalysis,
  startFakeTronNode,
  TRON_FIXTURE_TX,
  type FakeChainalysis,
  type FakeTronNode,
} from '../src/testing/index.js';

// The optional provider-call hook a host feeds its metrics and logs from: every HTTP call to a
// node or vendor is reported once with how it ended, and a failing observer never breaks a call.

function recorder(): { observer: ProviderCallObserver; calls: (ProviderCall & Partial<ProviderCallEnd>)[] } {
  const calls: (ProviderCall & Partial<ProviderCallEnd>)[] = [];
  return {
    calls,
    observer: (call) => {
      const entry: ProviderCall & Partial<ProviderCallEnd> = { ...call };
      calls.push(entry);
      return (end) => Object.assign(entry, end);
    },
  };
}

describe('provider call observer', () => {
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  before(async () => {
    node = await startFakeTronNode();
    vendors = await startFakeChainalysis();
  });
  after(() => Promise.all([node.close(), vendors.close()]));

  test('java-tron: each attempt is reported with its node, endpoint, outcome and status', async () => {
    const { observer, calls } = recorder();
    const client = new TronNodeClient({ fullNodeUrl: node.url, onCall: observer, retry: { baseDelayMs: 1 } });
    const signal = new AbortController().signal;
    try {
      const found = await client.getTransactionById('solidity', TRON_FIXTURE_TX.usdtTransfer, signal);
      assert.ok(found.isOk());
      const remove = node.fault({
        node: 'full',
        path: 'getnowblock',
        times: 1,
        fault: { kind: 'status', status: 502 },
      });
      assert.ok((await client.getNowBlock('full', signal)).isOk(), 'the retry answers');
      remove();
      node.fault({ node: 'full', path: 'gettransactioninfobyid', times: 1, fault: { kind: 'malformed_json' } });
      assert.ok((await client.getTransactionInfoById('full', TRON_FIXTURE_TX.usdtTransfer, signal)).isErr());
      assert.deepEqual(
        calls.map(({ provider, call, outcome, status }) => ({ provider, call, outcome, status })),
        [
          { provider: 'tron_solidity_node', call: 'gettransactionbyid', outcome: 'ok', status: undefined },
          { provider: 'tron_full_node', call: 'getnowblock', outcome: 'status', status: 502 },
          { provider: 'tron_full_node', call: 'getnowblock', outcome: 'ok', status: undefined },
          { provider: 'tron_full_node', call: 'gettransactioninfobyid', outcome: 'decode', status: undefined },
        ],
      );
      assert.ok(calls.every((c) => typeof c.durationMs === 'number' && c.durationMs >= 0));
    } finally {
      await client.close();
    }
  });

  test('java-tron: a timeout is reported as such, and a throwing observer changes nothing', async () => {
    const { observer, calls } = recorder();
    const remove = node.fault({ path: 'getnowblock', fault: { kind: 'hang' } });
    const client = new TronNodeClient({
      fullNodeUrl: node.url,
      onCall: observer,
      timeoutMs: 50,
      retry: { attempts: 1 },
    });
    const throwing = new TronNodeClient({
      fullNodeUrl: node.url,
      onCall: () => {
        throw new Error('observer bug');
      },
    });
    try {
      const answer = await client.getNowBlock('full', new AbortController().signal);
      assert.equal(answer.isErr() && answer.error.kind, 'timeout');
      assert.equal(calls[0]?.outcome, 'timeout');
      remove();
      assert.ok((await throwing.getNowBlock('full', new AbortController().signal)).isOk());
    } finally {
      remove();
      await Promise.all([client.close(), throwing.close()]);
    }
  });

  test('vendors: entity and sanctions calls are reported, an HTTP error with its status', async () => {
    const { observer, calls } = recorder();
    const risk = createRiskProviders(
      {
        chainalysisApiUrl: vendors.entityUrl,
        chainalysisApiKey: 'k',
        chainalysisSanctionsUrl: vendors.sanctionsUrl,
        chainalysisSanctionsApiKey: 'k',
        cacheTtlMs: 0,
      },
      { onCall: observer },
    )._unsafeUnwrap();
    const address = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';
    const ctx = { signal: new AbortController().signal };
    await risk.aml.assessAddress(address, ctx);
    vendors.setFault('sanctions', '*', { kind: 'status', status: 503 });
    await risk.sanctions.screen([address], ctx);
    vendors.setFault('sanctions', '*', null);
    assert.deepEqual(
      calls.map(({ provider, call, outcome, status }) => ({ provider, call, outcome, status })),
      [
        { provider: 'chainalysis_entity', call: 'entities', outcome: 'ok', status: undefined },
        { provider: 'chainalysis_sanctions', call: 'address', outcome: 'status', status: 503 },
      ],
    );
  });
});
