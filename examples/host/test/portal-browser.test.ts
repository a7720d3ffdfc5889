// The portal in a real browser: Debian's Chromium driven by playwright-core (never a downloaded
// browser), against the real host (Express, in-memory stores, the fake java-tron node). Without
// Chromium the suite is skipped with one line saying why; under CI=true a missing browser fails.
// The screenshots in docs/portal/ come from these tests: UPDATE_SCREENSHOTS=1 writes them there
// (otherwise they go to a temporary directory, so a test run leaves the tree unchanged).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  bundledSdnEntries,
  startFakeChainalysis,
  startFakeOfac,
  startFakeTronNode,
  TRON_FIXTURE_TX,
  USDT_CONTRACT,
  type FakeChainalysis,
  type FakeOfac,
  type FakeTronNode,
} from '@tron-safety/core/testing';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { request } from 'undici';
import { parseConfig } from '../src/config.js';
import { startHost, type RunningHost } from '../src/host.js';
import { createLogger } from '../src/log.js';
import { PORTAL_PASSWORD, portalSeedFile, portalWithHistory, startPortalHost } from './portal-support.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../../docs/portal/', import.meta.url))
  : mkdtempSync(join(tmpdir(), 'tron-safety-portal-shots-'));

const missing = existsSync(CHROMIUM) ? undefined : `Chromium not found at ${CHROMIUM} (apt-get install chromium)`;
if (missing && process.env.CI === 'true') {
  test('portal browser tests', () => assert.fail(`${missing}: CI must run the browser tests`));
} else if (missing) {
  test('portal browser tests', { skip: `skipped: ${missing}` }, () => {});
} else {
  describe('the portal in Chromium', browserSuite);
}

