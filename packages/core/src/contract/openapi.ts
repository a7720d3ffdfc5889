import * as t from 'io-ts';
import type { ErrorCode } from './enums.js';
import {
  DEFAULT_USAGE_DAYS,
  ErrorResponse,
  IdempotencyKey,
  TransactionCheckRequest,
  TransactionCheckResponse,
  UsageQuery,
  UsageResponse,
} from './models.js';
import { annotationOf, toleratedEnumOf, type JsonSchema } from './schema.js';

const MODEL_NAME = /^[A-Z][A-Za-z]*$/;

/** Objects and enums with a model name are `components.schemas` entries. */
const isNamedKind = (codec: t.Mixed) =>
  codec instanceof t.InterfaceType || codec instanceof t.ExactType || codec instanceof t.KeyofType;

/**
 * JSON Schemas (draft 2020-12, as OpenAPI 3.1 uses) of io-ts codecs. Objects and enums with a
 * model name become `components.schemas` entries referenced by `$ref`; everything else is inline.
 */
class SchemaRegistry {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly named = new Map<string, t.Mixed>();

  schemaOf(codec: t.Mixed): JsonSchema {
    const { name } = codec;
    if (!MODEL_NAME.test(name) || !isNamedKind(codec)) return this.inline(codec);
    const known = this.named.get(name);
    if (known !== undefined && known !== codec) throw new Error(`two different codecs are named ${name}`);
    if (known === undefined) {
      this.named.set(name, codec);
      this.schemas[name] = this.inline(codec);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  /** The schema of a codec itself, never a `$ref` to it. */
  inline(codec: t.Mixed): JsonSchema {
    const known = toleratedEnumOf(codec);
    if (known) {
      const future = {
        type: 'string',
        description: 'A value added after this document: tolerate it, and never read it as a clean result.',
      };
      return { anyOf: [this.schemaOf(known), future] };
    }
    const structure = this.structure(codec);
    const annotation = annotationOf(codec);
    if (!structure && !annotation) throw new Error(`no JSON Schema for codec ${codec.name}`);
    return { ...structure, ...annotation };
  }

  /** The schema of the io-ts codec kinds the contract uses; undefined for a custom codec (its annotation is its schema). */
  private structure(c: t.Mixed): JsonSchema | undefined {
    if (c instanceof t.StringType) return { type: 'string' };
    if (c instanceof t.NumberType) return { type: 'number' };
    if (c instanceof t.BooleanType) return { type: 'boolean' };
    if (c instanceof t.NullType) return { type: 'null' };
    if (c instanceof t.LiteralType) return { const: c.value };
    if (c instanceof t.KeyofType) return { type: 'string', enum: Object.keys(c.keys) };
    if (c instanceof t.ArrayType) return { type: 'array', items: this.schemaOf(c.type) };
    if (c instanceof t.DictionaryType) return { type: 'object', additionalProperties: this.schemaOf(c.codomain) };
    if (c instanceof t.InterfaceType) return this.object(c.props, true);
    if (c instanceof t.PartialType) return this.object(c.props, false);
    if (c instanceof t.ExactType) return { ...this.inline(c.type), additionalProperties: false };
    if (c instanceof t.IntersectionType) return mergeObjects(c.types.map((member: t.Mixed) => this.inline(member)));
    if (c instanceof t.UnionType) return union(c.types.map((member: t.Mixed) => this.schemaOf(member)));
    return undefined;
  }

  private object(props: t.Props, required: boolean): JsonSchema {
    const properties = Object.fromEntries(Object.entries(props).map(([key, codec]) => [key, this.schemaOf(codec)]));
    return { type: 'object', properties, ...(required ? { required: Object.keys(props) } : {}) };
  }
}

function mergeObjects(members: JsonSchema[]): JsonSchema {
  const properties: JsonSchema = {};
  const required: string[] = [];
  for (const member of members) {
    if (member.type !== 'object') throw new Error('only objects can be intersected');
    Object.assign(properties, member.properties);
    required.push(...((member.required as string[] | undefined) ?? []));
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/** `X | null` as a nullable X where JSON Schema allows it, `anyOf` otherwise. */
function union(members: JsonSchema[]): JsonSchema {
  const others = members.filter((m) => m.type !== 'null');
  const [only] = others;
  if (others.length === 1 && members.length === 2 && only && typeof only.type === 'string') {
    return { ...only, type: [only.type, 'null'], ...(Array.isArray(only.enum) ? { enum: [...only.enum, null] } : {}) };
  }
  return { anyOf: members };
}

// ---- the document ----------------------------------------------------------------------------

type Operation = 'check' | 'usage';

/**
 * The spec's error table: status, its codes, and the operations each code applies to. A description given
 * per operation names only codes that operation answers.
 */
interface ErrorEntry {
  status: number;
  description: string | Record<Operation, string>;
  codes: [ErrorCode, Operation[]][];
}
const ERRORS: ErrorEntry[] = [
  { status: 401, description: 'Invalid or revoked API key', codes: [['invalid_api_key', ['check', 'usage']]] },
  {
    status: 403,
    description: 'Access denied for the organization',
    codes: [
      ['tenant_suspended', ['check', 'usage']],
      ['network_not_enabled', ['check']],
    ],
  },
  {
    status: 409,
    description: 'Idempotency-Key conflict or still in progress (then retryable, with Retry-After)',
    codes: [
      ['idempotency_conflict', ['check']],
      ['idempotency_in_progress', ['check']],
    ],
  },
  {
    status: 422,
    description: {
      check:
        'The request must be corrected. When several apply, the first wins: `invalid_idempotency_key`, `payload_too_large`, ' +
        '`validation_error` (not JSON, not an object, a repeated or unknown field), then the first failing field in the order ' +
        'tx_hash, network, expected_recipient, expected_token_contract, expected_amount (a missing or mistyped field is ' +
        '`validation_error`, a bad value its own code); `invalid_expected_amount` for excess precision comes last, once the ' +
        "asset's decimals are known",
      usage:
        'The request must be corrected: days must be an integer from 1 to 90 in plain digits (no leading zero), and the only query parameter, given once',
    },
    codes: [
      ['malformed_tx_hash', ['check']],
      ['invalid_network', ['check']],
      ['invalid_tron_address', ['check']],
      ['invalid_expected_amount', ['check']],
      ['invalid_idempotency_key', ['check']],
      ['payload_too_large', ['check']],
      ['validation_error', ['check', 'usage']],
    ],
  },
  {
    status: 429,
    description: 'Rate, quota or concurrency limit reached; honor Retry-After',
    codes: [
      ['rate_limit_exceeded', ['check', 'usage']],
      ['quota_exceeded', ['check']],
      ['concurrency_limit_exceeded', ['check']],
    ],
  },
  {
    status: 500,
    description: 'Internal error; retain X-Request-ID',
    codes: [['internal_error', ['check', 'usage']]],
  },
  {
    status: 503,
    description: 'Temporarily unavailable',
    codes: [
      ['provider_unavailable', ['check']],
      ['api_not_configured', ['check']],
      ['rate_limiter_unavailable', ['check', 'usage']],
      ['api_disabled', ['check', 'usage']],
    ],
  },
  {
    status: 504,
    description: 'Server deadline (12 seconds) exceeded',
    codes: [['request_timeout', ['check', 'usage']]],
  },
];
const RETRY_AFTER_STATUSES = new Set([409, 429, 503]);

const integerHeader = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });
const HEADERS: Record<string, JsonSchema> = {
  'X-Request-ID': {
    description: 'Identifies the response; equals `request_id` in the body',
    required: true,
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: '`true` when a stored response is replayed',
    schema: { type: 'string', enum: ['true'] },
  },
  'Retry-After': integerHeader('Seconds to wait before retrying (may be long for the monthly quota)'),
  'X-RateLimit-Limit': integerHeader('Requests per minute allowed for the organization'),
  'X-RateLimit-Remaining': integerHeader('Requests left in the current window'),
  'X-RateLimit-Reset': integerHeader('When the window resets, in Unix seconds'),
  'X-Quota-Limit': integerHeader('Monthly billable quota'),
  'X-Quota-Remaining': integerHeader('Billable checks left this month'),
  'X-Quota-Reset': integerHeader('When the monthly quota resets, in Unix seconds'),
  'RateLimit-Policy': {
    description: 'IETF RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers), e.g. `"minute";q=60;w=60`',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'IETF RateLimit (draft-ietf-httpapi-ratelimit-headers), e.g. `"minute";r=59;t=42`',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: '`no-store` on every answer: answers are per organization and per moment',
    required: true,
    schema: { type: 'string', enum: ['no-store'] },
  },
  'X-Content-Type-Options': {
    description: '`nosniff` on every answer',
    required: true,
    schema: { type: 'string', enum: ['nosniff'] },
  },
};
const COMMON_HEADERS = [
  'X-Request-ID',
  'Cache-Control',
  'X-Content-Type-Options',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];
const QUOTA_HEADERS = ['X-Quota-Limit', 'X-Quota-Remaining', 'X-Quota-Reset'];
const CHECK_HEADERS = [...COMMON_HEADERS, 'Idempotent-Replayed', ...QUOTA_HEADERS];
// The usage report reads the quota, so its success carries the quota headers too.
const USAGE_HEADERS = [...COMMON_HEADERS, ...QUOTA_HEADERS];

function headerRefs(names: string[]): JsonSchema {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

function json(schema: JsonSchema): JsonSchema {
  return { 'application/json': { schema } };
}

function errorResponses(operation: Operation, headers: string[], registry: SchemaRegistry): JsonSchema {
  const responses: JsonSchema = {};
  for (const { status, description, codes } of ERRORS) {
    const applicable = codes.filter(([, operations]) => operations.includes(operation)).map(([code]) => code);
    if (applicable.length === 0) continue;
    responses[String(status)] = {
      description: `${typeof description === 'string' ? description : description[operation]}. Codes: ${applicable.map((code) => `\`${code}\``).join(', ')}`,
      headers: headerRefs(RETRY_AFTER_STATUSES.has(status) ? [...headers, 'Retry-After'] : headers),
      content: json(registry.schemaOf(ErrorResponse)),
    };
  }
  return responses;
}

/** Query parameters from an object codec: one per property. */
function queryParameters(codec: t.Mixed, defaults: Record<string, unknown>, registry: SchemaRegistry): JsonSchema[] {
  const schema = registry.inline(codec);
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(schema.properties as Record<string, JsonSchema>).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: name in defaults ? { ...property, default: defaults[name] } : property,
  }));
}

/** The OpenAPI 3.1 document of the v1 API, generated from the contract codecs. */
export function buildOpenApiDocument(): JsonSchema {
  const registry = new SchemaRegistry();
  const paths = {
    '/v1/transaction/check': { post: checkOperation(registry) },
    '/v1/usage': { get: usageOperation(registry) },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Transaction Safety Service',
      version: '1.0.0',
      description:
        'A tenant-scoped safety check of one TRON transaction before a payment is recorded as received, ' +
        'and a usage report. Missing evidence is never a clean result.',
    },
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      headers: HEADERS,
      schemas: Object.fromEntries(Object.entries(registry.schemas).sort(([a], [b]) => (a < b ? -1 : 1))),
    },
  };
}

const REQUEST_ID_PARAMETER = {
  name: 'X-Request-ID',
  in: 'header',
  required: false,
  description:
    'Correlation identifier: a value of 1–128 characters of `[A-Za-z0-9._:-]` becomes `request_id`, otherwise the service makes one',
  schema: { type: 'string' },
};

/** `POST /v1/transaction/check`. */
function checkOperation(registry: SchemaRegistry): JsonSchema {
  return {
    operationId: 'checkTransaction',
    summary: 'Check one TRON transaction before recording a payment as received',
    description:
      'A 200 does not mean a payment is safe or confirmed: read `transaction_state`, `overall_state`, ' +
      '`coverage`, the match flags, `freshness` and `reasons` together. Only a response with ' +
      '`coverage` = `complete` consumes one unit of monthly quota.',
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Scoped to the organization; the same key and body replay the stored response',
        schema: registry.schemaOf(IdempotencyKey),
      },
      REQUEST_ID_PARAMETER,
    ],
    requestBody: {
      required: true,
      description: 'At most 4 KiB; unknown fields are rejected',
      content: json(registry.schemaOf(TransactionCheckRequest)),
    },
    responses: {
      '200': {
        description: 'The check result (also for LIMITED_DATA)',
        headers: headerRefs(CHECK_HEADERS),
        content: json(registry.schemaOf(TransactionCheckResponse)),
      },
      ...errorResponses('check', CHECK_HEADERS, registry),
    },
  };
}

/** `GET /v1/usage`. */
function usageOperation(registry: SchemaRegistry): JsonSchema {
  return {
    operationId: 'getUsage',
    summary: "The organization's quota for the current UTC month and a usage summary of recent days",
    parameters: [...queryParameters(UsageQuery, { days: DEFAULT_USAGE_DAYS }, registry), REQUEST_ID_PARAMETER],
    responses: {
      '200': {
        description: 'Quota and recent usage',
        headers: headerRefs(USAGE_HEADERS),
        content: json(registry.schemaOf(UsageResponse)),
      },
      ...errorResponses('usage', COMMON_HEADERS, registry),
    },
  };
}

/** The committed `openapi.json`: formatted, deterministic, with a final newline. */
export function renderOpenApiJson(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
