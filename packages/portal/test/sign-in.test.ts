import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { PASSWORD, portalWorld } from './portal-client.js';

const MINUTE = 60_000;

describe('Portal sign-in', () => {
  test('Invitation: the link sets a password once, then the member signs in with email and password', async () => {
    const world = await portalWorld();
    const invited = (
      await world.service.admin.members.inviteMember({ kind: 'operator' }, world.orgId, {
        email: 'dev@example.com',
        role: 'developer',
      })
    )._unsafeUnwrap();
    const browser = world.client();
    const link = `/portal/invitation?token=${invited.token}`;
    const form = await browser.get(link);
    assert.equal(form.status, 200);
    assert.match(form.body, /dev@example\.com/);
    const differ = await browser.submit(link, '/portal/invitation', {
      token: invited.token,
      password: PASSWORD,
      repeat: 'other',
    });
    assert.equal(differ.status, 422);
    const short = await browser.submit(link, '/portal/invitation', {
      token: invited.token,
      password: 'short',
      repeat: 'short',
    });
    assert.equal(short.status, 422);
    assert.match(short.body, /at least 12 characters/);
    const set = await browser.submit(link, '/portal/invitation', {
      token: invited.token,
      password: PASSWORD,
      repeat: PASSWORD,
    });
    assert.equal(set.status, 303);
    assert.equal(set.headers.location, '/portal/sign-in?done=password');
    assert.equal((await browser.get(link)).status, 404, 'the link works once');

    const signedIn = await browser.signIn('DEV@example.com', PASSWORD);
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.headers.location, '/portal/overview');
    const overview = await browser.get('/portal/overview');
    assert.equal(overview.status, 200);
    assert.match(overview.body, /dev@example\.com \(developer\)/);
  });

  test('Cookies over plain HTTP (loopback): HttpOnly, SameSite=Lax, for /portal only, unprefixed, without Secure', async () => {
    const world = await portalWorld({ secureCookies: false });
    const browser = world.client();
    const form = await browser.get('/portal/sign-in');
    assert.equal(
      form.headers['set-cookie'],
      `portal_form=${browser.cookies.get('portal_form')}; Path=/portal; HttpOnly; SameSite=Lax; Max-Age=3600`,
    );
    const cookie = (await browser.signIn('owner@example.com')).headers['set-cookie']!;
    assert.match(cookie, /^portal_session=[A-Za-z0-9_-]{43}; Path=\/portal; HttpOnly; SameSite=Lax; Max-Age=43200$/);
  });

  test('Cookies over HTTPS are __Host- cookies: Secure, Path=/, no Domain; the unprefixed names are not read', async () => {
    const world = await portalWorld({ secureCookies: true });
    const browser = world.client();
    const form = await browser.get('/portal/sign-in');
    const formToken = browser.cookies.get('__Host-portal_form')!;
    assert.equal(
      form.headers['set-cookie'],
      `__Host-portal_form=${formToken}; Path=/; HttpOnly; SameSite=Lax; Max-Age=3600; Secure`,
    );
    const signedIn = await browser.signIn('owner@example.com');
    const cookie = signedIn.headers['set-cookie']!;
    assert.match(
      cookie,
      /^__Host-portal_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200; Secure$/,
    );
    assert.doesNotMatch(cookie, /Domain=/i);
    const session = browser.cookies.get('__Host-portal_session')!;
    assert.equal((await browser.get('/portal/overview')).status, 200);
    const posted = await browser.submit('/portal/keys', '/portal/keys', { label: 'checkout' });
    assert.match(
      posted.headers['set-cookie']!,
      /^__Host-portal_reveal_[A-Za-z0-9_-]{16}=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=300; Secure$/,
    );

    // A cookie a sibling subdomain or a plain-HTTP page could set (no prefix) opens nothing and fixes no form token.
    const tossed = world.client();
    assert.equal((await tossed.get('/portal/overview', { cookie: `portal_session=${session}` })).status, 303);
    const fixed = await tossed.request('POST', '/portal/sign-in', {
      form: { csrf: formToken, email: 'owner@example.com', password: PASSWORD },
      headers: { cookie: `portal_form=${formToken}` },
    });
    assert.equal(fixed.status, 403);
  });

  test('HSTS: over HTTPS every answer (form, redirect, asset, error page) keeps browsers on HTTPS for a year; over plain HTTP none', async () => {
    const paths = ['/portal/sign-in', '/portal/overview', '/portal/assets/portal.css', '/portal/nowhere'];
    const secure = (await portalWorld({ secureCookies: true })).client();
    const plain = (await portalWorld({ secureCookies: false })).client();
    for (const path of paths) {
      assert.equal((await secure.get(path)).headers['strict-transport-security'], 'max-age=31536000', path);
      assert.equal((await plain.get(path)).headers['strict-transport-security'], undefined, path);
    }
    const signedIn = await secure.signIn('owner@example.com');
    assert.equal(signedIn.headers['strict-transport-security'], 'max-age=31536000', 'the sign-in redirect');
  });

  test('Sessions: 30 idle minutes end a session; use keeps it alive until 12 hours after sign-in', async () => {
    const world = await portalWorld();
    const idle = world.client();
    await idle.signIn('owner@example.com');
    world.advance(29 * MINUTE);
    assert.equal((await idle.get('/portal/overview')).status, 200);
    world.advance(30 * MINUTE);
    assert.equal((await idle.get('/portal/overview')).headers.location, '/portal/sign-in', 'idle for 30 minutes');

    const busy = world.client();
    await busy.signIn('owner@example.com');
    for (let elapsed = 0; elapsed < 12 * 60 - 20; elapsed += 20) {
      world.advance(20 * MINUTE);
      assert.equal((await busy.get('/portal/usage')).status, 200, `still signed in after ${elapsed + 20} minutes`);
    }
    world.advance(20 * MINUTE);
    assert.equal((await busy.get('/portal/usage')).status, 303, 'signed out 12 hours after sign-in');
  });

  test('Sign-out ends the session on the server: the old cookie no longer opens a page', async () => {
    const world = await portalWorld();
    const browser = world.client();
    await browser.signIn('owner@example.com');
    const stolen = browser.cookies.get('portal_session')!;
    const out = await browser.submit('/portal/overview', '/portal/sign-out');
    assert.equal(out.status, 303);
    assert.equal(out.headers.location, '/portal/sign-in?done=signed-out');
    assert.match(out.headers['set-cookie']!, /^portal_session=; .*Max-Age=0/);
    const replayed = await world.client().get('/portal/overview', { cookie: `portal_session=${stolen}` });
    assert.equal(replayed.status, 303);
    assert.equal(replayed.headers.location, '/portal/sign-in');
  });

  test('Signing in again from a browser with a live session ends that session on the server: its old cookie no longer opens a page', async () => {
    const world = await portalWorld();
    await world.member('dev@example.com', 'developer');
    const browser = world.client();
    await browser.signIn('owner@example.com');
    const replaced = browser.cookies.get('portal_session')!;
    // A stale sign-in tab posts its form (the page now redirects to the overview): another member at a shared desk.
    const again = await browser.request('POST', '/portal/sign-in', {
      form: { csrf: browser.cookies.get('portal_form')!, email: 'dev@example.com', password: PASSWORD },
    });
    assert.equal(again.status, 303);
    assert.notEqual(browser.cookies.get('portal_session'), replaced);
    assert.match((await browser.get('/portal/overview')).body, /dev@example\.com \(developer\)/);
    const replayed = await world.client().get('/portal/overview', { cookie: `portal_session=${replaced}` });
    assert.equal(replayed.headers.location, '/portal/sign-in', 'the replaced session is over');
  });

  test('The form token cookie is set again for another hour with every form shown, and cleared once signed in: no token outlives a session', async () => {
    const world = await portalWorld();
    const browser = world.client();
    const cookieOf = (token: string) => `portal_form=${token}; Path=/portal; HttpOnly; SameSite=Lax; Max-Age=3600`;
    await browser.get('/portal/sign-in');
    const first = browser.cookies.get('portal_form')!;
    world.advance(59 * MINUTE);
    const shownAgain = await browser.get('/portal/sign-in');
    assert.equal(shownAgain.headers['set-cookie'], cookieOf(first), 'the same token, for an hour from now');
    assert.equal(shownAgain.csrf, first);

    assert.equal((await browser.signIn('owner@example.com')).status, 303);
    const overview = await browser.get('/portal/overview');
    assert.match(overview.headers['set-cookie']!, /^portal_form=; .*Max-Age=0/);
    const out = await browser.submit('/portal/overview', '/portal/sign-out');
    const form = await browser.get(out.headers.location!);
    const next = browser.cookies.get('portal_form')!;
    assert.equal(form.headers['set-cookie'], cookieOf(next));
    assert.notEqual(next, first, 'a new token after the session');
    assert.equal((await browser.signIn('owner@example.com')).status, 303);
  });

  test('Throttling: after 5 wrong passwords for an email, even the right one is refused until the window ends', async () => {
    // A setting left undefined (an optional config field) keeps its default limit.
    const world = await portalWorld({ throttle: { perEmail: undefined } });
    const browser = world.client('203.0.113.7');
    for (let i = 0; i < 5; i++)
      assert.equal((await browser.signIn('owner@example.com', 'wrong password!')).status, 401);
    const refused = await browser.signIn('owner@example.com', PASSWORD);
    assert.equal(refused.status, 429);
    assert.match(refused.body, /Too many failed sign-ins/);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal(
      (await world.client('198.51.100.1').signIn('owner@example.com')).status,
      429,
      'per email, from any client',
    );
    world.advance(15 * MINUTE);
    assert.equal((await browser.signIn('owner@example.com')).status, 303, 'a new window');
  });

  test('Throttling: failures from one client past its limit block it for every email, not other clients', async () => {
    const world = await portalWorld({ throttle: { perClient: 4 } });
    await world.member('dev@example.com', 'developer');
    const attacker = world.client('203.0.113.9');
    for (let i = 0; i < 4; i++) await attacker.signIn(`guess-${i}@example.com`, 'wrong password!');
    assert.equal((await attacker.signIn('dev@example.com')).status, 429);
    assert.equal((await world.client('198.51.100.2').signIn('dev@example.com')).status, 303);
  });

  test('Throttling: parallel guesses count before their passwords are checked, so no more than the limit are checked', async () => {
    const world = await portalWorld();
    const guessers = Array.from({ length: 20 }, () => world.client('203.0.113.10'));
    const forms = await Promise.all(guessers.map(async (c) => (await c.get('/portal/sign-in')).csrf ?? ''));
    const answers = await Promise.all(
      guessers.map((c, i) =>
        c.request('POST', '/portal/sign-in', {
          form: { csrf: forms[i]!, email: 'owner@example.com', password: `wrong password ${i}` },
        }),
      ),
    );
    assert.equal(answers.filter((a) => a.status === 401).length, 5, 'checked: the limit per email');
    assert.equal(answers.filter((a) => a.status === 429).length, 15);
  });

  test('Throttling: a client past its limit touches no email counter, so it adds at most its limit of email rows per window', async (t) => {
    const world = await portalWorld({ throttle: { perClient: 4 } });
    const counted = t.mock.method(world.stores.sessions, 'addSignInFailure');
    const attacker = world.client('203.0.113.12');
    for (let i = 0; i < 30; i++) await attacker.signIn(`nobody-${i}@example.com`, 'wrong password!');
    const keys = counted.mock.calls.map((c) => c.arguments[0].key);
    assert.equal(keys.filter((k) => k.startsWith('email:')).length, 4);
    assert.equal(keys.filter((k) => k.startsWith('client:')).length, 30);
  });

  test('Throttling: invitation posts count against the client like failed sign-ins; past the limit they are refused with 429', async () => {
    const world = await portalWorld({ throttle: { perClient: 3 } });
    const invited = (
      await world.service.admin.members.inviteMember({ kind: 'operator' }, world.orgId, {
        email: 'dev@example.com',
        role: 'developer',
      })
    )._unsafeUnwrap();
    const accept = (client: ReturnType<typeof world.client>, token: string) =>
      client.submit('/portal/sign-in', '/portal/invitation', { token, password: PASSWORD, repeat: PASSWORD });
    const guesser = world.client('203.0.113.13');
    for (let i = 0; i < 3; i++)
      assert.equal((await accept(guesser, randomBytes(32).toString('base64url'))).status, 404);
    const refused = await accept(guesser, invited.token);
    assert.equal(refused.status, 429);
    assert.match(refused.body, /Too many attempts/);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal((await guesser.signIn('owner@example.com')).status, 429, 'one count per client');
    const office = '198.51.100.3';
    assert.equal((await accept(world.client(office), invited.token)).status, 303, 'another client uses the link');
    // Two typos and the right password from that address: within its 3, as the link's use took its count back.
    for (let i = 0; i < 2; i++)
      assert.equal((await world.client(office).signIn('dev@example.com', 'wrong password!')).status, 401);
    assert.equal((await world.client(office).signIn('dev@example.com')).status, 303);
  });

  test('Throttling: a right password takes its counted attempt back, so signing in often is never throttled', async () => {
    const world = await portalWorld({ throttle: { perClient: 3 } });
    // Six browsers behind one office address sign in within one window.
    for (let i = 0; i < 6; i++) {
      assert.equal((await world.client('203.0.113.11').signIn('owner@example.com')).status, 303, `sign-in ${i}`);
    }
  });

  test('CSRF: the sign-in form without its token (or from another site) is refused', async () => {
    const world = await portalWorld();
    const browser = world.client();
    await browser.get('/portal/sign-in');
    const noToken = await browser.request('POST', '/portal/sign-in', {
      form: { email: 'owner@example.com', password: PASSWORD },
    });
    assert.equal(noToken.status, 403);
    const crossSite = await world.client().request('POST', '/portal/sign-in', {
      form: { csrf: browser.cookies.get('portal_form')!, email: 'owner@example.com', password: PASSWORD },
    });
    assert.equal(crossSite.status, 403, 'a token without its cookie');
    assert.match(noToken.headers['set-cookie']!, /^portal_form=/, 'no session: only the fresh form’s cookie');
  });

  test('An API key never opens the portal; unknown members and wrong passwords read the same', async () => {
    const world = await portalWorld();
    const key = (await world.service.admin.createApiKey({ kind: 'operator' }, world.orgId, 'ci'))._unsafeUnwrap().key;
    const withKey = await world.client().get('/portal/overview', { 'x-api-key': key, authorization: `Bearer ${key}` });
    assert.equal(withKey.status, 303);
    assert.equal(withKey.headers.location, '/portal/sign-in');
    const asPassword = await world.client().signIn('owner@example.com', key);
    assert.equal(asPassword.status, 401);
    const unknown = await world.client('192.0.2.1').signIn('nobody@example.com');
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.replace(/value="[^"]*"/g, ''), asPassword.body.replace(/value="[^"]*"/g, ''));
  });

  test('Removing a member ends its session at once', async () => {
    const world = await portalWorld();
    const dev = await world.member('dev@example.com', 'developer');
    const browser = world.client();
    await browser.signIn('dev@example.com');
    assert.equal((await browser.get('/portal/keys')).status, 200);
    (await world.service.admin.members.removeMember({ kind: 'operator' }, world.orgId, dev.id))._unsafeUnwrap();
    assert.equal((await browser.get('/portal/keys')).status, 303);
  });
});
