import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parseConfig } from '../src/config.js';
import { OTHER_TOOLS_VARIABLES, OWN_PREFIXES } from '../src/unknown-variables.js';

/** Every name `parseConfig` reads, recorded as it reads them. */
function namesRead(): string[] {
  const read = new Set<string>();
  parseConfig(
    new Proxy({} as Record<string, string | undefined>, {
      get: (_target, name) => void (typeof name === 'string' && read.add(name)),
    }),
  );
  return [...read];
}

describe('Configuration: a variable under the host prefixes that the host does not read refuses the start', () => {
  test('a misspelled SANCTIONS_LIST_FILE (its blocklist would never load, and its addresses be CLEAR) is refused, naming it and SANCTIONS_LIST_FILES', () => {
    const error = parseConfig({ SANCTIONS_LIST_FILE: '/etc/tron-safety/blocklist.txt' })._unsafeUnwrapErr();
    assert.equal(error.field, 'SANCTIONS_LIST_FILE');
    assert.match(error.message, /^SANCTIONS_LIST_FILE: .*did you mean SANCTIONS_LIST_FILES\?/);
  });

  test('each prefix of the host is guarded, and the closest name read is suggested', () => {
    // Each misspelled name, and the name it should have been.
    const meant: Record<string, string> = {
      TRON_FULL_NODE_URL: 'TRON_FULLNODE_URL',
      CHAINALYSIS_APIKEY: 'CHAINALYSIS_API_KEY',
      SANCTION_LIST_FILES: 'SANCTIONS_LIST_FILES',
      SANCTIONS_MAX_AGE_DAYS: 'SANCTIONS_LIST_MAX_AGE_DAYS',
      OFAC_URL: 'OFAC_SDN_URL',
      TOKEN_REGISTRY_FILES: 'TOKEN_REGISTRY_FILE',
      RISK_TIMEOUT: 'RISK_TIMEOUT_MS',
      SAFETY_SEED: 'SAFETY_SEED_FILE',
      DATABASE_URI: 'DATABASE_URL',
      PORTAL_PUBLIC_ORIGIN: 'PORTAL_PUBLIC_URL',
    };
    for (const [name, closest] of Object.entries(meant)) {
      const error = parseConfig({ [name]: 'x' })._unsafeUnwrapErr();
      assert.deepEqual([error.field, error.message.includes(`did you mean ${closest}?`)], [name, true], error.message);
    }
  });

  test('every variable the host reads is known (the set is what the parser reads, so it cannot drift)', () => {
    const names = namesRead();
    assert.ok(names.includes('SANCTIONS_LIST_FILES') && names.includes('OFAC_SDN_URL'), names.join());
    for (const name of names) {
      const message = parseConfig({ [name]: 'x' }).match(
        () => null,
        (error) => `${error.field} ${error.message}`,
      );
      assert.ok(message === null || (message.startsWith(`${name} `) && !message.includes('did you mean')), message!);
    }
  });

  test("other tools' variables are accepted: the client CLI's (read from its source), the test suite's, empty ones, other prefixes", () => {
    const client = readFileSync(new URL('../../../packages/client/src/cli/run.ts', import.meta.url), 'utf8');
    const clientNames = [...new Set([...client.matchAll(/env\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!))].filter((name) =>
      OWN_PREFIXES.some((prefix) => name.startsWith(prefix)),
    );
    assert.deepEqual(clientNames.sort(), [...OTHER_TOOLS_VARIABLES].sort());
    const env = {
      TRON_SAFETY_URL: 'http://127.0.0.1:8080',
      TRON_SAFETY_API_KEY: 'tsk_live_x',
      TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:55432/postgres',
      SANCTIONS_LIST_FILE: ' ',
      PATH: '/usr/bin',
      NODE_OPTIONS: '--conditions=source',
    };
    assert.ok(parseConfig(env).isOk(), JSON.stringify(parseConfig(env)));
  });

  test('an invalid value of a variable the host reads is still reported first, as before', () => {
    const error = parseConfig({ PORT: 'eighty', SANCTIONS_LIST_FILE: 'a.txt' })._unsafeUnwrapErr();
    assert.equal(error.field, 'PORT');
  });
});

test('Configuration: SANCTIONS_LIST_FILES set but naming no file (" , ") refuses the start, never "no list files"', () => {
  for (const value of [' , ', ',', ' ,, ']) {
    const error = parseConfig({ SANCTIONS_LIST_FILES: value })._unsafeUnwrapErr();
    assert.equal(error.field, 'SANCTIONS_LIST_FILES');
    assert.match(error.message, /^SANCTIONS_LIST_FILES: is set but names no file/);
  }
  assert.deepEqual(parseConfig({ SANCTIONS_LIST_FILES: '' })._unsafeUnwrap().risk.sanctionsListFiles, []);
});
