/**
 * Validation of the `POST /v1/transaction/check` body into one 422 code, or a normalized request.
 *
 * Which code wins when several apply (the first that applies, top to bottom):
 *   1. payload_too_large        body over 4 KiB, on the raw bytes, before anything is decoded
 *   2. validation_error         not UTF-8, BOM, not JSON, a repeated key, not a JSON object, an unknown field
 *   3. the first failing field in the spec's order: tx_hash, network, expected_recipient,
 *      expected_token_contract, expected_amount. That field gives
 *        - validation_error when it is missing (tx_hash, network) or has the wrong JSON type
 *          (anything but a string; `null` is allowed for the expected_* fields and means absent);
 *        - otherwise its own code: malformed_tx_hash, invalid_network, invalid_tron_address (both
 *          address fields) or invalid_expected_amount. A JSON number for expected_amount is
 *          invalid_expected_amount, not validation_error, as the spec names it.
 *
 * Normalization (what a fingerprint compares): tx_hash lower case; absent = null for expected_*;
 * expected_amount without leading integer zeros and trailing fraction zeros ("01.50" → "1.5",
 * "0.0" → "0"); addresses unchanged (base58 is case-sensitive).
 */
import { hash } from 'node:crypto';
import { decode, type DecodeError } from '@tron-safety/codec';
import { err, ok, type Result } from 'neverthrow';
import type { Expectations } from '../assessment/input.js';
import { TransactionCheckRequest } from '../contract/models.js';
import type { Network } from '../contract/enums.js';
import { MAX_AMOUNT_LENGTH } from '../tron/amount.js';
import { parseJsonBody } from './json-body.js';
import { clip, requestError, type RequestError, type RequestErrorCode } from './request-error.js';

export interface NormalizedCheckRequest {
  /** Lower case. */
  txHash: string;
  network: Network;
  expectations: Expectations;
  /** SHA-256 (hex) of the canonical JSON of the normalized body: equal for the same logical request. */
  readonly fingerprint: string;
}

/** Every field in precedence order, with the code and rule of a wrong value. */
const FIELDS = {
  tx_hash: { code: 'malformed_tx_hash', rule: 'must be 64 hexadecimal characters' },
  network: { code: 'invalid_network', rule: 'must be "tron"' },
  expected_recipient: { code: 'invalid_tron_address', rule: 'must be a TRON address (base58check)' },
  expected_token_contract: { code: 'invalid_tron_address', rule: 'must be a TRON address (base58check)' },
  expected_amount: {
    code: 'invalid_expected_amount',
    rule: `must be a nonnegative decimal string of at most ${MAX_AMOUNT_LENGTH} characters, without sign, exponent or spaces`,
  },
} as const satisfies Record<keyof TransactionCheckRequest, { code: RequestErrorCode; rule: string }>;
type Field = keyof typeof FIELDS;
const isField = (key: string): key is Field => Object.hasOwn(FIELDS, key);

export function validateCheckRequest(body: Uint8Array): Result<NormalizedCheckRequest, RequestError> {
  return parseJsonBody(body).andThen((json) => {
    const decoded = decode(TransactionCheckRequest, json);
    return decoded.isOk() ? ok(normalize(decoded.value)) : err(explain(json, decoded.error));
  });
}

/** The one error of a body the codec rejected, by the precedence above. */
function explain(json: unknown, error: DecodeError): RequestError {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return requestError('validation_error', 'request body must be a JSON object');
  }
  const unknown = Object.keys(json).filter((key) => !isField(key));
  if (unknown.length > 0) {
    const more = unknown.length > 1 ? ` (and ${unknown.length - 1} more)` : '';
    return requestError('validation_error', `unknown field ${clip(unknown[0]!)}${more}`);
  }
  const failed = new Set(error.fields);
  const field = (Object.keys(FIELDS) as Field[]).find((f) => failed.has(f));
  if (!field) return requestError('validation_error', 'request body is invalid');
  const value = (json as Record<string, unknown>)[field];
  if (value === undefined) return requestError('validation_error', `${field} is required`);
  if (field === 'expected_amount' && typeof value === 'number') {
    return requestError('invalid_expected_amount', 'expected_amount must be a decimal string, not a JSON number');
  }
  if (typeof value !== 'string') {
    const nullable = field.startsWith('expected_') ? ' or null' : '';
    return requestError('validation_error', `${field} must be a string${nullable}`);
  }
  return requestError(FIELDS[field].code, `${field} ${FIELDS[field].rule}`);
}

function normalize(request: TransactionCheckRequest): NormalizedCheckRequest {
  return new CheckRequest({
    tx_hash: request.tx_hash.toLowerCase(),
    network: request.network,
    expected_recipient: request.expected_recipient ?? null,
    expected_token_contract: request.expected_token_contract ?? null,
    expected_amount: request.expected_amount == null ? null : canonicalAmount(request.expected_amount),
  });
}

/** A normalized request, from its canonical body (the spec's field names, absent as null, in the spec's order). */
class CheckRequest implements NormalizedCheckRequest {
  readonly txHash: string;
  readonly network: Network;
  readonly expectations: Expectations;
  #fingerprint: string | undefined;

  constructor(private readonly canonical: Canonical) {
    this.txHash = canonical.tx_hash;
    this.network = canonical.network;
    this.expectations = {
      recipient: canonical.expected_recipient,
      tokenContract: canonical.expected_token_contract,
      amount: canonical.expected_amount,
    };
  }

  /** Computed when first read: only a request with an Idempotency-Key needs it. */
  get fingerprint(): string {
    // Fixed key order and only strings/null: JSON.stringify is canonical here.
    return (this.#fingerprint ??= hash('sha256', JSON.stringify(this.canonical), 'hex'));
  }
}

interface Canonical {
  tx_hash: string;
  network: Network;
  expected_recipient: string | null;
  expected_token_contract: string | null;
  expected_amount: string | null;
}

/** The shortest spelling of a plain decimal string: "01.50" → "1.5", "0.0" → "0". */
export function canonicalAmount(value: string): string {
  const point = value.indexOf('.');
  const whole = point === -1 ? value : value.slice(0, point);
  const second = point === -1 ? -1 : value.indexOf('.', point + 1);
  const fraction = point === -1 ? '' : value.slice(point + 1, second === -1 ? value.length : second);
  const integer = whole.replace(/^0+(?=\d)/, '');
  const decimals = fraction.replace(/0+$/, '');
  return decimals ? `${integer}.${decimals}` : integer;
}
