import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  confirmedTrxFacts,
  HARNESS_RECIPIENT,
  HARNESS_SENDER,
  instantChain,
  instantRisk,
} from '@tron-safety/core/testing';
import { portalWorld } from './portal-client.js';

const operator = { kind: 'operator' } as const;
const TX = 'ab'.repeat(32);
/** A transaction the chain cannot answer for (503 provider_unavailable). */
const UNAVAILABLE_TX = 'dead'.repeat(16);

async function signedIn(role = 'owner') {
  const chain = instantChain({ facts: (tx) => (tx === UNAVAILABLE_TX ? null : confirmedTrxFacts(tx)) });
  const world = await portalWorld({}, { chain, risk: instantRisk() });
  const email = `${role}@example.com`;
  if (role !== 'owner') await world.member(email, role);
  const browser = world.client();
  await browser.signIn(email);
  const key = (await world.service.admin.createApiKey(operator, world.orgId, 'ci'))._unsafeUnwrap().key;
  /** Used quota and counted checks, as `GET /v1/usage` with one of the organization's keys reports them. */
  const counted = async () => {
    const report = await world.service.usage({ apiKey: key });
    assert.ok(report.ok);
    return { used: report.body.period.used, requests: report.body.recent.requests };
  };
  const check = (form: Record<string, string>) => browser.submit('/portal/check', '/portal/check', form);
  return { ...world, browser, counted, check };
}

const idempotencyKeyOf = (body: string) => /name="idempotency_key" value="([^"]+)"/.exec(body)![1]!;

describe('Portal: check a transaction', () => {
  test('The answer is shown readably: state, coverage, reasons, match flags, transfers, freshness', async () => {
    const { check } = await signedIn('developer');
    const page = await check({
      tx_hash: ` ${TX} `,
      network: 'tron',
      expected_recipient: HARNESS_RECIPIENT,
      expected_amount: '1.5',
    });
    assert.equal(page.status, 200);
    assert.match(page.body, /Overall state: <span class="state">CLEAR<\/span>/);
    assert.match(page.body, /<dt>Transaction state<\/dt>\s*<dd>confirmed \(25 of 19 required confirmations\)<\/dd>/);
    assert.match(page.body, /<dt>Coverage<\/dt>\s*<dd>\s*complete/);
    assert.match(page.body, /<code>TX_FINALIZED<\/code> Finality requirements are met\./);
    const flags = [
      ...page.body.matchAll(
        /<th scope="row">(Recipient|Token contract|Amount)<\/th>[\s\S]*?<span class="badge[^"]*">([^<]+)<\/span>/g,
      ),
    ];
    assert.deepEqual(
      flags.map((m) => [m[1], m[2]]),
      [
        ['Recipient', 'matches'],
        ['Token contract', 'not requested'],
        ['Amount', 'matches'],
      ],
    );
    assert.ok(page.body.includes(`<code>${HARNESS_SENDER}</code>`), 'the transfer’s sender');
    assert.match(page.body, /<dt>Checked at<\/dt>\s*<dd>2026-06-01 12:00:00 UTC<\/dd>/);
    assert.ok(page.body.includes(`value="${TX}"`), 'the form keeps what was checked');
  });

  test('Quota: a portal check is billed and counted like a key’s; a reload of the same form replays it', async () => {
    const { browser, check, counted } = await signedIn();
    assert.deepEqual(await counted(), { used: 0, requests: 0 });
    const form = await browser.get('/portal/check');
    const idempotency_key = idempotencyKeyOf(form.body);
    const post = () =>
      browser.request('POST', '/portal/check', {
        form: { csrf: form.csrf!, idempotency_key, tx_hash: TX, network: 'tron' },
      });
    assert.equal((await post()).status, 200);
    assert.deepEqual(await counted(), { used: 1, requests: 1 });
    const reloaded = await post();
    assert.match(reloaded.body, /stored answer of this form’s earlier submission/);
    assert.deepEqual(await counted(), { used: 1, requests: 1 }, 'not billed or counted twice');
    assert.notEqual(idempotencyKeyOf(reloaded.body), idempotency_key, 'the next form is a new check');
    assert.equal((await check({ tx_hash: TX, network: 'tron' })).status, 200);
    assert.deepEqual(await counted(), { used: 2, requests: 2 });
  });

  test('Errors: 422 with the API’s code, 429 for the quota and the rate, 503 when the chain cannot answer', async () => {
    const { check, service, orgId } = await signedIn();
    const invalid = await check({ tx_hash: 'not-a-hash', network: 'tron', expected_amount: '1' });
    assert.equal(invalid.status, 422);
    assert.match(invalid.body, /Not checked: the request is not valid/);
    assert.match(invalid.body, /<code>malformed_tx_hash<\/code> \(HTTP 422, not retryable\)/);
    assert.ok(invalid.body.includes('value="not-a-hash"'), 'the form keeps the input to correct');
    const address = await check({ tx_hash: TX, network: 'tron', expected_recipient: 'T123' });
    assert.match(address.body, /<code>invalid_tron_address<\/code>/);
    const unavailable = await check({ tx_hash: UNAVAILABLE_TX, network: 'tron' });
    assert.equal(unavailable.status, 503);
    assert.match(unavailable.body, /Transaction data is temporarily unavailable\. Nothing was billed/);

    const limits = { maxConcurrentRequests: 2, enabledNetworks: ['tron'] };
    await service.admin.setCustomEntitlements(operator, orgId, { ...limits, rateLimitPerMinute: 60, monthlyQuota: 0 });
    const quota = await check({ tx_hash: TX, network: 'tron' });
    assert.equal(quota.status, 429);
    assert.match(quota.body, /This month’s quota of complete checks is used up; it resets 2026-07-01 00:00 UTC\./);
    await service.admin.setCustomEntitlements(operator, orgId, { ...limits, rateLimitPerMinute: 1, monthlyQuota: 10 });
    const rate = await check({ tx_hash: TX, network: 'tron' });
    assert.equal(rate.status, 429);
    assert.match(
      rate.body,
      /requests a minute \(API keys and portal together\) are used up\. Try again in \d+ seconds/,
    );
  });

  test('Roles: billing and viewer members get 403 on the form and on posting it; nothing is checked', async () => {
    for (const role of ['billing', 'viewer']) {
      const { browser, counted } = await signedIn(role);
      const form = await browser.get('/portal/check');
      assert.equal(form.status, 403, `${role}: the form`);
      assert.match(form.body, new RegExp(`Your role \\(${role}\\) cannot run checks`));
      const posted = await browser.request('POST', '/portal/check', {
        form: { csrf: form.csrf!, tx_hash: TX, network: 'tron' },
      });
      assert.equal(posted.status, 403, `${role}: posting it`);
      assert.deepEqual(await counted(), { used: 0, requests: 0 });
    }
  });

  test('CSRF: a check posted without the session’s token is refused and runs nothing', async () => {
    const { browser, counted } = await signedIn('admin');
    const posted = await browser.request('POST', '/portal/check', { form: { tx_hash: TX, network: 'tron' } });
    assert.equal(posted.status, 403);
    assert.deepEqual(await counted(), { used: 0, requests: 0 });
  });
});
