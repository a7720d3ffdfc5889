import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PASSWORD, portalWorld, type Client } from './portal-client.js';

const operator = { kind: 'operator' } as const;
const keyId = (body: string) => /\/portal\/keys\/([0-9a-f-]{36})\/revoke/.exec(body)?.[1];

async function signedIn(role = 'owner') {
  const world = await portalWorld();
  const email = role === 'owner' ? 'owner@example.com' : `${role}@example.com`;
  if (role !== 'owner') await world.member(email, role);
  const browser = world.client();
  await browser.signIn(email);
  return { ...world, browser };
}

const issuedKey = (body: string) => /id="issued-key" readonly value="([^"]+)"/.exec(body)?.[1];
const invitationLink = (body: string) => /id="invitation-link" readonly value="([^"]+)"/.exec(body)?.[1];

async function createKey(browser: Client, label: string) {
  const created = await browser.submitAndFollow('/portal/keys', '/portal/keys', { label });
  return { page: created, key: issuedKey(created.body) };
}

describe('Portal pages', () => {
  test('Keys: a new key is shown once (not cached), then only its prefix and when it was last used; rotation and revocation take effect in the API', async () => {
    const { browser, service } = await signedIn();
    const { page, key } = await createKey(browser, 'checkout');
    assert.equal(page.status, 200);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(key!, /^tsk_live_/);
    const list = await browser.get('/portal/keys');
    assert.ok(!list.body.includes(key!), 'the list never shows the key');
    assert.ok(list.body.includes(`${key!.slice(0, 17)}…`), 'only the prefix');
    assert.match(list.body, /<td class="time"><span class="muted">never<\/span><\/td>/, 'last used: never');
    assert.equal((await service.usage({ apiKey: key! })).status, 200);
    const used = await browser.get('/portal/keys');
    assert.match(
      used.body,
      /<td class="time">2026-06-01 12:00 UTC<\/td>\s*<td class="time">2026-06-01 12:00 UTC<\/td>/,
      'created, last used',
    );

    const id = keyId(list.body)!;
    assert.equal((await browser.get(`/portal/keys/${id}/rotate`)).status, 200, 'asks first');
    const rotated = await browser.submitAndFollow('/portal/keys', `/portal/keys/${id}/rotate`);
    const replacement = issuedKey(rotated.body)!;
    assert.equal((await service.usage({ apiKey: key! })).status, 401, 'the old key stops at once');
    assert.equal((await service.usage({ apiKey: replacement })).status, 200);

    const newId = keyId((await browser.get('/portal/keys')).body)!;
    const confirm = await browser.get(`/portal/keys/${newId}/revoke`);
    assert.match(confirm.body, /cannot be undone/);
    const revoked = await browser.submit('/portal/keys', `/portal/keys/${newId}/revoke`);
    assert.equal(revoked.headers.location, '/portal/keys?done=revoked');
    assert.equal((await service.usage({ apiKey: replacement })).status, 401);
  });

  test('Roles: a viewer sees usage and key metadata but gets 403 on every key action', async () => {
    const { browser, service, orgId, stores } = await signedIn('viewer');
    const existing = (await service.admin.createApiKey(operator, orgId, 'ci'))._unsafeUnwrap();
    const keys = await browser.get('/portal/keys');
    assert.equal(keys.status, 200);
    assert.match(keys.body, /ci<\/td>/);
    assert.ok(!keys.body.includes('Create key'), 'no create form');
    assert.equal((await browser.get('/portal/usage')).status, 200);
    const csrf = keys.csrf!;
    const post = (path: string, form: Record<string, string> = {}) =>
      browser.request('POST', path, { form: { csrf, ...form } });
    assert.equal((await post('/portal/keys', { label: 'mine' })).status, 403);
    assert.equal((await post(`/portal/keys/${existing.metadata.id}/rotate`)).status, 403);
    assert.equal((await post(`/portal/keys/${existing.metadata.id}/revoke`)).status, 403);
    assert.equal((await browser.get(`/portal/keys/${existing.metadata.id}/revoke`)).status, 403);
    assert.equal((await post('/portal/members', { email: 'x@example.com', role: 'owner' })).status, 403);
    assert.deepEqual(
      (await stores.apiKeys.listKeys(orgId)).map((k) => [k.label, k.revokedAt]),
      [['ci', null]],
      'nothing changed',
    );
  });

  test('CSRF: a state-changing form without its token, or with another session’s, is refused and changes nothing', async () => {
    const { browser, stores, orgId, client } = await signedIn();
    const other = client();
    await other.signIn('owner@example.com');
    const foreign = (await other.get('/portal/keys')).csrf!;
    assert.equal((await browser.request('POST', '/portal/keys', { form: { label: 'no token' } })).status, 403);
    assert.equal(
      (await browser.request('POST', '/portal/keys', { form: { label: 'foreign', csrf: foreign } })).status,
      403,
    );
    const twice = new URLSearchParams([
      ['csrf', (await browser.get('/portal/keys')).csrf!],
      ['csrf', 'x'],
      ['label', 'x'],
    ]);
    assert.equal((await browser.request('POST', '/portal/keys', { form: Object.fromEntries(twice) })).status, 403);
    assert.equal((await browser.request('POST', '/portal/sign-out')).status, 403, 'even sign-out');
    assert.equal((await stores.apiKeys.listKeys(orgId)).length, 0);
  });

  test('Scoping: keys and members of another organization cannot be reached, even by id', async () => {
    const { browser, service, organization, member } = await signedIn();
    const otherOrg = await organization('Other');
    const foreignKey = (await service.admin.createApiKey(operator, otherOrg, 'theirs'))._unsafeUnwrap();
    const foreignMember = await member('them@example.com', 'viewer', otherOrg);
    assert.equal((await browser.submit('/portal/keys', `/portal/keys/${foreignKey.metadata.id}/revoke`)).status, 404);
    assert.equal((await browser.submit('/portal/keys', `/portal/keys/${foreignKey.metadata.id}/rotate`)).status, 404);
    assert.equal((await browser.get(`/portal/members/${foreignMember.id}/remove`)).status, 404);
    assert.equal(
      (await browser.submit('/portal/members', `/portal/members/${foreignMember.id}/role`, { role: 'owner' })).status,
      404,
    );
    assert.equal((await browser.submit('/portal/members', `/portal/members/${foreignMember.id}/remove`)).status, 404);
    assert.equal((await service.usage({ apiKey: foreignKey.key })).status, 200, 'their key still works');
    assert.ok(!(await browser.get('/portal/members')).body.includes('them@example.com'));
  });

  test('Members: an owner invites (the link is shown once), changes roles, and the last owner stays', async () => {
    const { browser, owner, service } = await signedIn();
    const invited = await browser.submitAndFollow('/portal/members', '/portal/members', {
      email: 'Ana@Example.com',
      role: 'admin',
    });
    assert.equal(invited.status, 200);
    const link = `http://portal.test${invitationLink(invited.body)!}`;
    assert.match(link, /^http:\/\/portal\.test\/portal\/invitation\?token=[A-Za-z0-9_-]{43}$/);
    assert.equal(
      (await browser.submit('/portal/members', '/portal/members', { email: 'ana@example.com', role: 'viewer' })).status,
      409,
    );

    const demote = await browser.submit('/portal/members', `/portal/members/${owner.id}/role`, { role: 'viewer' });
    assert.equal(demote.status, 409);
    assert.match(demote.body, /The last owner cannot be demoted/);
    assert.equal((await browser.submit('/portal/members', `/portal/members/${owner.id}/remove`)).status, 409);
    const ana = (await service.admin.members.listMembers(operator, owner.organizationId))
      ._unsafeUnwrap()
      .find((m) => m.email === 'ana@example.com')!;
    const changed = await browser.submit('/portal/members', `/portal/members/${ana.id}/role`, { role: 'owner' });
    assert.equal(changed.headers.location, '/portal/members?done=role');
    const stepDown = () => browser.submit('/portal/members', `/portal/members/${owner.id}/role`, { role: 'viewer' });
    assert.equal((await stepDown()).status, 409, 'the other owner has only an invitation: it may never accept');
    const token = new URL(link).searchParams.get('token')!;
    assert.ok((await service.admin.members.acceptInvitation(token, 'a long enough password')).isOk());
    assert.equal((await stepDown()).status, 303, 'another owner who can sign in exists now');
  });

  test('Members: an admin cannot make or touch owners; a developer cannot invite', async () => {
    const { browser, owner, client, member } = await signedIn('admin');
    assert.equal(
      (await browser.submit('/portal/members', '/portal/members', { email: 'o@example.com', role: 'owner' })).status,
      403,
    );
    assert.equal(
      (await browser.submit('/portal/members', `/portal/members/${owner.id}/role`, { role: 'viewer' })).status,
      403,
    );
    assert.equal((await browser.get(`/portal/members/${owner.id}/remove`)).status, 403);
    await member('dev@example.com', 'developer');
    const dev = client();
    await dev.signIn('dev@example.com');
    assert.equal(
      (await dev.submit('/portal/members', '/portal/members', { email: 'x@example.com', role: 'viewer' })).status,
      403,
    );
  });

  test('Every page carries the security headers; user text is escaped', async () => {
    const { browser } = await signedIn();
    await createKey(browser, '<script>alert(1)</script>');
    const keys = await browser.get('/portal/keys');
    assert.ok(!keys.body.includes('<script>alert'), 'escaped');
    assert.ok(keys.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    for (const path of [
      '/portal/sign-in',
      '/portal/overview',
      '/portal/keys',
      '/portal/usage',
      '/portal/check',
      '/portal/members',
      '/portal/nowhere',
    ]) {
      const page = await browser.get(path);
      const csp = page.headers['content-security-policy']!;
      assert.ok(!csp.includes('unsafe-inline') && csp.includes("script-src 'self'"), path);
      assert.ok(csp.includes("frame-ancestors 'none'"), path);
      assert.equal(page.headers['referrer-policy'], 'no-referrer', path);
      assert.equal(page.headers['cache-control'], 'no-store', path);
      assert.ok(!/<script>|<script [^s]|\son[a-z]+=/i.test(page.body), `${path}: no inline script or handler`);
    }
    const script = await browser.get('/portal/assets/portal.js');
    assert.equal(script.headers['content-type'], 'text/javascript; charset=utf-8');
  });

  test('Overview and usage: plan, limits, the month’s quota bar and the 1/7/30-day counters', async () => {
    const { browser, service, orgId, advance } = await signedIn('billing');
    const key = (await service.admin.createApiKey(operator, orgId, 'ci'))._unsafeUnwrap().key;
    for (const n of [1, 2, 3]) {
      const checked = await service.check({ apiKey: key, request: { tx_hash: String(n).repeat(64), network: 'tron' } });
      assert.equal(checked.status, 200);
    }
    const overview = await browser.get('/portal/overview');
    assert.match(overview.body, /aria-label="Quota: 3 used, 0 reserved, 97 remaining of 100"/);
    assert.match(overview.body, /Custom entitlements/);
    advance(2 * 86_400_000);
    await browser.signIn('billing@example.com');
    const usage = await browser.get('/portal/usage');
    const counts = [...usage.body.matchAll(/<dt>Requests<\/dt>\s*<dd>(\d+)<\/dd>/g)].map((m) => Number(m[1]));
    assert.deepEqual(counts, [0, 3, 3], 'today (UTC), 7 days, 30 days');
    assert.equal((await browser.get('/portal/check')).status, 403, 'billing may not run checks');
  });

  test('Errors: a store failure is a 500 page with the message the host gives for it, else the general one; it is reported', async () => {
    class NotSaved extends Error {}
    const reported: unknown[] = [];
    const world = await portalWorld({
      explainError: (error) => (error instanceof NotSaved ? 'Nothing was changed: not saved.' : null),
      onError: (error) => reported.push(error),
    });
    const browser = world.client();
    await browser.signIn('owner@example.com');
    const { key } = await createKey(browser, 'checkout');
    const id = keyId((await browser.get('/portal/keys')).body)!;
    for (const [failure, message] of [
      [new NotSaved('the file is read-only'), 'Nothing was changed: not saved.'],
      [new Error('the store is down'), 'The portal could not answer. Try again in a moment.'],
    ] as const) {
      world.stores.apiKeys.revokeKey = () => Promise.reject(failure);
      const answer = await browser.submit(`/portal/keys/${id}/revoke`, `/portal/keys/${id}/revoke`);
      assert.equal(answer.status, 500);
      assert.match(answer.body, new RegExp(message));
      assert.equal(reported.at(-1), failure);
    }
    assert.equal((await world.service.usage({ apiKey: key! })).status, 200, 'the key still works');
  });

  test('Limits: past 100 active keys or 100 pending invitations the form answers 409 with the limit, and nothing is created', async () => {
    const { browser, service, orgId } = await signedIn();
    for (let i = 0; i < 100; i++) {
      (await service.admin.createApiKey(operator, orgId, `key ${i}`))._unsafeUnwrap();
      (
        await service.admin.members.inviteMember(operator, orgId, { email: `m${i}@example.com`, role: 'viewer' })
      )._unsafeUnwrap();
    }
    const key = await createKey(browser, 'one more');
    assert.equal(key.page.status, 409);
    assert.match(key.page.body, /100 active API keys, the most it may have: revoke one/);
    assert.equal(key.key, undefined);
    const invited = await browser.submit('/portal/members', '/portal/members', {
      email: 'over@example.com',
      role: 'viewer',
    });
    assert.equal(invited.status, 409);
    assert.match(invited.body, /Not invited: the organization has 100 pending invitations, the most it may have/);
    assert.equal((await service.admin.listApiKeys(operator, orgId))._unsafeUnwrap().length, 100);
    const members = (await service.admin.members.listMembers(operator, orgId))._unsafeUnwrap();
    assert.ok(!members.some((m) => m.email === 'over@example.com'));
  });

  test('Busy: when every password derivation place is taken, sign-in answers 503 with Retry-After, not an error', async (t) => {
    const reported: unknown[] = [];
    const world = await portalWorld({ onError: (error) => reported.push(error) });
    const busy = { code: 'busy', message: 'too many password derivations at once: try again in a moment' } as const;
    // The admin API's answer when the derivations are full (an Err of neverthrow, which the portal does not depend on).
    const busyAnswer = (await world.service.admin.members.invitation('unknown')).map(() => null).mapErr(() => busy);
    t.mock.method(world.service.admin.members, 'checkPassword', () => Promise.resolve(busyAnswer));
    const answer = await world.client().signIn('owner@example.com');
    assert.equal(answer.status, 503);
    assert.match(answer.body, /Too many password derivations at once: try again in a moment/);
    assert.ok(Number(answer.headers['retry-after']) > 0);
    assert.deepEqual(reported, [], 'busy is no failure to report');
  });

  test('Busy: an invitation post while every password derivation place is taken answers 503 with Retry-After; the link still works', async (t) => {
    const reported: unknown[] = [];
    const world = await portalWorld({ onError: (error) => reported.push(error) });
    const invited = (
      await world.service.admin.members.inviteMember({ kind: 'operator' }, world.orgId, {
        email: 'dev@example.com',
        role: 'developer',
      })
    )._unsafeUnwrap();
    const busy = { code: 'busy', message: 'too many password derivations at once: try again in a moment' } as const;
    const accept = world.service.admin.members.acceptInvitation;
    // The admin API's answer when the derivations are full (an Err of neverthrow, which the portal does not depend on).
    const busyAnswer = (await world.service.admin.members.invitation('unknown')).mapErr(() => busy);
    const mocked = t.mock.method(world.service.admin.members, 'acceptInvitation', () => Promise.resolve(busyAnswer));
    const form = { token: invited.token, password: PASSWORD, repeat: PASSWORD };
    const link = `/portal/invitation?token=${invited.token}`;
    const answer = await world.client().submit(link, '/portal/invitation', form);
    assert.equal(answer.status, 503);
    assert.match(answer.body, /Too many password derivations at once: try again in a moment/);
    assert.ok(Number(answer.headers['retry-after']) > 0);
    assert.deepEqual(reported, [], 'busy is no failure to report');
    mocked.mock.mockImplementation(accept);
    assert.equal((await world.client().submit(link, '/portal/invitation', form)).status, 303);
  });

  test('Routing: unknown pages 404, wrong methods 405, /portal goes to sign-in', async () => {
    const { client } = await signedIn();
    const anonymous = client();
    assert.equal((await anonymous.get('/portal')).headers.location, '/portal/');
    assert.equal((await anonymous.get('/portal/')).headers.location, '/portal/sign-in');
    assert.equal((await anonymous.get('/portal/keys')).headers.location, '/portal/sign-in');
    assert.equal((await anonymous.get('/portal/nope')).status, 404);
    const wrong = await anonymous.request('DELETE', '/portal/keys');
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.allow, 'GET, POST');
  });
});

