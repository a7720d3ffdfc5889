import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startFakeTronNode, type FakeTronNode } from '@tron-safety/core/testing';
// store-postgres's test support: TEST_DATABASE_URL (CI) or a throwaway cluster, a schema per caller.
import { startTestPostgres, type TestDatabase, type TestPostgres } from '@tron-safety/store-postgres/testing';
import { parseConfig } from '../src/config.js';
import { startHost, type RunningHost } from '../src/host.js';
import { createLogger } from '../src/log.js';
import { HttpSession, portalSeedFile } from './portal-support.js';

// Control characters never reach the database: a NUL (or any C0 character or DEL) in a portal form's
// email or key label is refused as the wrong input it is, on memory and on PostgreSQL alike (whose
// text columns refuse U+0000: it was a 500 there, and stored by memory); so is a C1 character or a
// direction control (U+202E makes `moc.elpmaxe@nimda` display as an address it is not). A seed file
// holding C0 or DEL in a name, label or email refuses the start, naming the entry; C1 and direction
// controls it may hold, as text stored before they were refused (the file is memory mode's stored state).

const postgres: TestPostgres = await startTestPostgres();
const RLM = '\u200f';
const MODES = ['memory', 'postgres'] as const;

describe('Stored text: control characters in the portal, on both stores', { skip: postgres.skip }, () => {
  let db: TestDatabase;
  let node: FakeTronNode;
  const hosts: Partial<Record<(typeof MODES)[number], RunningHost>> = {};
  before(async () => {
    db = await postgres.createDatabase();
    node = await startFakeTronNode();
    for (const mode of MODES) {
      const env: Record<string, string> = {
        PORT: '0',
        OFAC_SDN_URL: 'off',
        TRON_FULLNODE_URL: node.url,
        SAFETY_SEED_FILE: portalSeedFile(),
        ...(mode === 'postgres' ? { DATABASE_URL: db.url } : {}),
      };
      hosts[mode] = (await startHost(parseConfig(env)._unsafeUnwrap(), createLogger('silent')))._unsafeUnwrap();
    }
  });
  after(async () => {
    await Promise.all(Object.values(hosts).map((h) => h.stop('test end')));
    await node?.close();
    await db?.drop();
    await postgres.stop();
  });
  const signedIn = async (mode: (typeof MODES)[number]) => {
    const session = new HttpSession(hosts[mode]!.url);
    assert.equal((await session.signIn('owner@example.com')).status, 303);
    return session;
  };

  test('memory and postgres: a seed file holding a name, label or email stored before C1 and direction controls were refused starts the host, and starts it again', async () => {
    const fresh = await postgres.createDatabase();
    try {
      for (const mode of MODES) {
        const path = portalSeedFile([{ email: `owner${RLM}@example.com`, role: 'owner', password: 'a long password' }]);
        const seed = JSON.parse(readFileSync(path, 'utf8')) as SeedDocument;
        seed.plans[0]!.name = 'Team\u0085';
        seed.organizations[0]!.name = `شركة الدفع${RLM} 2`;
        seed.organizations[0]!.api_keys = [
          { label: `תשלומים${RLM}`, key: 'tsk_live_stored_text_0123456789abcdef', revoked: false },
        ];
        writeFileSync(path, JSON.stringify(seed));
        const env = {
          PORT: '0',
          OFAC_SDN_URL: 'off',
          TRON_FULLNODE_URL: node.url,
          SAFETY_SEED_FILE: path,
          ...(mode === 'postgres' ? { DATABASE_URL: fresh.url } : {}),
        };
        for (const start of ['first', 'next']) {
          const started = await startHost(parseConfig(env)._unsafeUnwrap(), createLogger('silent'));
          assert.ok(started.isOk(), `${mode}, ${start} start: ${started.isErr() ? started.error.message : ''}`);
          await started.value.stop('test end');
        }
      }
    } finally {
      await fresh.drop();
    }
  });

  for (const mode of MODES) {
    test(`${mode}: a sign-in whose email holds a NUL is 401, never a 500`, async () => {
      const answer = await new HttpSession(hosts[mode]!.url).signIn('owner@example.com\u0000');
      assert.equal(answer.status, 401);
    });

    test(`${mode}: an invitation to an email with a control character (C0, DEL, C1, direction) is 422 and stores nothing`, async () => {
      const s = await signedIn(mode);
      const emails = [
        'new\u0000@example.com',
        'new\u001b@example.com',
        'new@example.com\u007f',
        'new\u0085@example.com',
      ];
      for (const email of [
        ...emails,
        '\u202emoc.elpmaxe@nimda',
        'admin\u2066@example.com',
        'admin@example.com\u200f',
      ]) {
        const page = await s.send('GET', '/portal/members');
        const answer = await s.send('POST', '/portal/members', { csrf: page.csrf, email, role: 'viewer' });
        assert.equal(answer.status, 422, JSON.stringify(email));
      }
      const operator = { kind: 'operator' } as const;
      const service = hosts[mode]!.service;
      const orgId = (await service.admin.listOrganizations(operator))._unsafeUnwrap()[0]!.id;
      const members = (await service.admin.members.listMembers(operator, orgId))._unsafeUnwrap();
      assert.deepEqual(
        members.map((m) => m.email),
        ['owner@example.com'],
      );
    });

    test(`${mode}: a key label with a control character (C0, DEL, C1, direction) is 422 and creates no key`, async () => {
      const s = await signedIn(mode);
      for (const label of [
        'checkout\u0000server',
        'checkout\nserver',
        'checkout\u007f',
        'checkout\u009b',
        'prod \u202etset',
      ]) {
        const page = await s.send('GET', '/portal/keys');
        const answer = await s.send('POST', '/portal/keys', { csrf: page.csrf, label });
        assert.equal(answer.status, 422, JSON.stringify(label));
        assert.match(answer.body, /without control characters/);
      }
      const page = await s.send('GET', '/portal/keys');
      assert.match(page.body, /No keys yet/);
    });

    test(`${mode}: the check form's fields with a NUL are 422, never a 500`, async () => {
      const s = await signedIn(mode);
      const fields: Record<string, string>[] = [{ idempotency_key: 'portal-\u0000x' }, { expected_amount: '1\u0000' }];
      for (const extra of fields) {
        const page = await s.send('GET', '/portal/check');
        const form = { csrf: page.csrf, tx_hash: 'a'.repeat(64), network: 'tron', idempotency_key: 'portal-k2' };
        const answer = await s.send('POST', '/portal/check', { ...form, ...extra });
        assert.equal(answer.status, 422, JSON.stringify(extra));
      }
    });
  }
});

