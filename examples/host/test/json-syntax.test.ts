import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { jsonSyntaxErrorAt } from '../src/json-syntax.js';

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

test('jsonSyntaxErrorAt finds an error exactly when JSON.parse refuses the text (JSON texts with hand-edit damage)', () => {
  const damage = fc.string({ unit: fc.constantFrom(...'{}[]":,\\ 0-1eE.tfnu\n\tx\u0001\ufeff'), maxLength: 3 });
  fc.assert(
    fc.property(fc.json(), fc.nat(), damage, fc.nat(3), (json, at, inserted, removed) => {
      const i = at % (json.length + 1);
      const text = json.slice(0, i) + inserted + json.slice(i + removed);
      assert.equal(jsonSyntaxErrorAt(text) === null, parses(text), JSON.stringify(text));
    }),
    { numRuns: 5_000 },
  );
});

test('jsonSyntaxErrorAt names the line and column of the first character that breaks JSON', () => {
  const cases: [string, number, number][] = [
    ['', 1, 1],
    ['\ufeff{}', 1, 1], // JSON.parse refuses a BOM
    ['{"a": 1,}', 1, 9],
    ['{"a": 1}\n x', 2, 2],
    ['[\n  "line\nbreak"]', 2, 8], // a raw line break inside a string
    ['{"a": "\\q"}', 1, 9],
    ['{"a": "\\u12G4"}', 1, 9],
    ['{"a": tru}', 1, 10],
    ['{"a": 01}', 1, 8],
    ['{\r\n"a" 1}', 2, 5],
    ['[[[', 1, 4],
    [`${'['.repeat(100_000)}x`, 1, 100_001], // any depth: no recursion
  ];
  for (const [text, line, column] of cases)
    assert.deepEqual(jsonSyntaxErrorAt(text), { line, column }, JSON.stringify(text.slice(0, 20)));
  assert.equal(jsonSyntaxErrorAt(' {"a": [1, -2.5e3, true, false, null, "\\u00e9\\n"]}\n'), null);
});
