import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createAdminApi } from '../src/runtime/admin.js';
import { normalizeEmail } from '../src/runtime/members.js';
import { hasControlCharacter } from '../src/runtime/stored-text.js';

// Free text the admin API stores (organization and plan names, key labels, imported keys, whose prefix
// is stored, and emails) never holds a control character: C0 or DEL (PostgreSQL's text refuses U+0000,
// a 500 where memory stored it), C1, or a direction control (it lets one name or email display as
// another in the portal and the admin CLI). A seed file gives back text stored before C1 and direction
// controls were refused: its paths refuse C0 and DEL only.

const operator = { kind: 'operator' } as const;
const CONTROLS = ['\u0000', '\u0001', '\t', '\n', '\r', '\u001b', '\u001f', '\u007f'];
/** C1 and Unicode's Bidi_Control set: right-to-left overrides, embeddings, isolates and marks. */
const DISPLAY_CONTROLS = [
  '\u0080',
  '\u0085',
  '\u009b',
  '\u009f',
  '\u061c',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
];
const entitlements = { rateLimitPerMinute: 1, maxConcurrentRequests: 1, monthlyQuota: 1, enabledNetworks: ['tron'] };
const KEY = 'tsk_live_stored_text_0123456789abcdef';

async function organization() {
  const stores = createMemoryStores();
  const admin = createAdminApi(stores, () => new Date('2026-06-01T12:00:00Z'));
  const org = (
    await admin.createOrganization(operator, { name: 'Acme', assignment: { entitlements } })
  )._unsafeUnwrap();
  return { stores, admin, orgId: org.organization.id };
}

test('Stored text: C0, DEL, C1 and direction controls are found anywhere; other characters are not', () => {
  for (const c of [...CONTROLS, ...DISPLAY_CONTROLS])
    assert.equal(hasControlCharacter(`a${c}b`), true, JSON.stringify(c));
  const others = [
    'Acme Pay',
    'Zürich GmbH',
    '株式会社',
    'شركة',
    'חברה',
    ' ',
    '\u00a0',
    '\u200b',
    '\u200d',
    '\u206a',
    '',
  ];
  for (const text of others) {
    assert.equal(hasControlCharacter(text), false, JSON.stringify(text));
  }
});

test('Stored text: an email with a control character is no address (invitations refused, sign-in fails)', async () => {
  const { admin, stores, orgId } = await organization();
  for (const c of [...CONTROLS, ...DISPLAY_CONTROLS].filter((c) => c.trim() !== '')) {
    for (const email of [`new${c}@example.com`, `new@example.com${c}`, `${c}new@example.com`]) {
      assert.equal(normalizeEmail(email), null, JSON.stringify(email));
      const invited = await admin.members.inviteMember(operator, orgId, { email, role: 'viewer' });
      assert.equal(invited._unsafeUnwrapErr().code, 'invalid', JSON.stringify(email));
      if (!CONTROLS.includes(c)) continue;
      const seeded = await admin.members.seed.importMember({
        organizationId: orgId,
        email,
        role: 'viewer',
        password: 'a long password',
      });
      assert.equal(seeded._unsafeUnwrapErr().code, 'invalid', JSON.stringify(email));
    }
  }
  assert.equal((await admin.members.checkPassword('new\u0000@example.com', 'a long password'))._unsafeUnwrap(), null);
  assert.equal(normalizeEmail(' New@Example.com\n'), 'new@example.com', 'whitespace around it is trimmed, as before');
  assert.deepEqual(await stores.members.listMembers(orgId), []);
});

test('Stored text: organization and plan names, key labels and imported keys with a control character are invalid, never stored', async () => {
  const { admin, stores, orgId } = await organization();
  const plan = { code: 'starter', ...entitlements };
  for (const c of [...CONTROLS, ...DISPLAY_CONTROLS]) {
    const text = `Acme${c}Pay`;
    const at = JSON.stringify(c);
    const org = await admin.createOrganization(operator, { name: text, assignment: { entitlements } });
    assert.equal(org._unsafeUnwrapErr().code, 'invalid', at);
    assert.equal((await admin.createPlanVersion(operator, { ...plan, name: text }))._unsafeUnwrapErr().code, 'invalid');
    assert.equal((await admin.createApiKey(operator, orgId, text))._unsafeUnwrapErr().code, 'invalid', at);
    if (!CONTROLS.includes(c)) continue; // the seed file's rule: see the test below
    const seededOrg = await admin.seed.upsertOrganization({
      id: '2b9f0c36-5a55-4b1e-8c53-7f1c2de1a0f1',
      name: text,
      assignment: { entitlements },
    });
    assert.equal(seededOrg._unsafeUnwrapErr().code, 'invalid', at);
    const seededPlan = await admin.seed.upsertPlanVersion({ ...plan, version: 1, name: text });
    assert.equal(seededPlan._unsafeUnwrapErr().code, 'invalid', at);
    const imported = await admin.seed.importApiKey({ organizationId: orgId, key: KEY, label: text });
    assert.equal(imported._unsafeUnwrapErr().code, 'invalid', at);
    const badKey = await admin.seed.importApiKey({
      organizationId: orgId,
      key: `${KEY.slice(0, 12)}${c}${KEY}`,
      label: 'k',
    });
    assert.equal(badKey._unsafeUnwrapErr().code, 'invalid', at);
    const badPrefix = await admin.seed.importApiKey({
      organizationId: orgId,
      keyHash: 'ab'.repeat(32),
      prefix: `tsk_live${c}`,
      label: 'k',
    });
    assert.equal(badPrefix._unsafeUnwrapErr().code, 'invalid', at);
  }
  const key = (await admin.createApiKey(operator, orgId, 'checkout'))._unsafeUnwrap();
  const rotated = await admin.rotateApiKey(operator, orgId, key.metadata.id, 'checkout\u0000server');
  assert.equal(rotated._unsafeUnwrapErr().code, 'invalid');
  assert.deepEqual(
    (await stores.apiKeys.listKeys(orgId)).map((k) => [k.label, k.revokedAt]),
    [['checkout', null]],
    'the refused rotation changed nothing',
  );
  assert.deepEqual(
    (await stores.organizations.listOrganizations()).map((o) => o.name),
    ['Acme'],
  );
  assert.deepEqual(await stores.organizations.listPlans(), []);
});

