import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startFakeTronNode, TRON_FIXTURE_TX, type FakeTronNode } from '@tron-safety/core/testing';
import { request } from 'undici';
import { isLoopback, parseConfig } from '../src/config.js';
import { startHost, type RunningHost } from '../src/host.js';
import { createLogger } from '../src/log.js';
import { clientOf, portalLinkOrigin, secureCookies } from '../src/portal-mount.js';
import { decodeSeed } from '../src/seed-file.js';
import { HttpSession, PORTAL_PASSWORD, portalSeedFile, startPortalHost } from './portal-support.js';

// The portal as the host serves it, over real HTTP under both frameworks (the pages themselves are
// tested in packages/portal and in a real browser by portal-browser.test.ts).

describe('the host serves the portal under /portal', () => {
  let node: FakeTronNode;
  before(async () => {
    node = await startFakeTronNode();
  });
  after(() => node.close());

  for (const framework of ['express', 'koa'] as const) {
    test(`${framework}: a seeded member signs in, creates a key that checks a transaction, checks one from the form; the session never authenticates /v1`, async () => {
      const host = await startPortalHost(node.url, { HOST_FRAMEWORK: framework });
      try {
        assert.deepEqual(host.seeded?.inserted, { plans: 1, organizations: 1, keys: 0, members: 1 });
        const browser = new HttpSession(host.url);
        const signedIn = await browser.signIn('owner@example.com');
        assert.equal(signedIn.status, 303);
        assert.match(
          String(signedIn.headers['set-cookie']),
          /HttpOnly; SameSite=Lax; Max-Age=43200$/,
          'no Secure on loopback',
        );
        const keys = await browser.send('GET', '/portal/keys');
        assert.equal(keys.headers['content-security-policy']?.toString().includes("frame-ancestors 'none'"), true);
        const created = await browser.follow(
          await browser.send('POST', '/portal/keys', { csrf: keys.csrf, label: 'checkout' }),
        );
        const key = /id="issued-key" readonly value="([^"]+)"/.exec(created.body)![1]!;

        const check = (headers: Record<string, string>) =>
          request(`${host.url}/v1/transaction/check`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body: JSON.stringify({ tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' }),
          });
        const withKey = await check({ 'x-api-key': key });
        assert.equal(withKey.statusCode, 200);
        assert.equal(((await withKey.body.json()) as { tx_hash: string }).tx_hash, TRON_FIXTURE_TX.trxTransfer);
        const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
        const withSession = await check({ cookie });
        assert.equal(withSession.statusCode, 401);
        assert.equal(((await withSession.body.json()) as { error: { code: string } }).error.code, 'invalid_api_key');
        const withKeyOnPortal = await new HttpSession(host.url).send('GET', '/portal/overview', undefined, {
          'x-api-key': key,
        });
        assert.equal(withKeyOnPortal.status, 303, 'an API key never opens the portal');
        assert.equal(
          (await browser.send('GET', '/v1/nowhere')).headers['content-type'],
          'application/json; charset=utf-8',
          '/v1 stays the API',
        );
        const form = await browser.send('GET', '/portal/check');
        const checked = await browser.send('POST', '/portal/check', {
          csrf: form.csrf,
          tx_hash: TRON_FIXTURE_TX.trxTransfer,
          network: 'tron',
        });
        assert.equal(checked.status, 200, 'a check from the portal form');
        assert.match(checked.body, /Overall state: <span class="state">[A-Z_]+<\/span>/);
        const usage = await request(`${host.url}/v1/usage`, { headers: { 'x-api-key': key } });
        const { recent } = (await usage.body.json()) as { recent: { requests: number } };
        assert.equal(recent.requests, 2, 'the key’s check and the portal’s');
      } finally {
        await host.stop('test');
      }
    });
  }
});

describe('DNS rebinding: a loopback host serves the portal only to requests naming this machine or PORTAL_PUBLIC_URL', () => {
  let node: FakeTronNode;
  let host: RunningHost;
  before(async () => {
    node = await startFakeTronNode();
    // Behind a TLS proxy that passes the browser's Host on.
    host = await startPortalHost(node.url, {
      PORTAL_PUBLIC_URL: 'https://safety.example.com',
      PORTAL_TRUST_PROXY: 'true',
    });
  });
  after(async () => {
    await host?.stop('test');
    await node?.close();
  });
  const get = async (path: string, hostHeader: string) => {
    const res = await request(`${host.url}${path}`, { headers: { host: hostHeader } });
    return { status: res.statusCode, type: String(res.headers['content-type']), body: await res.body.text() };
  };

  test('a portal request naming another site is answered 421 in plain text; one naming this machine or the public host as usual', async () => {
    for (const path of ['/portal/sign-in', '/portal/overview', '/portal/assets/portal.css']) {
      const rebound = await get(path, 'rebind.attacker.example');
      assert.deepEqual([rebound.status, rebound.type], [421, 'text/plain; charset=utf-8'], path);
    }
    const signIn = new HttpSession(host.url);
    const posted = await signIn.send('POST', '/portal/sign-in', { csrf: 'x' }, { host: 'rebind.attacker.example' });
    assert.equal(posted.status, 421, 'no sign-in post reaches the portal');
    for (const named of ['safety.example.com', 'localhost:8080', new URL(host.url).host]) {
      assert.equal((await get('/portal/sign-in', named)).status, 200, named);
    }
  });

  test('/v1 keeps the spec’s answers for any Host: it has no error code for a misdirected request, and every call needs an API key a rebinding page does not hold', async () => {
    const status = await get('/v1/status', 'rebind.attacker.example');
    assert.deepEqual([status.status, JSON.parse(status.body)], [200, { business_access: 'enabled' }]);
    const usage = await get('/v1/usage', 'rebind.attacker.example');
    assert.equal(JSON.parse(usage.body).error.code, 'invalid_api_key');
  });
});

