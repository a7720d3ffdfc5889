import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type * as t from 'io-ts';
import {
  ErrorResponse,
  TransactionCheckRequest,
  TransactionCheckResponse,
  UsageResponse,
} from '../src/contract/models.js';
import { buildOpenApiDocument, renderOpenApiJson } from '../src/contract/openapi.js';
import { reason } from '../src/contract/reasons.js';
import { createMemoryStores } from '@tron-safety/store-memory';
import type { CoreHttpRequest } from '../src/runtime/http.js';
import { describeError } from '../src/runtime/errors.js';
import { ERROR_TABLE } from './error-table.js';
import { createSafetyService } from '../src/runtime/service.js';
import { confirmedTrxFacts, instantChain, instantRisk, seedTenant } from '../src/testing/service-harness.js';
import { quotaHeaders, rateLimitHeaders } from '../src/runtime/limit-headers.js';

type Doc = Record<string, any>;
const doc = buildOpenApiDocument() as Doc;
const schemas = doc.components.schemas as Record<string, Doc>;

test('the committed openapi.json is the generated document', () => {
  const committed = readFileSync(new URL('../../../openapi.json', import.meta.url), 'utf8');
  assert.ok(committed === renderOpenApiJson(), 'openapi.json is stale: run `npm run openapi` and commit it');
  assert.equal(renderOpenApiJson(), renderOpenApiJson(), 'generation is deterministic');
});

test('the document is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
  const api = await SwaggerParser.validate(structuredClone(doc) as never);
  assert.equal((api as Doc).openapi, '3.1.0');
});

test('all 27 response fields are required; request and usage objects as the spec says', () => {
  const response = schemas.TransactionCheckResponse!;
  assert.equal(Object.keys(response.properties).length, 27);
  assert.deepEqual(response.required, Object.keys(response.properties));
  for (const name of [
    'TransferResponse',
    'ExposureResponse',
    'FreshnessResponse',
    'ReasonResponse',
    'UsageResponse',
    'ErrorResponse',
    'ErrorDetail',
  ]) {
    assert.deepEqual(schemas[name]!.required, Object.keys(schemas[name]!.properties), name);
  }
  const request = schemas.TransactionCheckRequest!;
  assert.deepEqual(request.required, ['tx_hash', 'network']);
  assert.equal(request.additionalProperties, false);
  assert.equal(response.additionalProperties, undefined, 'clients must tolerate additional response fields');
});

