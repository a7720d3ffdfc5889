import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runAdmin } from '../src/admin-cli.js';
import type { SeedFile } from '../src/seed-file.js';

// Lists are oldest first and ties by id (the same on every store), and the admin CLI writes the seed
// file in list order: entries it loads in one millisecond must not come back reordered, shuffled by
// ids made at load (members) or sorted by their own (organizations, keys).

const invitation = (c: string) => ({ token_sha256: c.repeat(64), expires_at: '2099-01-01T00:00:00Z' });
const org = (id: string, name: string, extra: object) => ({
  id,
  name,
  status: 'active',
  plan: { code: 'team', version: 1 },
  custom_entitlements: null,
  ...extra,
});
const SEED = {
  plans: [
    {
      code: 'team',
      version: 1,
      name: 'Team',
      rate_limit_per_minute: 1,
      max_concurrent_requests: 1,
      monthly_quota: 1,
      enabled_networks: ['tron'],
    },
  ],
  organizations: [
    org('ffffffff-0000-4000-8000-000000000001', 'Zeta', {
      api_keys: [
        { id: 'ffffffff-0000-4000-8000-00000000000a', label: 'z', key: `tsk_live_${'z'.repeat(30)}`, revoked: false },
        { id: '00000000-0000-4000-8000-00000000000b', label: 'a', key: `tsk_live_${'a'.repeat(30)}`, revoked: false },
      ],
      members: ['z', 'y', 'x', 'w'].map((c, i) => ({
        email: `${c}@example.com`,
        role: i === 0 ? 'owner' : 'viewer',
        invitation: invitation(String.fromCharCode(97 + i)),
      })),
    }),
    org('00000000-0000-4000-8000-000000000002', 'Alpha', { api_keys: [] }),
  ],
};

const order = (path: string) => {
  const seed = JSON.parse(readFileSync(path, 'utf8')) as SeedFile;
  return seed.organizations.map((o) => ({
    name: o.name,
    keys: o.api_keys.map((k) => k.label),
    members: (o.members ?? []).map((m) => m.email[0]),
  }));
};

test('Admin CLI (memory mode): a write keeps the seed file’s order of organizations, keys and members; new ones come last', async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'tron-safety-order-')), 'seed.json');
  writeFileSync(path, JSON.stringify(SEED));
  const before = order(path);
  t.mock.method(console, 'log', () => {});
  const plan = 'plans create --code pro --name Pro --rate-limit 1 --concurrency 1 --quota 1'.split(' ');
  for (let run = 0; run < 3; run++) {
    assert.equal(await runAdmin(['--seed-file', path, '--json', ...plan]), 0);
    assert.deepEqual(order(path), before, `write ${run + 1}`);
  }
  assert.equal(
    await runAdmin(['--seed-file', path, '--json', 'orgs', 'create', '--name', 'Beta', '--plan', 'team']),
    0,
  );
  assert.deepEqual(
    order(path).map((o) => o.name),
    ['Zeta', 'Alpha', 'Beta'],
  );
});