test('Stored text: a seed file with a C0 control or DEL in a name, label or email refuses the start, naming the entry', async () => {
  const node = await startFakeTronNode();
  try {
    const cases: [string, (seed: SeedDocument) => void][] = [
      ['seed:plans[0]', (seed) => (seed.plans[0]!.name = 'Team\u0000')],
      ['seed:organizations[0]', (seed) => (seed.organizations[0]!.name = 'Acme\u0007Pay')],
      ['seed:plans[0]', (seed) => (seed.plans[0]!.name = 'Team\u007f')],
      ['seed:organizations[0].api_keys[0]', (seed) => (seed.organizations[0]!.api_keys[0]!.label = 'ci\n')],
      [
        'seed:organizations[0].members[0]',
        (seed) => (seed.organizations[0]!.members[0]!.email = 'owner\u0000@example.com'),
      ],
    ];
    for (const [field, spoil] of cases) {
      const path = portalSeedFile();
      const seed = JSON.parse(readFileSync(path, 'utf8')) as SeedDocument;
      seed.organizations[0]!.api_keys = [{ label: 'ci', key: 'tsk_live_stored_text_0123456789abcdef', revoked: false }];
      spoil(seed);
      writeFileSync(path, JSON.stringify(seed));
      const env = { PORT: '0', OFAC_SDN_URL: 'off', TRON_FULLNODE_URL: node.url, SAFETY_SEED_FILE: path };
      const started = await startHost(parseConfig(env)._unsafeUnwrap(), createLogger('silent'));
      if (started.isOk()) await started.value.stop('test end');
      assert.equal(started.isErr() && started.error.field, field);
    }
  } finally {
    await node.close();
  }
});

interface SeedDocument {
  plans: { name: string }[];
  organizations: {
    name: string;
    api_keys: { label: string; key: string; revoked: boolean }[];
    members: { email: string }[];
  }[];
}
