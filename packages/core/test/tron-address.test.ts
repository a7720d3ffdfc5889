import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { base58ToHexAddress, encodeBase58Address, hexToBase58Address, isTronAddress } from '../src/tron/address.js';
import { fixturePath } from '../src/testing/fixtures.js';

const fixture = JSON.parse(readFileSync(fixturePath('tron/addresses.json'), 'utf8')) as {
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

// ---- sanctions lists: every T-address is valid, every other address is not a TRON address ----

const SANCTIONS = fixturePath('sanctions');
const listed = readdirSync(SANCTIONS)
  .filter((name) => name.endsWith('.txt') && name !== 'SOURCE.txt')
  .flatMap((name) =>
    readFileSync(join(SANCTIONS, name), 'utf8')
      .split(/\r?\n/)
      .map((line) => line.split(';')[0]!.trim()) // named lists: `address;names`
      .filter((address) => address.length > 0)
      .map((address) => ({ name, address })),
  );

test('every T-address of the sanctions lists is a valid TRON address', () => {
  const tron = listed.filter(({ address }) => address.startsWith('T'));
  assert.ok(tron.length >= 184 + 6 + 29 + 78, `found ${tron.length}`);
  for (const { name, address } of tron) assert.ok(isTronAddress(address), `${name}: ${address}`);
  const json = JSON.parse(readFileSync(join(SANCTIONS, 'ofac_trx.json'), 'utf8')) as string[];
  assert.ok(json.length === 184 && json.every(isTronAddress));
});

test('the non-TRON addresses of the USDT list (EVM, bitcoin) are rejected', () => {
  const other = listed.filter(({ address }) => !address.startsWith('T'));
  assert.equal(other.length, 93 - 78);
  for (const { address } of other) assert.equal(isTronAddress(address), false, address);
});

// ---- single-character flips --------------------------------------------------------------
//
// Base58 has no aliases: each of its 58 characters is a distinct digit, so a flip always
// changes the 25 decoded bytes (no "equivalent" flip exists, unlike case in hex). A changed
// payload or checksum is rejected unless the new payload happens to match the new checksum,
// which a 32-bit checksum allows with probability about 2^-32 per flip. The runs below are
// deterministic (fixed inputs and seed), so they cannot flake; they try about 18,000 flips, so
// the chance that such a collision exists among them is about 4e-6, and a failure here would
// be a real, reproducible checksum collision to study, not noise.

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const flip = (address: string, index: number, char: string) =>
  address.slice(0, index) + char + address.slice(index + 1);

test('every single-character flip of the fixture addresses is rejected (exhaustive)', () => {
  for (const { base58 } of fixture.valid) {
    for (let i = 0; i < base58.length; i++) {
      for (const char of `${BASE58}0OIl `) {
        if (char !== base58[i]) assert.equal(isTronAddress(flip(base58, i, char)), false, flip(base58, i, char));
      }
    }
  }
});

test('property: flipping any character of a random valid address to another base58 character is rejected', () => {
  const address = fc
    .uint8Array({ minLength: 20, maxLength: 20 })
    .map((account) => encodeBase58Address(Uint8Array.of(0x41, ...account)));
  fc.assert(
    fc.property(address, fc.nat(33), fc.nat(56), (valid, index, pick) => {
      assert.ok(isTronAddress(valid) && valid.length === 34 && valid.startsWith('T'));
      const others = BASE58.replace(valid[index]!, '');
      return !isTronAddress(flip(valid, index, others[pick]!));
    }),
    { seed: 42, numRuns: 2000 },
  );
});

test('property: hex and base58 forms round-trip', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (account) => {
      const hex = `41${Buffer.from(account).toString('hex')}`;
      const base58 = hexToBase58Address(hex)!;
      return base58ToHexAddress(base58) === hex && hexToBase58Address(hex.slice(2)) === base58;
    }),
    { seed: 7, numRuns: 500 },
  );
});
