import assert from 'node:assert/strict';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hexToBase58Address, REGISTRY_KNOWN_TOKENS } from '@tron-safety/core/tron';
import { hostTokens } from '../src/token-registry-file.js';

const OWN = hexToBase58Address(`41${'cd'.repeat(20)}`)!;

function tokenFile(written: Date): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tron-safety-tokens-')), 'tokens.json');
  writeFileSync(path, JSON.stringify([{ contract: OWN, symbol: 'OWN', decimals: 6, name: 'Own Dollar' }]));
  utimesSync(path, written, written);
  return path;
}

test('TOKEN_REGISTRY_FILE is read once: its tokens join the risk registry and are seeded as of the file’s last change', () => {
  const now = new Date('2026-11-24T12:00:00Z');
  const written = new Date('2026-11-20T08:30:00Z');
  const tokens = hostTokens({ tokenRegistryFile: tokenFile(written), timeoutMs: 900 }, now)._unsafeUnwrap();
  assert.equal(tokens.risk.tokenRegistryFile, null);
  assert.equal(tokens.risk.timeoutMs, 900);
  assert.deepEqual(tokens.risk.extraTokens, [{ contract: OWN, symbol: 'OWN', decimals: 6, name: 'Own Dollar' }]);
  assert.deepEqual(tokens.knownTokens.slice(0, -1), REGISTRY_KNOWN_TOKENS);
  assert.deepEqual(tokens.knownTokens.at(-1), {
    contract: OWN,
    symbol: 'OWN',
    name: 'Own Dollar',
    decimals: 6,
    asOf: written,
  });
});

test('a token file changed in the future counts as written now: a seed is never younger than the clock', () => {
  const now = new Date('2026-11-24T12:00:00Z');
  const tokens = hostTokens({ tokenRegistryFile: tokenFile(new Date('2027-01-01T00:00:00Z')) }, now)._unsafeUnwrap();
  assert.deepEqual(tokens.knownTokens.at(-1)?.asOf, now);
});

test('without TOKEN_REGISTRY_FILE the bundled registry alone is seeded and the risk configuration is unchanged', () => {
  const risk = { timeoutMs: 900 };
  const tokens = hostTokens(risk)._unsafeUnwrap();
  assert.equal(tokens.risk, risk);
  assert.equal(tokens.knownTokens, REGISTRY_KNOWN_TOKENS);
});

test('an unreadable token file is a TOKEN_REGISTRY_FILE error naming the file', () => {
  const error = hostTokens({ tokenRegistryFile: '/nonexistent/tokens.json' })._unsafeUnwrapErr();
  assert.equal(error.field, 'TOKEN_REGISTRY_FILE');
  assert.match(error.message, /^TOKEN_REGISTRY_FILE: \/nonexistent\/tokens\.json: /);
});
