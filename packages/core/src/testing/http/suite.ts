import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { request } from 'undici';
import type { CoreHttpHandler } from '../../runtime/http.js';
import { createTronChainFactsProvider, type TronChainFactsProvider } from '../../chain/provider.js';
import { createRiskProviders } from '../../risk/providers.js';
import type { RiskProviders } from '../../risk/signals.js';
import { createSafetyService, type SafetyService } from '../../runtime/service.js';
import type { Entitlements, SafetyStores } from '../../stores/index.js';
import { startFakeTronNode, type FakeTronNode } from '../fake-tron-node.js';
import { startFakeChainalysis, type FakeChainalysis } from '../fake-vendors.js';

// What every part of the HTTP conformance suite shares: one service over the real providers and
// the fakes, served by the caller's framework, and the helpers that call it and read its answers.

export type ConformanceHandler = CoreHttpHandler;

export interface ConformanceServer {
  /** `http://127.0.0.1:port` (plus a mount prefix, if any) where `/v1/...` is served. */
  url: string;
  close(): Promise<void>;
}

export interface HttpConformanceOptions {
  /** Fresh stores for the suite's service (e.g. store-memory's `createMemoryStores`). */
  createStores: () => SafetyStores | Promise<SafetyStores>;
}

export type StartServer = (handler: ConformanceHandler) => Promise<ConformanceServer>;

export const DEADLINE_MS = 1_500;
const GENEROUS: Entitlements = {
  rateLimitPerMinute: 1000,
  maxConcurrentRequests: 50,
  monthlyQuota: 1000,
  enabledNetworks: ['tron'],
};
export const VALID_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
export const UNKNOWN_TX = 'ab'.repeat(32);

/** The 27 fields of TransactionCheckResponse, always present. */
export const CHECK_FIELDS = [
  'request_id',
  'tx_hash',
  'network',
  'transaction_type',
  'transaction_category',
  'transaction_state',
  'confirmations',
  'required_confirmations',
  'sender',
  'recipient',
  'token_contract',
  'token_symbol',
  'decimals',
  'amount',
  'transfers',
  'transfers_truncated',
  'aml_risk_level',
  'sanctions_hit',
  'key_exposure',
  'token_authenticity',
  'recipient_match',
  'token_match',
  'amount_match',
  'coverage',
  'freshness',
  'overall_state',
  'reasons',
];

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: any;
}

type CallInit = { key?: string; body?: string | Buffer; headers?: Record<string, string | string[]>; url?: string };

export interface HttpSuite {
  readonly node: FakeTronNode;
  readonly chain: TronChainFactsProvider;
  readonly risk: RiskProviders;
  readonly service: SafetyService;
  readonly startServer: StartServer;
  readonly options: HttpConformanceOptions;
  /** A new organization with its own key, so limits and idempotency of one test never touch another. */
  tenant(
    entitlements?: Partial<Entitlements>,
    status?: 'active' | 'suspended',
    on?: SafetyService,
  ): Promise<{ id: string; key: string; keyId: string }>;
  call(method: 'GET' | 'POST', path: string, init?: CallInit): Promise<Answer>;
  check(key: string, body: object | string, headers?: Record<string, string | string[]>): Promise<Answer>;
  /** The spec's error envelope, with `X-Request-ID` equal to `request_id` and a JSON content type. */
  assertError(answer: Answer, status: number, code: string, retryable?: boolean): void;
}

/** Starts the shared service before the suite's tests (and stops it after); call inside a describe. */
export function httpSuite(startServer: StartServer, options: HttpConformanceOptions): HttpSuite {
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  let chain: TronChainFactsProvider;
  let risk: RiskProviders;
  let service: SafetyService;
  let server: ConformanceServer;

  before(async () => {
    node = await startFakeTronNode();
    vendors = await startFakeChainalysis();
    // The real providers, over HTTP to the fakes; no cache, so a fault applies to the next check.
    chain = createTronChainFactsProvider({ fullNodeUrl: node.url, timeoutMs: 1_000 });
    risk = createRiskProviders({
      chainalysisApiUrl: vendors.entityUrl,
      chainalysisApiKey: 'conformance-entity-key',
      chainalysisSanctionsUrl: vendors.sanctionsUrl,
      chainalysisSanctionsApiKey: 'conformance-sanctions-key',
      cacheTtlMs: 0,
    })._unsafeUnwrap();
    service = createSafetyService(await options.createStores(), { chain, risk }, { deadlineMs: DEADLINE_MS });
    server = await startServer(service);
  });
  after(async () => {
    await server?.close();
    await service?.close({ timeoutMs: 100 });
    await chain?.close();
    await Promise.all([node?.close(), vendors?.close()]);
  });

  /** A new organization with its own key, so limits and idempotency of one test never touch another. */
  async function tenant(
    entitlements: Partial<Entitlements> = {},
    status: 'active' | 'suspended' = 'active',
    on = service,
  ) {
    const operator = { kind: 'operator' } as const;
    const org = await on.admin.createOrganization(operator, {
      name: `conformance ${Math.random().toString(36).slice(2)}`,
      status,
      assignment: { entitlements: { ...GENEROUS, ...entitlements } },
    });
    const id = org._unsafeUnwrap().organization.id;
    const key = (await on.admin.createApiKey(operator, id, 'conformance'))._unsafeUnwrap();
    return { id, key: key.key, keyId: key.metadata.id };
  }

  async function call(
    method: 'GET' | 'POST',
    path: string,
    init: { key?: string; body?: string | Buffer; headers?: Record<string, string | string[]>; url?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string | string[]> = { ...init.headers };
    if (init.key !== undefined) headers['x-api-key'] = init.key;
    if (init.body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await request(`${init.url ?? server.url}${path}`, { method, headers, body: init.body });
    const text = await res.body.text();
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // asserted by the caller
    }
    return { status: res.statusCode, headers: flat, text, json };
  }

  const check = (key: string, body: object | string, headers: Record<string, string | string[]> = {}) =>
    call('POST', '/v1/transaction/check', {
      key,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers,
    });

  /** The spec's error envelope, with `X-Request-ID` equal to `request_id` and a JSON content type. */
  function assertError(answer: Answer, status: number, code: string, retryable?: boolean) {
    assert.equal(answer.status, status, `expected ${status} ${code}, got ${answer.status} ${answer.text}`);
    assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
    assert.deepEqual(Object.keys(answer.json).sort(), ['error', 'request_id']);
    assert.equal(answer.json.error.code, code);
    assert.equal(typeof answer.json.error.message, 'string');
    assert.equal(typeof answer.json.error.retryable, 'boolean');
    if (retryable !== undefined) assert.equal(answer.json.error.retryable, retryable);
    assert.equal(answer.headers['x-request-id'], answer.json.request_id);
  }

  return {
    get node() {
      return node;
    },
    get chain() {
      return chain;
    },
    get risk() {
      return risk;
    },
    get service() {
      return service;
    },
    startServer,
    options,
    tenant,
    call,
    check,
    assertError,
  };
}
