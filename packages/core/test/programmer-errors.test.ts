import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { Pool } from 'undici';
import { TronNodeClient } from '../src/chain/client.js';
import { isProgrammerError } from '../src/chain/programmer-error.js';
import { TokenMetadataReader } from '../src/chain/token-metadata.js';
import { createTronChainFactsProvider } from '../src/chain/provider.js';
import { getVendorJson } from '../src/risk/vendor-http.js';
import { createSafetyService } from '../src/runtime/service.js';
import { instantRisk, seedTenant } from '../src/testing/service-harness.js';
import * as t from 'io-ts';

// Errors: outside failures are values with their own kinds; a bug (a TypeError…) is never typed as
// a node's or a vendor's failure: it rejects, and a check answers 500 internal_error.

/** Nothing listens here: every request below fails before it is sent. */
const NOWHERE = 'http://127.0.0.1:9';
const bug = () => new TypeError("Cannot read properties of undefined (reading 'origin')");
const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
/** A signal whose listener registration is broken: a bug inside the request path. */
const brokenSignal = () =>
  ({
    aborted: false,
    addEventListener: () => {
      throw bug();
    },
    removeEventListener: () => {},
  }) as unknown as AbortSignal;

describe('Errors: a bug is a programmer error, never a provider failure', () => {
  test("the engine's own errors are bugs; coded errors of sockets, files and outside input are not", () => {
    const notUtf8 = (() => {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff]));
      } catch (e) {
        return e;
      }
    })();
    assert.deepEqual(
      [bug(), new RangeError('Invalid array length'), reset(), notUtf8, new Error('boom'), 'text'].map(
        isProgrammerError,
      ),
      [true, true, false, false, false, false],
    );
  });

  test('a TypeError inside a node call rejects at once; a network error is a retried node error', async (t) => {
    const client = new TronNodeClient({ fullNodeUrl: NOWHERE, retry: { baseDelayMs: 1, maxDelayMs: 1 } });
    const request = t.mock.method(Pool.prototype, 'request', () => {
      throw bug();
    });
    await assert.rejects(async () => await client.getNowBlock('full', AbortSignal.timeout(5000)), TypeError);
    assert.equal(request.mock.callCount(), 1, 'a bug is not retried');
    request.mock.mockImplementation(() => {
      throw reset();
    });
    const failed = await client.getNowBlock('full', AbortSignal.timeout(5000));
    assert.equal(failed._unsafeUnwrapErr().kind, 'network');
    assert.equal(request.mock.callCount(), 1 + 3, 'three attempts');
    await client.close();
  });

  test("a TypeError inside a token's metadata read rejects its callers, and the next read asks again", async (t) => {
    const client = new TronNodeClient({ fullNodeUrl: NOWHERE, retry: { attempts: 1 } });
    const reader = new TokenMetadataReader(client, { known: [] });
    const request = t.mock.method(Pool.prototype, 'request', () => {
      throw bug();
    });
    const token = { kind: 'trc20', contractHex: '41'.padEnd(42, '7') } as const;
    const asking = () =>
      reader.read(token, { signal: AbortSignal.timeout(5000), deadline: performance.now() + 5000, nodes: ['full'] });
    await assert.rejects(asking(), TypeError, 'not unknown metadata at the deadline');
    const calls = request.mock.callCount();
    await assert.rejects(asking(), TypeError);
    assert.ok(request.mock.callCount() > calls, 'the failed read is not kept in flight');
    await client.close();
  });

  test('a TypeError inside a vendor request rejects instead of becoming the vendor being unreachable', async () => {
    const vendor = { url: `${NOWHERE}/v2/entities/x`, headers: {}, signal: brokenSignal() };
    await assert.rejects(getVendorJson(vendor, t.type({})), TypeError);
  });

  test("a TypeError in the chain provider's node call: 500 internal_error, reported, not LIMITED_DATA", async () => {
    mock.method(Pool.prototype, 'request', () => {
      throw bug();
    });
    const chain = createTronChainFactsProvider({ fullNodeUrl: NOWHERE, knownTokens: [] });
    const reported: unknown[] = [];
    const service = createSafetyService(
      createMemoryStores(),
      { chain, risk: instantRisk() },
      { onError: (error) => reported.push(error) },
    );
    try {
      const { apiKey } = await seedTenant(service);
      const answer = await service.check({ apiKey, request: { tx_hash: '11'.repeat(32), network: 'tron' } });
      assert.equal(answer.status, 500);
      assert.equal(answer.ok ? null : answer.body.error.code, 'internal_error');
      assert.ok(reported.some((e) => e instanceof TypeError));
    } finally {
      mock.restoreAll();
      await service.close({ timeoutMs: 10 });
      await chain.close();
    }
  });
});
