import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ErrorCode } from '../src/contract/enums.js';
import { MAX_BODY_BYTES } from '../src/runtime/http.js';
import {
  validateCheckRequest,
  validateIdempotencyKey,
  validateUsageQuery,
  type RequestErrorCode,
} from '../src/validation/index.js';

const HASH = '0130dfde5a5e7cd45ffa2e6c5d0d3d8a3fa8b4b9c0f1e2d3c4b5a69788796a5b';
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const PAYEE = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx';
const utf8 = (s: string) => new TextEncoder().encode(s);
const json = (fields: Record<string, unknown>) => JSON.stringify({ tx_hash: HASH, network: 'tron', ...fields });
const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...utf8(p)] : p)));
/** A valid body padded with insignificant whitespace to exactly `size` bytes. */
const padded = (size: number) => {
  const body = json({});
  return body.slice(0, -1) + ' '.repeat(size - body.length) + '}';
};

type Case = [name: string, body: string | Uint8Array, code: RequestErrorCode];

const BAD_BODIES: Case[] = [
  // payload_too_large: checked on the raw bytes before anything else
  ['one byte over 4 KiB, otherwise valid', padded(MAX_BODY_BYTES + 1), 'payload_too_large'],
  ['10 KiB of invalid UTF-8', new Uint8Array(10 * 1024).fill(0xff), 'payload_too_large'],
  ['5000 bytes of unparseable JSON', '['.repeat(5000), 'payload_too_large'],
  ['over 4 KiB with an unknown field', json({ junk: 'x'.repeat(5000) }), 'payload_too_large'],
  // validation_error: not a JSON object
  ['empty body', '', 'validation_error'],
  ['whitespace only', ' \n\t', 'validation_error'],
  ['null', 'null', 'validation_error'],
  ['array', '[]', 'validation_error'],
  ['array of a valid body', `[${json({})}]`, 'validation_error'],
  ['string', '"x"', 'validation_error'],
  ['number', '42', 'validation_error'],
  ['boolean', 'true', 'validation_error'],
  ['truncated JSON', '{"tx_hash":', 'validation_error'],
  ['trailing garbage', `${json({})} x`, 'validation_error'],
  ['single quotes', `{'tx_hash':'${HASH}','network':'tron'}`, 'validation_error'],
  ['NaN literal', `{"tx_hash":"${HASH}","network":"tron","expected_amount":NaN}`, 'validation_error'],
  ['invalid UTF-8 in a value', bytes('{"tx_hash":"', [0xff, 0xfe], `","network":"tron"}`), 'validation_error'],
  ['overlong UTF-8 encoding', bytes('{"tx_hash":"', [0xc0, 0xaf], `","network":"tron"}`), 'validation_error'],
  ['lone surrogate bytes', bytes('{"network":"', [0xed, 0xa0, 0x80], '"}'), 'validation_error'],
  ['UTF-8 byte order mark', bytes([0xef, 0xbb, 0xbf], json({})), 'validation_error'],
  // validation_error: shape
  ['empty object', '{}', 'validation_error'],
  ['missing tx_hash', '{"network":"tron"}', 'validation_error'],
  ['missing network', `{"tx_hash":"${HASH}"}`, 'validation_error'],
  ['unknown field', json({ foo: 1 }), 'validation_error'],
  ['field name in another case', `{"TX_HASH":"${HASH}","network":"tron"}`, 'validation_error'],
  ['__proto__ key', `{"__proto__":{"polluted":true},"tx_hash":"${HASH}","network":"tron"}`, 'validation_error'],
  ['constructor key', json({ constructor: { prototype: {} } }), 'validation_error'],
  ['toString key', json({ toString: 'x' }), 'validation_error'],
  ['a 3 KB unknown field name', json({ ['k'.repeat(3000)]: 1 }), 'validation_error'],
  ['unknown field outranks a malformed tx_hash', '{"tx_hash":"zz","extra":1}', 'validation_error'],
  ['repeated key', `{"tx_hash":"${HASH}","network":"tron","tx_hash":"${HASH}"}`, 'validation_error'],
  [
    'repeated key spelt with an escape',
    `{"tx_hash":"${HASH}","network":"tron","tx\\u005fhash":"${HASH}"}`,
    'validation_error',
  ],
  [
    'repeated key in nested junk',
    `{"tx_hash":"${HASH}","network":"tron","expected_amount":[{"a":1,"a":2}]}`,
    'validation_error',
  ],
  ['tx_hash a number', '{"tx_hash":123,"network":"tron"}', 'validation_error'],
  ['tx_hash null', '{"tx_hash":null,"network":"tron"}', 'validation_error'],
  ['tx_hash nested junk', `{"tx_hash":{"a":[1,{"b":null}]},"network":"tron"}`, 'validation_error'],
  ['wrong type outranks a later bad value', '{"tx_hash":[],"network":"eth"}', 'validation_error'],
  ['network null', `{"tx_hash":"${HASH}","network":null}`, 'validation_error'],
  ['network an array', `{"tx_hash":"${HASH}","network":["tron"]}`, 'validation_error'],
  ['expected_recipient a number', json({ expected_recipient: 41 }), 'validation_error'],
  ['expected_token_contract an object', json({ expected_token_contract: { address: USDT } }), 'validation_error'],
  ['expected_amount a boolean', json({ expected_amount: true }), 'validation_error'],
  ['expected_amount an array', json({ expected_amount: ['1'] }), 'validation_error'],
  // malformed_tx_hash
  ['63 hex characters', json({ tx_hash: HASH.slice(1) }), 'malformed_tx_hash'],
  ['65 hex characters', json({ tx_hash: `${HASH}0` }), 'malformed_tx_hash'],
  ['a non-hex letter', json({ tx_hash: `g${HASH.slice(1)}` }), 'malformed_tx_hash'],
  ['0x prefix', json({ tx_hash: `0x${HASH}` }), 'malformed_tx_hash'],
  ['empty tx_hash', json({ tx_hash: '' }), 'malformed_tx_hash'],
  ['tx_hash with spaces', json({ tx_hash: ` ${HASH.slice(2)} ` }), 'malformed_tx_hash'],
  ['fullwidth hex digit', json({ tx_hash: `\uff41${HASH.slice(1)}` }), 'malformed_tx_hash'],
  ['4000-character tx_hash', json({ tx_hash: 'a'.repeat(4000) }), 'malformed_tx_hash'],
  ['tx_hash outranks network', json({ tx_hash: 'x', network: 'eth' }), 'malformed_tx_hash'],
  // invalid_network
  ['network TRON', json({ network: 'TRON' }), 'invalid_network'],
  ['network with a space', json({ network: 'tron ' }), 'invalid_network'],
  ['network ethereum', json({ network: 'ethereum' }), 'invalid_network'],
  ['network empty', json({ network: '' }), 'invalid_network'],
  ['network trx', json({ network: 'trx' }), 'invalid_network'],
  ['network outranks an address', json({ network: 'tron-mainnet', expected_recipient: 'x' }), 'invalid_network'],
  // invalid_tron_address
  ['recipient with a bad checksum', json({ expected_recipient: `${USDT.slice(0, -1)}u` }), 'invalid_tron_address'],
  [
    'recipient in hex',
    json({ expected_recipient: '41a614f803b6fd780986a42c78ec9c7f77e6ded13c' }),
    'invalid_tron_address',
  ],
  [
    'recipient EVM style',
    json({ expected_recipient: '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c' }),
    'invalid_tron_address',
  ],
  ['contract with a non-base58 0', json({ expected_token_contract: `${USDT.slice(0, -1)}0` }), 'invalid_tron_address'],
  ['bitcoin address', json({ expected_recipient: '1CF46Rfbp97absrs7zb7dFfZS6qBXUm9EP' }), 'invalid_tron_address'],
  ['empty address', json({ expected_token_contract: '' }), 'invalid_tron_address'],
  ['address in lower case', json({ expected_recipient: PAYEE.toLowerCase() }), 'invalid_tron_address'],
  ['address with a trailing space', json({ expected_recipient: `${PAYEE} ` }), 'invalid_tron_address'],
  ['address outranks amount', json({ expected_token_contract: 'T', expected_amount: '-1' }), 'invalid_tron_address'],
  // invalid_expected_amount
  ['JSON number', json({ expected_amount: 1.5 }), 'invalid_expected_amount'],
  ['JSON zero', json({ expected_amount: 0 }), 'invalid_expected_amount'],
  [
    'JSON number with exponent',
    '{"tx_hash":"' + HASH + '","network":"tron","expected_amount":1e400}',
    'invalid_expected_amount',
  ],
  ['exponent', json({ expected_amount: '1e5' }), 'invalid_expected_amount'],
  ['negative', json({ expected_amount: '-1' }), 'invalid_expected_amount'],
  ['plus sign', json({ expected_amount: '+1' }), 'invalid_expected_amount'],
  ['leading space', json({ expected_amount: ' 1' }), 'invalid_expected_amount'],
  ['trailing newline', json({ expected_amount: '1\n' }), 'invalid_expected_amount'],
  ['empty amount', json({ expected_amount: '' }), 'invalid_expected_amount'],
  ['trailing point', json({ expected_amount: '1.' }), 'invalid_expected_amount'],
  ['leading point', json({ expected_amount: '.5' }), 'invalid_expected_amount'],
  ['decimal comma', json({ expected_amount: '1,5' }), 'invalid_expected_amount'],
  ['thousands separator', json({ expected_amount: '1,000.5' }), 'invalid_expected_amount'],
  ['hex amount', json({ expected_amount: '0x10' }), 'invalid_expected_amount'],
  ['321 characters', json({ expected_amount: '1'.repeat(321) }), 'invalid_expected_amount'],
  ['Infinity', json({ expected_amount: 'Infinity' }), 'invalid_expected_amount'],
  ['fullwidth digit', json({ expected_amount: '\uff11' }), 'invalid_expected_amount'],
  ['two points', json({ expected_amount: '1.2.3' }), 'invalid_expected_amount'],
];