describe('seed file members', () => {
  const seedOf = (members: unknown[]) => JSON.parse(readFileSync(portalSeedFile(members as never), 'utf8')) as unknown;

  test('a member needs exactly one of password and invitation, and an email appears once', () => {
    const refused = (members: unknown[]) => decodeSeed(seedOf(members))._unsafeUnwrapErr().message;
    assert.match(
      refused([{ email: 'a@example.com', role: 'owner' }]),
      /members\[0\] needs exactly one of password and invitation/,
    );
    assert.match(refused([{ email: 'a@example.com', role: 'root', password: PORTAL_PASSWORD }]), /members\[0\]\.role/);
    const twice = [
      { email: 'a@example.com', role: 'owner', password: PORTAL_PASSWORD },
      { email: 'A@example.com', role: 'viewer', password: PORTAL_PASSWORD },
    ];
    assert.match(refused(twice), /members\[1\]\.email repeats/);
  });

  test('a password the portal would refuse stops the start, naming the member', async () => {
    const config = parseConfig({
      PORT: '0',
      OFAC_SDN_URL: 'off',
      SAFETY_SEED_FILE: portalSeedFile([{ email: 'a@example.com', role: 'owner', password: 'short' }]),
    })._unsafeUnwrap();
    const error = (await startHost(config, createLogger('silent')))._unsafeUnwrapErr();
    assert.equal(error.field, 'seed:organizations[0].members[0]');
    assert.match(error.message, /at least 12 characters/);
  });
});

describe('portal mount helpers', () => {
  const req = (headers: Record<string, string>, remoteAddress = '10.0.0.5') =>
    ({ headers, socket: { remoteAddress } }) as unknown as IncomingMessage;
  const config = (host: string, portalTrustProxy: boolean, portalPublicUrl: string | null = null) => ({
    host,
    portalTrustProxy,
    portalPublicUrl,
  });

  test('the client comes from the socket unless the proxy is trusted; then from what the proxy appended', () => {
    const forwarded = { host: 'internal:8080', 'x-forwarded-for': '6.6.6.6, 198.51.100.7' };
    assert.deepEqual(clientOf(req(forwarded), false), { clientAddress: '10.0.0.5' });
    assert.deepEqual(clientOf(req(forwarded), true), { clientAddress: '198.51.100.7' });
    assert.deepEqual(clientOf(req({ host: 'h:1' }), true), { clientAddress: '10.0.0.5' });
  });

  test('cookies go without Secure only on loopback hosts no trusted proxy fronts, unless PORTAL_PUBLIC_URL says', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) assert.equal(isLoopback(host), true, host);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'safety.example.com']) assert.equal(isLoopback(host), false, host);
    assert.equal(secureCookies(config('127.0.0.1', false)), false);
    assert.equal(secureCookies(config('127.0.0.1', true)), true, 'a TLS proxy on the same machine');
    assert.equal(secureCookies(config('0.0.0.0', false)), true);
    assert.equal(
      secureCookies(config('127.0.0.1', false, 'https://safety.example.com')),
      true,
      'a proxy the host is not told of',
    );
    assert.equal(secureCookies(config('127.0.0.1', true, 'http://localhost:8080')), false, 'plain HTTP, said so');
  });

  test('PORTAL_PUBLIC_URL: an https origin (plain http on loopback only), without path or query', () => {
    const parsed = (value: string) => parseConfig({ PORTAL_PUBLIC_URL: value });
    assert.equal(
      parsed('https://Safety.Example.com:443/')._unsafeUnwrap().portalPublicUrl,
      'https://safety.example.com',
    );
    assert.equal(parsed('http://localhost:8080')._unsafeUnwrap().portalPublicUrl, 'http://localhost:8080');
    assert.equal(parsed('http://[::1]:8080')._unsafeUnwrap().portalPublicUrl, 'http://[::1]:8080');
    for (const wrong of [
      'http://safety.example.com',
      'https://safety.example.com/portal',
      'https://safety.example.com/?a=1',
      'https://user:pw@safety.example.com',
      'ftp://safety.example.com',
      'safety.example.com',
    ]) {
      assert.equal(parsed(wrong)._unsafeUnwrapErr().field, 'PORTAL_PUBLIC_URL', wrong);
    }
    assert.equal(parseConfig({})._unsafeUnwrap().portalPublicUrl, null);
  });

  test('invitation links: on PORTAL_PUBLIC_URL; unset, on the listening address of a loopback host, else a path', () => {
    const listening = 'http://127.0.0.1:8080';
    assert.equal(portalLinkOrigin(config('0.0.0.0', true, 'https://s.example'), listening), 'https://s.example');
    assert.equal(portalLinkOrigin(config('127.0.0.1', false), listening), listening);
    assert.equal(portalLinkOrigin(config('127.0.0.1', true), listening), null, 'behind a proxy: not the inner address');
    assert.equal(portalLinkOrigin(config('0.0.0.0', false), 'http://0.0.0.0:8080'), null);
  });
});
