import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as t from 'io-ts';
import { decode, formatDecodeError } from '../src/index.js';

const Version = t.refinement(t.number, (n) => Number.isInteger(n) && n >= 1, 'positive integer');
const Plan = t.strict({ code: t.string, version: Version }, 'Plan');
const Doc = t.strict({
  plans: t.array(Plan),
  owner: t.union([t.strict({ email: t.string }), t.null]),
  extra: t.intersection([t.type({ a: t.string }), t.partial({ b: t.boolean })]),
});
const good = { plans: [{ code: 'p', version: 1 }], owner: null, extra: { a: 'x' } };

describe('Decoding: one Result and one error shape for outside data', () => {
  test('a value that decodes is Ok with the decoded value', () => {
    assert.deepEqual(decode(Doc, good)._unsafeUnwrap(), good);
  });

  test('the error names the path (array index in brackets), what is expected and what was found', () => {
    const e = decode(Doc, { ...good, plans: [good.plans[0], { code: 'q', version: 0 }] })._unsafeUnwrapErr();
    assert.deepEqual(e, { path: 'plans[1].version', expected: 'positive integer', found: '0', fields: ['plans'] });
    assert.equal(formatDecodeError(e), 'plans[1].version: expected positive integer, found 0');
  });

  test("a union's or an intersection's member index is not part of the path", () => {
    assert.equal(decode(Doc, { ...good, owner: { email: 5 } })._unsafeUnwrapErr().path, 'owner.email');
    assert.equal(decode(Doc, { ...good, extra: { a: 'x', b: 'yes' } })._unsafeUnwrapErr().path, 'extra.b');
  });

  test('found is the kind of value, never the text of a string (rows and files carry secrets)', () => {
    const found = (value: unknown) => decode(t.type({ n: t.number }), { n: value })._unsafeUnwrapErr().found;
    assert.deepEqual([undefined, null, true, 'hunter2', [], {}].map(found), [
      'nothing',
      'null',
      'true',
      'a string',
      'an array',
      'an object',
    ]);
  });

  test('the value itself wrong: an empty path, worded as the top level', () => {
    const e = decode(Doc, 'nope')._unsafeUnwrapErr();
    assert.equal(e.path, '');
    assert.deepEqual(e.fields, []);
    assert.match(formatDecodeError(e), /^the top level: expected .+, found a string$/);
  });

  test('fields lists the top-level field of every failure once, first failure first', () => {
    const e = decode(Doc, { plans: [{ code: 1, version: 0 }], owner: 3, extra: {} })._unsafeUnwrapErr();
    assert.deepEqual(e.fields, ['plans', 'owner', 'extra']);
  });
});