const FIELD_CODES = new Set<RequestErrorCode>([
  'malformed_tx_hash',
  'invalid_network',
  'invalid_tron_address',
  'invalid_expected_amount',
]);

test(`${BAD_BODIES.length} bad bodies each give exactly their code, with a short message`, () => {
  assert.equal(new Set(BAD_BODIES.map(([name]) => name)).size, BAD_BODIES.length, 'case names are distinct');
  for (const [name, body, code] of BAD_BODIES) {
    const result = validateCheckRequest(typeof body === 'string' ? utf8(body) : body);
    assert.ok(result.isErr(), name);
    assert.equal(result.error.code, code, name);
    assert.ok(ErrorCode.is(result.error.code), name);
    assert.ok(
      result.error.message.length > 0 && result.error.message.length <= 200,
      `${name}: ${result.error.message}`,
    );
    if (FIELD_CODES.has(code)) assert.match(result.error.message, /^(tx_hash|network|expected_\w+) /, name);
  }
});

test('every 422 code has cases (invalid_idempotency_key: the header cases below)', () => {
  const covered = new Set([...BAD_BODIES.map(([, , code]) => code), 'invalid_idempotency_key']);
  assert.deepEqual([...covered].sort(), [
    'invalid_expected_amount',
    'invalid_idempotency_key',
    'invalid_network',
    'invalid_tron_address',
    'malformed_tx_hash',
    'payload_too_large',
    'validation_error',
  ]);
});