describe('Portal: a form that makes a secret redirects to the page that shows it once (Post/Redirect/Get)', () => {
  /** The reveal id a form's redirect names (`?r=`), and the cookie that carries that reveal. */
  const revealOf = (posted: { headers: Record<string, string> }) => {
    const id = /\?r=([A-Za-z0-9_-]{16})$/.exec(posted.headers.location!)![1]!;
    return { id, cookie: `portal_reveal_${id}` };
  };

  test('Creating a key answers 303 with no secret in the URL; the page shows it once, and reloading it creates no key and shows nothing', async () => {
    const { browser, stores, orgId } = await signedIn();
    const posted = await browser.submit('/portal/keys', '/portal/keys', { label: 'checkout' });
    assert.equal(posted.status, 303);
    assert.match(posted.headers.location!, /^\/portal\/keys\/issued\?r=[A-Za-z0-9_-]{16}$/);
    const { cookie } = revealOf(posted);
    assert.match(posted.headers['set-cookie']!, new RegExp(`^${cookie}=[A-Za-z0-9_-]+; .*Max-Age=300`));
    const shown = await browser.get(posted.headers.location!);
    const key = issuedKey(shown.body)!;
    assert.match(key, /^tsk_live_/);
    assert.ok(!posted.headers['set-cookie']!.includes(key), 'the cookie carries it sealed');
    assert.match(shown.headers['set-cookie']!, new RegExp(`^${cookie}=; .*Max-Age=0`), 'dropped once shown');

    const reloaded = await browser.get(posted.headers.location!);
    assert.equal(reloaded.status, 303);
    assert.equal(reloaded.headers.location, '/portal/keys?done=key-shown');
    const after = await browser.get(reloaded.headers.location!);
    assert.ok(!after.body.includes(key));
    assert.match(after.body, /that one has been shown/);
    assert.equal((await stores.apiKeys.listKeys(orgId)).length, 1, 'one key, however often the page is loaded');
  });

  test('A form cookie the browser still holds never takes the reveal’s place: the answer’s own cookie is kept, the next answer clears it', async () => {
    const { browser } = await signedIn();
    const csrf = (await browser.get('/portal/keys')).csrf!;
    // A pre-sign-in form shown meanwhile in another tab (an invitation link opened while signed in).
    browser.cookies.set('portal_form', 'from-another-tab');
    const posted = await browser.request('POST', '/portal/keys', { form: { csrf, label: 'checkout' } });
    assert.match(
      posted.headers['set-cookie']!,
      new RegExp(`^${revealOf(posted).cookie}=`),
      'the reveal, not the clear',
    );
    assert.match(issuedKey((await browser.get(posted.headers.location!)).body)!, /^tsk_live_/);
    assert.match((await browser.get('/portal/keys')).headers['set-cookie']!, /^portal_form=; .*Max-Age=0/);
  });

  test('A reveal opens only for its own session, within 5 minutes, and only on its own kind of page', async () => {
    const { browser, client, advance } = await signedIn();
    const sealed = async (action = '/portal/keys', form: Record<string, string> = { label: 'checkout' }) => {
      const posted = await browser.submit(action, action, form);
      return { ...revealOf(posted), location: posted.headers.location! };
    };
    const other = client();
    await other.signIn('owner@example.com');
    const copied = await sealed();
    other.cookies.set(copied.cookie, browser.cookies.get(copied.cookie)!);
    assert.equal((await other.get(copied.location)).status, 303, 'another session of the same member');
    const altered = await sealed();
    browser.cookies.set(altered.cookie, `${browser.cookies.get(altered.cookie)!.slice(0, -2)}AA`);
    assert.equal((await browser.get(altered.location)).status, 303, 'altered');
    const invitation = await sealed('/portal/members', { email: 'ana@example.com', role: 'viewer' });
    const wrongPage = await browser.get(`/portal/keys/issued?r=${invitation.id}`);
    assert.equal(wrongPage.status, 303, 'an invitation: not a key');
    const link = invitationLink((await browser.get(invitation.location)).body)!;
    const token = /token=([A-Za-z0-9_-]{43})$/.exec(link)![1]!;
    assert.ok(!wrongPage.body.includes(token) && !JSON.stringify(wrongPage.headers).includes(token));
    const key = await sealed();
    assert.equal((await browser.get(`/portal/members/invited?r=${key.id}`)).status, 303, 'a key: not an invitation');
    assert.ok(issuedKey((await browser.get(key.location)).body), 'it waited for its own page');
    const late = await sealed();
    const lateCookie = browser.cookies.get(late.cookie)!;
    advance(300_000);
    await browser.signIn('owner@example.com');
    browser.cookies.set(late.cookie, lateCookie);
    assert.equal((await browser.get(late.location)).status, 303, 'after 5 minutes');
  });

  test('Two secrets made in one browser before either redirect is followed are each shown on the page its own redirect leads to', async () => {
    const { browser } = await signedIn();
    const tabA = await browser.submit('/portal/keys', '/portal/keys', { label: 'tab A' });
    const tabB = await browser.submit('/portal/keys', '/portal/keys', { label: 'tab B' });
    const tabC = await browser.submit('/portal/members', '/portal/members', {
      email: 'ana@example.com',
      role: 'viewer',
    });
    assert.deepEqual([tabA.status, tabB.status, tabC.status], [303, 303, 303]);
    const [pageC, pageA, pageB] = [
      await browser.get(tabC.headers.location!),
      await browser.get(tabA.headers.location!),
      await browser.get(tabB.headers.location!),
    ];
    assert.match(pageA.body, /Key “tab A” created/);
    assert.match(pageB.body, /Key “tab B” created/);
    assert.notEqual(issuedKey(pageA.body), issuedKey(pageB.body));
    assert.match(invitationLink(pageC.body)!, /^\/portal\/invitation\?token=/);
    assert.deepEqual(
      [...browser.cookies.keys()].filter((c) => c.startsWith('portal_reveal')),
      [],
      'each dropped once shown',
    );
  });

  test('A browser keeps at most 4 reveals waiting: a fifth takes the oldest one’s cookie, so that one is gone', async () => {
    const { browser } = await signedIn();
    const posted = [];
    for (const label of ['1', '2', '3', '4', '5'])
      posted.push(await browser.submit('/portal/keys', '/portal/keys', { label }));
    const waiting = [...browser.cookies.keys()].filter((c) => c.startsWith('portal_reveal'));
    assert.equal(waiting.length, 4);
    assert.ok(waiting.includes(revealOf(posted[0]!).cookie), 'the fifth went into the first one’s cookie');
    assert.equal((await browser.get(posted[0]!.headers.location!)).status, 303, 'the oldest is gone');
    for (const [i, answer] of posted.entries())
      if (i > 0) assert.match((await browser.get(answer.headers.location!)).body, new RegExp(`Key “${i + 1}” created`));
  });

  test('Rotating a key redirects to the new key shown once; reloading rotates nothing again', async () => {
    const { browser, stores, orgId } = await signedIn();
    await createKey(browser, 'checkout');
    const id = keyId((await browser.get('/portal/keys')).body)!;
    const posted = await browser.submit('/portal/keys', `/portal/keys/${id}/rotate`);
    assert.match(posted.headers.location!, /^\/portal\/keys\/issued\?r=/);
    const shown = await browser.get(posted.headers.location!);
    assert.match(shown.body, /Key “checkout” rotated/);
    assert.equal((await browser.get(posted.headers.location!)).status, 303);
    const active = (await stores.apiKeys.listKeys(orgId)).map((k) => k.revokedAt === null);
    assert.deepEqual(active.sort(), [false, true], 'one rotation: the old key revoked, its replacement active');
  });

  test('Inviting redirects to the link shown once; reloading invites nobody again', async () => {
    const { browser, service, orgId } = await signedIn();
    const posted = await browser.submit('/portal/members', '/portal/members', {
      email: 'ana@example.com',
      role: 'viewer',
    });
    assert.equal(posted.status, 303);
    assert.match(posted.headers.location!, /^\/portal\/members\/invited\?r=/);
    const shown = await browser.get(posted.headers.location!);
    assert.match(invitationLink(shown.body)!, /^\/portal\/invitation\?token=[A-Za-z0-9_-]{43}$/);
    assert.match(shown.body, /ana@example\.com is invited as viewer/);
    const reloaded = await browser.get(posted.headers.location!);
    assert.equal(reloaded.headers.location, '/portal/members?done=invitation-shown');
    const members = (await service.admin.members.listMembers(operator, orgId))._unsafeUnwrap();
    assert.deepEqual(members.map((m) => m.email).sort(), ['ana@example.com', 'owner@example.com']);
  });

  test('Revoking, changing a role and removing a member answer 303 too', async () => {
    const { browser, member } = await signedIn();
    await createKey(browser, 'checkout');
    const id = keyId((await browser.get('/portal/keys')).body)!;
    const ana = await member('ana@example.com', 'viewer');
    for (const [action, form] of [
      [`/portal/keys/${id}/revoke`, {}],
      [`/portal/members/${ana.id}/role`, { role: 'developer' }],
      [`/portal/members/${ana.id}/remove`, {}],
    ] as const) {
      assert.equal((await browser.submit('/portal/overview', action, form)).status, 303, action);
    }
  });
});

describe('Portal: absolute links are built on the configured public URL, never on the request', () => {
  test('An invitation link is on publicUrl whatever Host or X-Forwarded-Host the request names; without publicUrl it is a path', async () => {
    for (const [publicUrl, expected] of [
      ['https://safety.example.com', /^https:\/\/safety\.example\.com\/portal\/invitation\?token=/],
      [undefined, /^\/portal\/invitation\?token=/],
    ] as const) {
      const world = await portalWorld(publicUrl ? { publicUrl } : {});
      const browser = world.client();
      await browser.signIn('owner@example.com');
      const poisoned = { host: 'attacker.example', 'x-forwarded-host': 'attacker.example' };
      const csrf = (await browser.get('/portal/members')).csrf!;
      const posted = await browser.request('POST', '/portal/members', {
        form: { csrf, email: 'ana@example.com', role: 'viewer' },
        headers: poisoned,
      });
      const shown = await browser.get(posted.headers.location!, poisoned);
      assert.match(invitationLink(shown.body)!, expected);
      assert.ok(!shown.body.includes('attacker.example'));
    }
  });
});
