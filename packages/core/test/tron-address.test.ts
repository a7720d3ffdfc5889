import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { base58ToHexAddress, hexToBase58Address, isTronAddress } from '../src/tron/address.js';
import { sharedPath } from '../src/testing/shared.js';

const fixture = JSON.parse(readFileSync(sharedPath('fixtures/tron/addresses.json'), 'utf8')) as {
  valid: { base58: string; hex: string }[];
  invalid: { value: string }[];
};

test('the 8 valid fixture addresses are valid and round-trip through hex', () => {
  assert.equal(fixture.valid.length, 8);
  for (const { base58, hex } of fixture.valid) {
    assert.ok(isTronAddress(base58), base58);
    assert.equal(base58ToHexAddress(base58), hex.toLowerCase());
    assert.equal(hexToBase58Address(hex), base58);
    assert.equal(hexToBase58Address(hex.slice(2)), base58, 'log form without 41');
  }
});

test('the 8 invalid fixture addresses are rejected', () => {
  assert.equal(fixture.invalid.length, 8);
  for (const { value } of fixture.invalid) assert.equal(isTronAddress(value), false, value);
});