test('a JSON __proto__ key pollutes nothing', () => {
  const body = `{"__proto__":{"polluted":true},"tx_hash":"${HASH}","network":"tron"}`;
  assert.equal(validateCheckRequest(utf8(body))._unsafeUnwrapErr().code, 'validation_error');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('arbitrary JSON and arbitrary bytes never throw and yield ok or a 422 code', () => {
  const codes = new Set<string>([
    'malformed_tx_hash',
    'invalid_network',
    'invalid_tron_address',
    'invalid_expected_amount',
    'payload_too_large',
    'validation_error',
  ]);
  const fieldValue = fc.oneof(fc.jsonValue(), fc.constantFrom(HASH, 'tron', USDT, '1.5'));
  const bodies = fc.oneof(
    fc.jsonValue().map((v) => utf8(JSON.stringify(v) ?? '')),
    fc.uint8Array({ maxLength: 64 }),
    fc
      .record(
        { tx_hash: fieldValue, network: fieldValue, expected_recipient: fieldValue, expected_amount: fieldValue },
        { requiredKeys: [] },
      )
      .map((v) => utf8(JSON.stringify(v))),
  );
  fc.assert(
    fc.property(bodies, (body) => {
      const result = validateCheckRequest(body);
      return result.isOk() || codes.has(result.error.code);
    }),
    { seed: 20261121, numRuns: 500 },
  );
});

// ---- good bodies ---------------------------------------------------------------------------

const check = (body: string) => validateCheckRequest(utf8(body))._unsafeUnwrap();

test('a minimal body normalizes: hash lower case, no expectations', () => {
  const request = check(json({ tx_hash: HASH.toUpperCase() }));
  assert.equal(request.txHash, HASH);
  assert.equal(request.network, 'tron');
  assert.deepEqual(request.expectations, { recipient: null, tokenContract: null, amount: null });
  assert.match(request.fingerprint, /^[0-9a-f]{64}$/);
});

test('all expectations are kept, addresses unchanged, amount canonical', () => {
  const request = check(
    json({ expected_recipient: PAYEE, expected_token_contract: USDT, expected_amount: '0041.6773890' }),
  );
  assert.deepEqual(request.expectations, { recipient: PAYEE, tokenContract: USDT, amount: '41.677389' });
});

test('amounts are canonicalized without changing their value', () => {
  const cases: [string, string][] = [
    ['1.50', '1.5'],
    ['01.5', '1.5'],
    ['1.500000000', '1.5'],
    ['0', '0'],
    ['000', '0'],
    ['0.0', '0'],
    ['0.05', '0.05'],
    ['100', '100'],
    ['100.000', '100'],
    ['007.0100', '7.01'],
  ];
  for (const [input, canonical] of cases) {
    assert.equal(check(json({ expected_amount: input })).expectations.amount, canonical, input);
  }
});

test('limits are inclusive: a 4096-byte body and a 320-character amount are accepted', () => {
  assert.equal(utf8(padded(MAX_BODY_BYTES)).length, MAX_BODY_BYTES);
  assert.ok(validateCheckRequest(utf8(padded(MAX_BODY_BYTES))).isOk());
  assert.ok(validateCheckRequest(utf8(json({ expected_amount: `1.${'0'.repeat(318)}` }))).isOk());
});

test('equivalent bodies have equal fingerprints', () => {
  const base = check(json({ expected_recipient: PAYEE, expected_amount: '1.5' })).fingerprint;
  const equivalent = [
    json({ tx_hash: HASH.toUpperCase(), expected_recipient: PAYEE, expected_amount: '1.50' }),
    json({ expected_recipient: PAYEE, expected_amount: '01.5', expected_token_contract: null }),
    `{"expected_amount":"1.500","network":"tron","expected_recipient":"${PAYEE}","tx_hash":"${HASH}"}`,
    ` \n${json({ expected_recipient: PAYEE, expected_amount: '1.5' })}\r\n`,
  ];
  for (const body of equivalent) assert.equal(check(body).fingerprint, base, body);
  assert.equal(
    check(json({})).fingerprint,
    check(json({ expected_recipient: null, expected_token_contract: null, expected_amount: null })).fingerprint,
  );
});

test('different logical requests have different fingerprints', () => {
  const bodies = [
    json({}),
    json({ tx_hash: `${HASH.slice(0, -1)}c` }),
    json({ expected_recipient: PAYEE }),
    json({ expected_recipient: USDT }),
    json({ expected_token_contract: PAYEE }),
    json({ expected_recipient: PAYEE, expected_token_contract: USDT }),
    json({ expected_recipient: USDT, expected_token_contract: PAYEE }),
    json({ expected_amount: '0' }),
    json({ expected_amount: '1' }),
    json({ expected_amount: '10' }),
    json({ expected_amount: '1.05' }),
    json({ expected_amount: '1.5' }),
    json({ expected_amount: '15' }),
  ];
  const fingerprints = bodies.map((body) => check(body).fingerprint);
  assert.equal(new Set(fingerprints).size, bodies.length);
});

// ---- Idempotency-Key ---------------------------------------------------------------------

const BAD_KEYS: [string, string | string[]][] = [
  ['empty', ''],
  ['129 characters', 'k'.repeat(129)],
  ['leading space', ' key'],
  ['trailing space', 'key '],
  ['only a space', ' '],
  ['tab', 'a\tb'],
  ['newline', 'a\nb'],
  ['DEL', 'a\x7fb'],
  ['NUL', 'a\0b'],
  ['non-ASCII', 'clé'],
  ['emoji', 'key-\u{1f511}'],
  ['repeated header', ['a', 'a']],
  ['repeated, different', ['a', 'b']],
  ['empty array', []],
];

test('Idempotency-Key: absent is null, valid keys are kept as sent', () => {
  assert.equal(validateIdempotencyKey(undefined)._unsafeUnwrap(), null);
  const printable = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
  for (const key of ['a', 'k'.repeat(128), 'order 42 / retry', printable, '8e03978e-40d5-43e8-bc93-6894a57f9324']) {
    assert.equal(validateIdempotencyKey(key)._unsafeUnwrap(), key);
  }
});

test(`Idempotency-Key: ${BAD_KEYS.length} bad headers are invalid_idempotency_key`, () => {
  for (const [name, header] of BAD_KEYS) {
    const result = validateIdempotencyKey(header);
    assert.ok(result.isErr(), name);
    assert.equal(result.error.code, 'invalid_idempotency_key', name);
    assert.match(result.error.message, /Idempotency-Key/, name);
  }
});

// ---- usage query -------------------------------------------------------------------------

test('usage query: days defaults to 30, accepts 1 to 90 in plain digits', () => {
  assert.deepEqual(validateUsageQuery({})._unsafeUnwrap(), { days: 30 });
  assert.deepEqual(validateUsageQuery({ days: undefined })._unsafeUnwrap(), { days: 30 });
  for (const days of [1, 7, 30, 90])
    assert.deepEqual(validateUsageQuery({ days: String(days) })._unsafeUnwrap(), { days });
});

test('usage query: bad days, repeated or unknown parameters are validation_error', () => {
  const bad: Record<string, string | string[] | undefined>[] = [
    { days: '0' },
    { days: '91' },
    { days: '030' },
    { days: '1e1' },
    { days: '3.0' },
    { days: '+5' },
    { days: '-5' },
    { days: '' },
    { days: ' 5' },
    { days: '0x10' },
    { days: 'thirty' },
    { days: '99999999999999999999999' },
    { days: ['5', '5'] },
    { day: '7' },
    { days: '5', foo: 'x' },
    { ['p'.repeat(500)]: '1' },
    { ['__proto__']: '1' },
    { days: '7', ['constructor']: '1' },
  ];
  for (const query of bad) {
    const result = validateUsageQuery(query);
    assert.ok(result.isErr(), JSON.stringify(query));
    assert.equal(result.error.code, 'validation_error');
    assert.ok(result.error.message.length <= 120, result.error.message);
  }
});