test('operations, error statuses, parameters, headers and security', () => {
  assert.deepEqual(doc.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  assert.deepEqual(doc.security, [{ apiKey: [] }]);
  const check = doc.paths['/v1/transaction/check'].post;
  const usage = doc.paths['/v1/usage'].get;
  assert.deepEqual(Object.keys(check.responses), ['200', '401', '403', '409', '422', '429', '500', '503', '504']);
  assert.deepEqual(Object.keys(usage.responses), ['200', '401', '403', '422', '429', '500', '503', '504']);
  for (const [operation, expected] of [
    [check, ['Idempotency-Key', 'X-Request-ID']],
    [usage, ['days', 'X-Request-ID']],
  ] as const) {
    assert.deepEqual(
      operation.parameters.map((p: Doc) => p.name),
      expected,
    );
    for (const [status, response] of Object.entries(operation.responses as Record<string, Doc>)) {
      assert.ok(response.headers['X-Request-ID'], `${status} has X-Request-ID`);
      if (status !== '200')
        assert.deepEqual(response.content['application/json'].schema, { $ref: '#/components/schemas/ErrorResponse' });
    }
  }
  assert.deepEqual(usage.parameters[0].schema, { type: 'integer', minimum: 1, maximum: 90, default: 30 });
  const check200 = Object.keys(check.responses['200'].headers);
  for (const header of [
    'Idempotent-Replayed',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'X-Quota-Limit',
    'X-Quota-Remaining',
    'X-Quota-Reset',
    'RateLimit-Policy',
    'RateLimit',
  ]) {
    assert.ok(check200.includes(header), header);
  }
  for (const status of ['409', '429', '503']) assert.ok(check.responses[status].headers['Retry-After'], status);
  for (const code of [
    'malformed_tx_hash',
    'invalid_network',
    'invalid_tron_address',
    'invalid_expected_amount',
    'invalid_idempotency_key',
    'payload_too_large',
    'validation_error',
  ]) {
    assert.match(check.responses['422'].description, new RegExp(`\`${code}\``));
  }
  assert.doesNotMatch(usage.responses['422'].description, /malformed_tx_hash/);
  for (const status of ['401', '403', '409', '422', '429', '500', '503', '504']) {
    assert.ok(
      check.responses[status].headers['Idempotent-Replayed'],
      `check ${status}: finalized errors are replayed too`,
    );
  }
  for (const status of ['401', '403', '422', '500', '504']) {
    assert.equal(check.responses[status].headers['Retry-After'], undefined, `check ${status} has no Retry-After`);
  }
});

test('every status, code and header the runtime answers is documented on its operation', () => {
  const operations = { check: doc.paths['/v1/transaction/check'].post, usage: doc.paths['/v1/usage'].get };
  // Routing answers (404, 405) are outside the two operations.
  const answered = ERROR_TABLE.filter(([error]) => error.kind !== 'not_found' && error.kind !== 'method_not_allowed');
  for (const [error] of answered) {
    const { status, code, headers } = describeError(error);
    const documented = Object.entries(operations).filter(([, op]) =>
      op.responses[status]?.description.includes(`\`${code}\``),
    );
    assert.ok(documented.length > 0, `${status} ${code} is documented`);
    for (const [name, op] of documented) {
      for (const header of Object.keys(headers))
        assert.ok(op.responses[status].headers[header], `${name} ${status} ${code}: ${header}`);
    }
  }
  const now = new Date('2026-11-21T12:00:00Z');
  const rate = Object.keys(rateLimitHeaders(60, 1, now, now));
  const quota = Object.keys(quotaHeaders(100, { used: 1, reserved: 0 }, now));
  for (const [name, op] of Object.entries(operations)) {
    for (const header of [...rate, ...quota]) assert.ok(op.responses['200'].headers[header], `${name} 200: ${header}`);
  }
});

// ---- samples against the document (ajv) and the codecs -------------------------------------

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
addFormats(ajv);
// The document's own schemas, addressed as $defs of one schema so that its $refs resolve.
ajv.addSchema({
  $id: 'https://tron-safety.invalid/openapi.json',
  $defs: JSON.parse(JSON.stringify(schemas).replaceAll('#/components/schemas/', '#/$defs/')),
});
const validator = (name: string) => ajv.getSchema(`https://tron-safety.invalid/openapi.json#/$defs/${name}`)!;

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const checkResponse = () => ({
  request_id: 'req_01HZX3',
  tx_hash: '0130dfde5a5e7cd45ffa2e6c5d0d3d8a3fa8b4b9c0f1e2d3c4b5a69788796a5b',
  network: 'tron',
  transaction_type: 'TriggerSmartContract',
  transaction_category: 'trc20_transfer',
  transaction_state: 'confirmed',
  confirmations: 25,
  required_confirmations: 19,
  sender: 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre',
  recipient: 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx',
  token_contract: USDT,
  token_symbol: 'USDT',
  decimals: 6,
  amount: '41.677389',
  transfers: [
    {
      index: 0,
      asset_type: 'trc20',
      sender: 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre',
      recipient: 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx',
      token_contract: USDT,
      token_id: null,
      token_symbol: 'USDT',
      decimals: 6,
      amount: '41.677389',
    },
  ],
  transfers_truncated: false,
  aml_risk_level: 'low',
  sanctions_hit: false,
  key_exposure: [{ category: 'exchange', exposure_type: 'direct', hops: 1, percent: '12.5' }],
  token_authenticity: 'official',
  recipient_match: true,
  token_match: true,
  amount_match: null,
  coverage: 'complete',
  freshness: {
    checked_at: '2026-11-21T23:00:00.000Z',
    transaction_at: '2026-11-21T22:59:00Z',
    risk_data_at: null,
    token_data_at: '2026-11-21T00:00:00Z',
    max_source_age_seconds: 60,
  },
  overall_state: 'CLEAR',
  reasons: [reason('TX_FINALIZED'), reason('SANCTIONS_CLEAR'), reason('TOKEN_OFFICIAL')],
});
const errorResponse = () => ({
  request_id: 'req_01HZX4',
  error: { code: 'provider_unavailable', message: 'Transaction data is temporarily unavailable.', retryable: true },
});
const usageResponse = () => ({
  tenant_id: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
  plan: { code: 'starter', version: 2, name: 'Starter' },
  limits: { rate_limit_per_minute: 60, max_concurrent_requests: 4, enabled_networks: ['tron'] },
  period: {
    start: '2026-11-01T00:00:00Z',
    end: '2026-12-01T00:00:00Z',
    used: 10,
    reserved: 1,
    limit: 1000,
    remaining: 989,
  },
  recent: {
    days: 30,
    requests: 12,
    billable: 10,
    limited_data: 2,
    errors: 1,
    average_latency_ms: null,
    by_network: { tron: 12 },
    by_overall_state: { CLEAR: 8, LIMITED_DATA: 2, REVIEW: 2 },
  },
});

type Sample = Record<string, any>;
const SAMPLES: [schema: string, codec: t.Mixed, build: () => Sample][] = [
  ['TransactionCheckResponse', TransactionCheckResponse, checkResponse],
  ['ErrorResponse', ErrorResponse, errorResponse],
  ['UsageResponse', UsageResponse, usageResponse],
];

test('sample responses validate against the document and the codecs', () => {
  for (const [name, codec, build] of SAMPLES) {
    const validate = validator(name);
    assert.ok(validate(build()), `${name}: ${ajv.errorsText(validate.errors)}`);
    assert.ok(codec.is(build()), name);
  }
  const notFound = {
    ...checkResponse(),
    ...Object.fromEntries(
      [
        'confirmations',
        'decimals',
        'amount',
        'sender',
        'recipient',
        'token_contract',
        'token_symbol',
        'sanctions_hit',
      ].map((k) => [k, null]),
    ),
    transaction_state: 'not_found',
    transfers: [],
    key_exposure: [],
    overall_state: 'LIMITED_DATA',
    reasons: [reason('TX_NOT_FOUND'), reason('SANCTIONS_UNAVAILABLE')],
  };
  assert.ok(validator('TransactionCheckResponse')(notFound));
  assert.ok(TransactionCheckResponse.is(notFound));
  assert.ok(validator('UsageResponse')({ ...usageResponse(), plan: null }));
});

test('broken samples fail against the document and the codecs alike', () => {
  const broken: [string, string, (sample: Sample) => void][] = [
    ['TransactionCheckResponse', 'missing amount_match', (s) => delete s.amount_match],
    ['TransactionCheckResponse', 'missing reasons', (s) => delete s.reasons],
    ['TransactionCheckResponse', 'bad overall_state', (s) => (s.overall_state = 'SAFE')],
    ['TransactionCheckResponse', 'bad transaction_state', (s) => (s.transaction_state = 'CONFIRMED')],
    ['TransactionCheckResponse', 'one reason', (s) => s.reasons.splice(1)],
    ['TransactionCheckResponse', 'six reasons', (s) => s.reasons.push(...s.reasons, ...s.reasons)],
    ['TransactionCheckResponse', 'sanctions_hit as a string', (s) => (s.sanctions_hit = 'false')],
    ['TransactionCheckResponse', 'amount as a number', (s) => (s.amount = 41.677389)],
    ['TransactionCheckResponse', 'transfer missing token_id', (s) => delete s.transfers[0].token_id],
    ['TransactionCheckResponse', 'freshness without checked_at', (s) => delete s.freshness.checked_at],
    ['TransactionCheckResponse', 'checked_at not a date-time', (s) => (s.freshness.checked_at = 'yesterday')],
    ['TransactionCheckResponse', 'confirmations not an integer', (s) => (s.confirmations = 1.5)],
    ['ErrorResponse', 'missing retryable', (s) => delete s.error.retryable],
    ['ErrorResponse', 'unknown error code', (s) => (s.error.code = 'oops')],
    ['UsageResponse', 'tenant_id not a uuid', (s) => (s.tenant_id = 'acme')],
    ['UsageResponse', 'missing recent.days', (s) => delete s.recent.days],
    ['UsageResponse', 'by_network with a string count', (s) => (s.recent.by_network.tron = '12')],
  ];
  for (const [name, label, breakIt] of broken) {
    const [, codec, build] = SAMPLES.find(([schema]) => schema === name)!;
    const sample = build();
    breakIt(sample);
    assert.equal(validator(name)(sample), false, `${name}: ${label} passes the schema`);
    assert.equal(codec.is(sample), false, `${name}: ${label} passes the codec`);
  }
});

test('a future reason code: the document tolerates it (clients must), the server never emits it', () => {
  const sample: Sample = checkResponse();
  sample.reasons[0].code = 'SOMETHING_NEW';
  const validate = validator('TransactionCheckResponse');
  assert.ok(validate(sample), ajv.errorsText(validate.errors));
  assert.equal(TransactionCheckResponse.is(sample), false);
  sample.reasons[0].code = 42;
  assert.equal(validate(sample), false, 'still a string');
});

test('request bodies: the schema and the codec agree', () => {
  const validate = validator('TransactionCheckRequest');
  const hash = 'a'.repeat(64);
  const bodies: [Sample, boolean][] = [
    [{ tx_hash: hash, network: 'tron' }, true],
    [
      {
        tx_hash: hash,
        network: 'tron',
        expected_recipient: USDT,
        expected_token_contract: null,
        expected_amount: '1.50',
      },
      true,
    ],
    [{ tx_hash: hash, network: 'tron', extra: 1 }, false],
    [{ tx_hash: hash, network: 'eth' }, false],
    [{ tx_hash: hash.slice(1), network: 'tron' }, false],
    [{ tx_hash: hash, network: 'tron', expected_amount: '1e5' }, false],
    [{ tx_hash: hash, network: 'tron', expected_amount: 1.5 }, false],
    [{ network: 'tron' }, false],
  ];
  for (const [body, valid] of bodies) {
    assert.equal(validate(body), valid, JSON.stringify(body));
    assert.equal(TransactionCheckRequest.is(body), valid, JSON.stringify(body));
  }
});

test('responses the service builds validate against the document, with documented headers only', async () => {
  const NOT_FOUND = 'b'.repeat(64);
  const chain = instantChain({
    facts: (hash) => {
      const facts = confirmedTrxFacts(hash);
      return hash === NOT_FOUND ? { ...facts, state: 'not_found', transfers: [], primaryTransfer: null } : facts;
    },
  });
  const service = createSafetyService(createMemoryStores(), { chain, risk: instantRisk() });
  try {
    const { apiKey } = await seedTenant(service);
    const check = (body: string, headers: Record<string, string> = {}): CoreHttpRequest => ({
      method: 'POST',
      path: '/v1/transaction/check',
      query: {},
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...headers },
      body: new TextEncoder().encode(body),
    });
    const usage = (query: Record<string, string>, key = apiKey): CoreHttpRequest => ({
      method: 'GET',
      path: '/v1/usage',
      query,
      headers: { 'x-api-key': key },
      body: new Uint8Array(),
    });
    const body = (hash: string, extra = {}) => JSON.stringify({ tx_hash: hash, network: 'tron', ...extra });
    const cases: [name: string, request: CoreHttpRequest, status: number][] = [
      ['clean check', check(body('a'.repeat(64), { expected_amount: '1.5' }), { 'idempotency-key': 'k1' }), 200],
      ['replayed check', check(body('a'.repeat(64), { expected_amount: '1.5' }), { 'idempotency-key': 'k1' }), 200],
      ['mismatch', check(body('c'.repeat(64), { expected_amount: '2' })), 200],
      ['not found', check(body(NOT_FOUND)), 200],
      ['422', check(body('x')), 422],
      ['409 conflict', check(body('d'.repeat(64)), { 'idempotency-key': 'k1' }), 409],
      ['401', check(body('a'.repeat(64)), { 'x-api-key': 'nope' }), 401],
      ['usage', usage({ days: '7' }), 200],
      ['usage 422', usage({ days: '0' }), 422],
      ['usage 401', usage({}, 'nope'), 401],
    ];
    const operations: Record<string, Doc> = {
      POST: doc.paths['/v1/transaction/check'].post,
      GET: doc.paths['/v1/usage'].get,
    };
    for (const [name, request, status] of cases) {
      const response = await service.handle(request);
      assert.equal(response.status, status, `${name}: ${response.body}`);
      const documented = operations[request.method]!.responses[String(status)];
      const ref = documented.content['application/json'].schema.$ref as string;
      const validate = validator(ref.replace('#/components/schemas/', ''));
      assert.ok(validate(JSON.parse(response.body)), `${name}: ${ajv.errorsText(validate.errors)}`);
      for (const header of Object.keys(response.headers)) {
        if (header.toLowerCase() === 'content-type') continue;
        assert.ok(documented.headers[header], `${name}: ${header} is not documented on ${request.method} ${status}`);
      }
    }
  } finally {
    await service.close();
  }
});