function browserSuite(): void {
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  let ofac: FakeOfac;
  let host: RunningHost;
  let context: BrowserContext;
  let page: Page;
  const userDataDir = mkdtempSync(join(tmpdir(), 'tron-safety-chromium-'));
  const url = (path: string) => `${host.url}${path}`;
  const shoot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name, exact: true });
  const keys: { first?: string; rotated?: string; reporting?: string } = {};

  const callApi = async (apiKey: string, path: string, body?: object) => {
    const res = await request(url(path), {
      method: body ? 'POST' : 'GET',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, any> };
  };
  const checkWith = async (apiKey: string, txHash: string = TRON_FIXTURE_TX.trxTransfer) =>
    (await callApi(apiKey, '/v1/transaction/check', { tx_hash: txHash, network: 'tron' })).status;
  /** The organization's used quota and counted checks, as `GET /v1/usage` with one of its keys says. */
  const usageOf = async (apiKey: string) => {
    const { body } = await callApi(apiKey, '/v1/usage');
    return { used: body.period.used as number, requests: body.recent.requests as number };
  };
  const signIn = async (email: string, password = PORTAL_PASSWORD, base = host.url) => {
    await page.goto(`${base}/portal/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const signOut = async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/portal\/sign-in/);
  };

  before(async () => {
    node = await startFakeTronNode();
    // Every address Low and today's sanctions list: checks are complete, so they are billable and show on the quota bar.
    vendors = await startFakeChainalysis({ defaultEntity: { risk: 'Low' } });
    ofac = await startFakeOfac({
      published: new Date(new Date().toISOString().slice(0, 10)),
      entries: bundledSdnEntries(),
    });
    const config = parseConfig({
      PORT: '0',
      TRON_FULLNODE_URL: node.url,
      CHAINALYSIS_API_URL: vendors.entityUrl,
      CHAINALYSIS_API_KEY: 'test',
      OFAC_SDN_URL: ofac.url,
      SAFETY_SEED_FILE: portalSeedFile(undefined, 20),
    });
    host = (await startHost(config._unsafeUnwrap(), createLogger('silent')))._unsafeUnwrap();
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1100, height: 760 },
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: host.url });
    page = context.pages()[0] ?? (await context.newPage());
  });

  after(async () => {
    await context?.close();
    await host?.stop('test');
    await node?.close();
    await vendors?.close();
    await ofac?.close();
    rmSync(userDataDir, { recursive: true, force: true });
  });

  test('Invitation → set password → sign in, with every navigation item', async () => {
    await page.goto(url('/portal/'));
    await shoot('sign-in');
    await signIn('owner@example.com');
    await nav('Members').click();
    await page.getByLabel('Email').fill('dev@example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('developer');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = await page.getByLabel('Invitation link').inputValue();
    await nav('Members').click();
    await shoot('members');
    await signOut();

    await page.goto(link);
    await page.getByLabel('New password').fill(PORTAL_PASSWORD);
    await page.getByLabel('Repeat the password').fill(PORTAL_PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your password is set').waitFor();
    assert.equal((await page.goto(link))?.status(), 404, 'the link works once');
    await signIn('dev@example.com');
    await page.waitForURL(/\/portal\/overview$/);
    assert.match(await page.locator('header').innerText(), /dev@example\.com \(developer\)/);
    const items = page.getByRole('navigation', { name: 'Portal' });
    for (const name of ['Overview', 'API keys', 'Usage', 'Check a transaction', 'Members'])
      assert.equal(await items.getByRole('link', { name, exact: true }).count(), 1, name);
    assert.equal(await items.getByRole('button', { name: 'Sign out' }).count(), 1);
  });

  test('Create a key: shown once with a copy button, then only its prefix; it checks a transaction and shows as used', async () => {
    await nav('API keys').click();
    await page.getByLabel('Label').fill('checkout server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByLabel('API key “checkout server”').inputValue();
    assert.match(key, /^tsk_live_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), key);
    await shoot('key-created');
    keys.first = key;
    await nav('API keys').click();
    const list = await page.locator('main').innerText();
    assert.ok(!list.includes(key), 'never shown again');
    assert.ok(list.includes(`${key.slice(0, 17)}…`), 'only the prefix');
    assert.match(await page.getByRole('row', { name: /checkout server/ }).innerText(), /never/);
    assert.equal(await checkWith(key), 200);
    await nav('API keys').click();
    assert.doesNotMatch(await page.getByRole('row', { name: /checkout server/ }).innerText(), /never/, 'last used');
  });

  test('Rotate: the old key answers 401 at once, the new one works', async () => {
    await page.getByRole('link', { name: 'Rotate key checkout server' }).click();
    await page.getByRole('button', { name: 'Rotate key' }).click();
    keys.rotated = await page.getByLabel('API key “checkout server”').inputValue();
    assert.equal(await checkWith(keys.first!), 401);
    assert.equal(await checkWith(keys.rotated), 200);
    await nav('API keys').click();
    await shoot('keys');
  });

  test('A form without its CSRF token is refused and changes nothing', async () => {
    await page.evaluate(`document.querySelector('form[action="/portal/keys"] input[name="csrf"]').remove()`);
    await page.getByLabel('Label').fill('forged');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('This form is out of date').waitFor();
    await nav('API keys').click();
    assert.ok(!(await page.locator('main').innerText()).includes('forged'));
  });

  test('Revoke asks for confirmation, then the key answers 401', async () => {
    await page.getByRole('link', { name: 'Revoke key checkout server' }).click();
    await page.getByText('This cannot be undone').waitFor();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('The key is revoked').waitFor();
    assert.equal(await checkWith(keys.rotated!), 401);
  });

  test('Sign-out ends the session on the server', async () => {
    const session = (await context.cookies(url('/portal/'))).find((c) => c.name === 'portal_session')!;
    await signOut();
    await page.getByText('You are signed out').waitFor();
    const replay = await request(url('/portal/overview'), { headers: { cookie: `portal_session=${session.value}` } });
    await replay.body.dump();
    assert.equal(replay.statusCode, 303);
    assert.equal(replay.headers.location, '/portal/sign-in');
  });

  test('A viewer sees usage but gets 403 on key actions and the check form', async () => {
    const invited = await host.service.admin.members.inviteMember({ kind: 'operator' }, (await firstOrg(host)).id, {
      email: 'viewer@example.com',
      role: 'viewer',
    });
    (await host.service.admin.members.acceptInvitation(invited._unsafeUnwrap().token, PORTAL_PASSWORD))._unsafeUnwrap();
    await signIn('viewer@example.com');
    await nav('Usage').click();
    assert.match(await page.locator('main').innerText(), /Requests\s+2/, 'the two checks of this suite that got a 200');
    await nav('Overview').click();
    assert.ok(await page.getByRole('img', { name: 'Quota: 2 used, 0 reserved, 18 remaining of 20' }).isVisible());
    await shoot('overview');
    await nav('API keys').click();
    assert.equal(await page.getByRole('button', { name: 'Create key' }).count(), 0);
    const csrf = await page.locator('nav input[name="csrf"]').inputValue();
    const create = await page.request.post(url('/portal/keys'), {
      form: { csrf, label: 'viewer key' },
      maxRedirects: 0,
    });
    assert.equal(create.status(), 403);
    const keyId = (
      await host.service.admin.listApiKeys({ kind: 'operator' }, (await firstOrg(host)).id)
    )._unsafeUnwrap()[0]!.id;
    for (const action of ['rotate', 'revoke']) {
      const posted = await page.request.post(url(`/portal/keys/${keyId}/${action}`), {
        form: { csrf },
        maxRedirects: 0,
      });
      assert.equal(posted.status(), 403, action);
      assert.equal((await page.goto(url(`/portal/keys/${keyId}/${action}`)))?.status(), 403, `${action} page`);
    }
    assert.equal((await page.goto(url('/portal/check')))?.status(), 403, 'the check form');
    await page.getByText('Your role (viewer) cannot run checks').waitFor();
    const posted = await page.request.post(url('/portal/check'), {
      form: { csrf, tx_hash: TRON_FIXTURE_TX.trxTransfer, network: 'tron' },
      maxRedirects: 0,
    });
    assert.equal(posted.status(), 403, 'posting a check');
    await nav('Usage').click();
    assert.match(await page.locator('main').innerText(), /Requests\s+2/, 'nothing was checked');
    await signOut();
  });

  test('A portal check: its answer shown readably, and it consumes the organization’s quota (GET /v1/usage)', async () => {
    await signIn('dev@example.com');
    await nav('API keys').click();
    await page.getByLabel('Label').fill('reporting');
    await page.getByRole('button', { name: 'Create key' }).click();
    keys.reporting = await page.getByLabel('API key “reporting”').inputValue();
    const truth = await callApi(keys.reporting, '/v1/transaction/check', {
      tx_hash: TRON_FIXTURE_TX.usdtTransfer,
      network: 'tron',
    });
    const before = await usageOf(keys.reporting);

    await nav('Check a transaction').click();
    await page.getByLabel('Transaction hash').fill(TRON_FIXTURE_TX.usdtTransfer);
    await page.getByLabel('Expected recipient').fill(truth.body.recipient);
    await page.getByLabel('Expected token contract').fill(USDT_CONTRACT);
    await page.getByLabel('Expected amount').fill(truth.body.amount);
    await page.getByRole('button', { name: 'Check transaction' }).click();
    const verdict = page.getByRole('region', { name: 'Overall state: CLEAR' });
    await verdict.waitFor();
    assert.match(await verdict.innerText(), /Transaction state\s+confirmed/);
    assert.match(await verdict.innerText(), /Coverage\s+complete/);
    const reasons = await page.getByRole('region', { name: 'Reasons' }).getByRole('listitem').allInnerTexts();
    assert.ok(reasons.length >= 2 && reasons.some((r) => r.includes('TX_FINALIZED')), reasons.join('; '));
    const flags = await page.getByRole('region', { name: 'Expected payment' }).getByRole('row').allInnerTexts();
    assert.deepEqual(
      flags.slice(1).map((row) => row.split('\t').at(-1)),
      ['matches', 'matches', 'matches'],
    );
    const transfers = await page.getByRole('region', { name: 'Transfers' }).innerText();
    assert.ok(transfers.includes(truth.body.recipient) && transfers.includes(truth.body.amount));
    assert.match(await page.getByRole('region', { name: 'Freshness' }).innerText(), /Checked at\s+\d{4}-\d\d-\d\d/);
    await shoot('check-answer');
    assert.deepEqual(await usageOf(keys.reporting), { used: before.used + 1, requests: before.requests + 1 });
  });

  test('Usage: p50/p95 latency hidden below 20 completed checks in the last 30 days, shown at 20', async () => {
    const samples = async () => {
      await nav('Usage').click();
      return page.locator('#latency-status').innerText();
    };
    const now = /there (?:is|are) (\d+) so far/.exec(await samples());
    assert.ok(now, 'hidden while there are fewer than 20');
    for (let n = Number(now[1]); n < 19; n++) assert.equal(await checkWith(keys.reporting!), 200);
    assert.match(await samples(), /need at least 20 completed checks in the last 30 days, and there are 19 so far/);
    assert.equal(await page.getByText('p50 (median)').count(), 0);
    assert.equal(await checkWith(keys.reporting!, TRON_FIXTURE_TX.usdtTransfer), 200);
    assert.match(await samples(), /From the 20 checks completed in the last 30 days/);
    const latency = await page.getByRole('region', { name: 'Latency, last 30 days' }).innerText();
    assert.match(latency, /p50 \(median\)\s+[\d,]+ ms\s+p95\s+[\d,]+ ms/);
    assert.ok(await page.getByRole('img', { name: /Checks per UTC day, last 30 days/ }).isVisible(), 'the chart');
    await signOut();
  });

  test('Reloading the page of a new key creates no second key and shows the key no more', async () => {
    await signIn('dev@example.com');
    await nav('API keys').click();
    await page.getByLabel('Label').fill('reloaded');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByLabel('API key “reloaded”').inputValue();
    assert.match(
      page.url(),
      /\/portal\/keys\/issued\?r=[A-Za-z0-9_-]{16}$/,
      'no secret in the address, only the reveal id',
    );
    await page.reload();
    await page.getByText('that one has been shown').waitFor();
    await page.goBack();
    assert.ok(!(await page.content()).includes(key), 'not shown again, nor from the history');
    const keys = (
      await host.service.admin.listApiKeys({ kind: 'operator' }, (await firstOrg(host)).id)
    )._unsafeUnwrap();
    assert.equal(keys.filter((k) => k.label === 'reloaded').length, 1);
    await nav('API keys').click();
    await signOut();
  });

  test('Throttling after repeated bad passwords', async () => {
    await context.clearCookies();
    for (let i = 0; i < 5; i++) {
      await signIn('viewer@example.com', 'not the password');
      await page.getByText('Wrong email or password').waitFor();
    }
    await signIn('viewer@example.com');
    await page.getByText('Too many failed sign-ins').waitFor();
    assert.match(page.url(), /\/portal\/sign-in$/);
  });

  test('Behind HTTPS (PORTAL_PUBLIC_URL): __Host- cookies carry the session and a new key; the invitation link is on the public URL', async () => {
    // Chromium treats 127.0.0.1 as a secure context, so it keeps Secure and __Host- cookies from it as from HTTPS.
    const secure = await startPortalHost(node.url, { PORTAL_PUBLIC_URL: 'https://safety.example.com' });
    try {
      await context.clearCookies(); // the other host is on the same host name: its cookies would go here too
      await signIn('owner@example.com', PORTAL_PASSWORD, secure.url);
      await page.waitForURL(/\/portal\/overview$/);
      const cookies = await context.cookies(secure.url);
      const session = cookies.find((c) => c.name === '__Host-portal_session')!;
      assert.deepEqual([session.secure, session.path, session.httpOnly, session.sameSite], [true, '/', true, 'Lax']);
      assert.deepEqual(
        cookies.filter((c) => !c.name.startsWith('__Host-')),
        [],
      );
      await nav('API keys').click();
      await page.getByLabel('Label').fill('behind https');
      await page.getByRole('button', { name: 'Create key' }).click();
      assert.match(await page.getByLabel('API key “behind https”').inputValue(), /^tsk_live_/);
      await nav('Members').click();
      await page.getByLabel('Email').fill('ops@example.com');
      await page.getByRole('button', { name: 'Invite' }).click();
      const link = await page.getByLabel('Invitation link').inputValue();
      assert.match(link, /^https:\/\/safety\.example\.com\/portal\/invitation\?token=[A-Za-z0-9_-]{43}$/);
    } finally {
      await context.clearCookies();
      await secure.stop('test');
    }
  });

  test('Usage chart: 30 UTC days drawn as stacked bars with the billable line, the same numbers in the table', async () => {
    const history = await portalWithHistory();
    try {
      await context.clearCookies(); // the other portal is on the same host name: its cookies would go there too
      await signIn('ana@example.com', PORTAL_PASSWORD, history.url);
      await nav('Usage').click();
      const chart = page.getByRole('img', { name: /Checks per UTC day, last 30 days/ });
      assert.match((await chart.getAttribute('aria-labelledby')) ?? '', /chart-desc/);
      assert.equal(await page.locator('svg.usage-chart > g').count(), 30, 'a bar a day');
      assert.ok((await page.locator('svg.usage-chart rect.s-review').count()) > 0);
      assert.equal(await page.locator('table.numbers tbody tr').count(), 30, 'a row a day');
      const total = await page.locator('table.numbers tfoot tr').innerText();
      const [requests] = total
        .split('\t')
        .slice(1)
        .map((n) => Number(n.replaceAll(',', '')));
      assert.match(
        (await page.locator('#chart-desc').textContent()) ?? '',
        new RegExp(`^${requests!.toLocaleString('en-US')} checks`),
      );
      assert.ok(await page.getByText('p50 (median)').isVisible());
      await shoot('usage');
    } finally {
      await context.clearCookies();
      await history.close();
    }
  });
}

async function firstOrg(host: RunningHost) {
  return (await host.service.admin.listOrganizations({ kind: 'operator' }))._unsafeUnwrap()[0]!;
}