test('Stored text: a name, label or email stored before the rule took in C1 and direction controls stays readable', async () => {
  const { admin, stores, orgId } = await organization();
  const [name, label, email] = ['Acme \u202eyaP', 'check\u0085out', 'a\u200f@example.com'];
  const access = (await stores.organizations.getOrganization(orgId))!;
  await stores.organizations.putOrganization({ ...access.organization, name });
  const key = (await admin.createApiKey(operator, orgId, 'checkout'))._unsafeUnwrap().metadata;
  const stored = (await stores.apiKeys.listKeys(orgId))[0]!;
  assert.ok(await stores.apiKeys.insertKey({ ...stored, id: randomUUID(), hash: 'ab'.repeat(32), label }));
  const invited = await admin.members.inviteMember(operator, orgId, { email: 'a@example.com', role: 'viewer' });
  const member = (await stores.members.getMember(orgId, invited._unsafeUnwrap().member.id))!;
  await stores.members.removeMember({
    organizationId: orgId,
    memberId: member.id,
    expectedRole: 'viewer',
    now: new Date(),
  });
  assert.ok(await stores.members.insertMember({ ...member, email }));

  assert.equal((await admin.getOrganization(operator, orgId))._unsafeUnwrap().organization.name, name);
  assert.deepEqual(
    (await admin.listApiKeys(operator, orgId))
      ._unsafeUnwrap()
      .map((k) => k.label)
      .sort(),
    [key.label, label].sort(),
  );
  assert.deepEqual(
    (await admin.members.listMembers(operator, orgId))._unsafeUnwrap().map((m) => m.email),
    [email],
  );
});

test('Stored text: a seed file gives back names, labels and emails stored before C1 and direction controls were refused, and they are taken (C0 and DEL are not)', async () => {
  const { admin, orgId } = await organization();
  const plan = { code: 'starter', ...entitlements };
  for (const [i, c] of DISPLAY_CONTROLS.entries()) {
    const text = `Acme${c}Pay`;
    const at = JSON.stringify(c);
    const seededOrg = await admin.seed.upsertOrganization({
      id: randomUUID(),
      name: text,
      assignment: { entitlements },
    });
    assert.equal(seededOrg._unsafeUnwrap().organization.name, text, at);
    const seededPlan = await admin.seed.upsertPlanVersion({ ...plan, version: i + 1, name: text });
    assert.equal(seededPlan._unsafeUnwrap().name, text, at);
    const imported = await admin.seed.importApiKey({
      organizationId: orgId,
      keyHash: hashOf(i),
      prefix: 'tsk_live_ab',
      label: text,
    });
    assert.equal(imported._unsafeUnwrap().label, text, at);
    const email = `m${i}${c}@example.com`;
    const member = { organizationId: orgId, email, role: 'viewer', password: 'a long password' };
    const seeded = (await admin.members.seed.importMember(member))._unsafeUnwrap();
    assert.equal(seeded.removed === false && seeded.member.email, email, at);
    const again = (await admin.members.seed.importMember(member))._unsafeUnwrap();
    assert.deepEqual(again, seeded, `the stored member is found by its email at the next start: ${at}`);
  }
  // Given to the admin API, the same text is still refused.
  assert.equal((await admin.createApiKey(operator, orgId, 'Acme\u202ePay'))._unsafeUnwrapErr().code, 'invalid');
});

test('Stored text: a key the seed file imported before is returned as stored whatever label the file gives it now', async () => {
  const { admin, orgId } = await organization();
  const stored = (
    await admin.seed.importApiKey({ organizationId: orgId, key: KEY, label: 'checkout' })
  )._unsafeUnwrap();
  for (const label of ['ci\n', ' ', 'x'.repeat(201)]) {
    const again = await admin.seed.importApiKey({ organizationId: orgId, key: KEY, label });
    assert.deepEqual(again._unsafeUnwrap(), stored, JSON.stringify(label));
  }
  const fresh = await admin.seed.importApiKey({ organizationId: orgId, key: `${KEY}x`, label: 'ci\n' });
  assert.equal(fresh._unsafeUnwrapErr().code, 'invalid', 'a new key still needs a label of the rule');
});

const hashOf = (i: number) => i.toString(16).padStart(64, '0');
