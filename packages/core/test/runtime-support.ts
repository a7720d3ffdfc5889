// What the runtime's end-to-end tests share (runtime-*.test.ts): through `handle`, the fake java-tron
// node and the fake Chainalysis servers over HTTP on 127.0.0.1, the real chain and risk providers,
// store-memory.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { ResultAsync } from 'neverthrow';
import { createMemoryStores } from '@tron-safety/store-memory';
import type { ChainFactsProvider, ProviderContext } from '../src/chain/facts.js';
import { createTronChainFactsProvider, type TronChainFactsProvider } from '../src/chain/provider.js';
import { createRiskProviders } from '../src/risk/providers.js';
import type { RiskProviders } from '../src/risk/signals.js';
import type { CoreHttpResponse } from '../src/runtime/http.js';
import { createSafetyService, type SafetyService } from '../src/runtime/service.js';
import type { SafetyProviders, SafetyServiceOptions } from '../src/runtime/context.js';
import type { SafetyStores } from '../src/stores/index.js';
import type { Entitlements } from '../src/stores/organizations.js';
import { startFakeChainalysis, type FakeChainalysis } from '../src/testing/fake-vendors.js';
import { startFakeTronNode, type FakeTronNode } from '../src/testing/fake-tron-node.js';
import { TRON_FIXTURE_TX } from '../src/testing/fake-tron-fixtures.js';
import { checkBody, seedTenant } from '../src/testing/service-harness.js';

export const COMPLETE_TX = TRON_FIXTURE_TX.usdtTransfer; // complete coverage, CLEAR
export const PARTIAL_TX = TRON_FIXTURE_TX.trc10Transfer; // partial coverage, LIMITED_DATA
export const CHECK = '/v1/transaction/check';

/**
 * The fake java-tron node and fake Chainalysis servers behind the real providers, started before
 * the calling file's tests and stopped after them, and `setup`, a service with one tenant on them.
 */
export function serviceEnvironment() {
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  let chain: TronChainFactsProvider;
  let risk: RiskProviders;

  before(async () => {
    node = await startFakeTronNode();
    vendors = await startFakeChainalysis();
    // Generous per-call timeouts: the concurrency tests load the fake node on a 2-core CI machine.
    chain = createTronChainFactsProvider({
      fullNodeUrl: node.url,
      retry: { attempts: 1 },
      timeoutMs: 10_000,
      connections: 64,
    });
    const built = createRiskProviders({
      chainalysisApiUrl: vendors.entityUrl,
      chainalysisApiKey: 'vendor-key',
      chainalysisSanctionsUrl: vendors.sanctionsUrl,
      chainalysisSanctionsApiKey: 'vendor-key',
      cacheTtlMs: 0,
      timeoutMs: 10_000,
    });
    if (built.isErr()) throw new Error(built.error.message);
    risk = built.value;
  });

  after(async () => {
    await chain.close();
    await node.close();
    await vendors.close();
  });

  async function setup(
    entitlements: Partial<Entitlements> = {},
    options: SafetyServiceOptions = {},
    providers: Partial<SafetyProviders> = {},
    stores: SafetyStores = createMemoryStores(),
  ): Promise<Setup> {
    node.clearFaults();
    vendors.setFault('entity', '*', null);
    vendors.setFault('sanctions', '*', null);
    const service = createSafetyService(stores, { chain, risk, ...providers }, options);
    const { apiKey, organizationId } = await seedTenant(service, entitlements);
    return { service, stores, apiKey, organizationId };
  }

  const fullNodeTxCalls = () => node.calls.filter((c) => c.node === 'full' && c.path === 'gettransactionbyid').length;

  return {
    get node() {
      return node;
    },
    get vendors() {
      return vendors;
    },
    get chain() {
      return chain;
    },
    get risk() {
      return risk;
    },
    setup,
    fullNodeTxCalls,
  };
}

/** A clock tests can move forward. */
export function movableClock() {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms: number) => void (offset += ms) };
}

export interface Setup {
  service: SafetyService;
  stores: SafetyStores;
  apiKey: string;
  organizationId: string;
}

export function check(
  s: { service: SafetyService; apiKey: string },
  txHash: string,
  headers: Record<string, string> = {},
  expected: Record<string, string> = {},
): Promise<CoreHttpResponse> {
  return s.service.handle({
    method: 'POST',
    path: CHECK,
    query: {},
    headers: { 'x-api-key': s.apiKey, 'content-type': 'application/json', ...headers },
    body: checkBody(txHash, expected),
  });
}

export function getUsage(
  s: { service: SafetyService; apiKey: string },
  query: Record<string, string> = {},
): Promise<CoreHttpResponse> {
  return s.service.handle({
    method: 'GET',
    path: '/v1/usage',
    query,
    headers: { 'x-api-key': s.apiKey },
    body: new Uint8Array(),
  });
}

export const json = (r: CoreHttpResponse) => JSON.parse(r.body) as Record<string, any>;

/** The error envelope, and X-Request-ID equal to its request_id. */
export function assertError(r: CoreHttpResponse, status: number, code: string, retryable: boolean): void {
  assert.equal(r.status, status, r.body);
  const body = json(r);
  assert.deepEqual(Object.keys(body), ['request_id', 'error']);
  assert.deepEqual(Object.keys(body.error), ['code', 'message', 'retryable']);
  assert.equal(body.error.code, code);
  assert.equal(body.error.retryable, retryable);
  assert.equal(r.headers['X-Request-ID'], body.request_id);
  assert.match(r.headers['Content-Type']!, /^application\/json/);
}

export async function period(s: Setup) {
  const report = await s.service.admin.usage({ kind: 'operator' }, s.organizationId);
  assert.ok(report.isOk());
  return report.value.period;
}

/**
 * A chain provider that answers only when its signal stops it, recording what the runtime hands
 * it. The real provider budgets its rounds to answer before the deadline, so a 504 needs this one.
 */
export function waitingChain(seen: ProviderContext[] = []): ChainFactsProvider {
  return {
    getTransactionFacts: (_txHash, ctx) => {
      seen.push(ctx);
      const aborted = new Promise<never>((_, reject) =>
        ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
      );
      return ResultAsync.fromPromise(aborted, () => ({ kind: 'aborted' as const }));
    },
  };
}

/** The store with a method rejecting while `fails(method, args)` says so. */
export function failingIf<S extends object>(store: S, fails: (method: string, args: unknown[]) => boolean): S {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        fails(String(property), args)
          ? Promise.reject(new Error(`store down: ${String(property)}`))
          : value.apply(target, args);
    },
  });
}
