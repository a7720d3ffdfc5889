import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { confirmedTrxFacts, instantChain, instantRisk } from '@tron-safety/core/testing';
import { portalWorld } from './portal-client.js';

const operator = { kind: 'operator' } as const;
const DAY = 86_400_000;
/** Hashes ending in `ff` are found but unfinalized (REVIEW, not billable); `ee` the chain cannot answer (an error). */
const chain = instantChain({
  facts: (hash) =>
    hash.endsWith('ee') ? null : { ...confirmedTrxFacts(hash), ...(hash.endsWith('ff') ? { finalized: false } : {}) },
});

async function world() {
  const w = await portalWorld({}, { chain, risk: instantRisk() });
  await w.member('viewer@example.com', 'viewer');
  const key = (await w.service.admin.createApiKey(operator, w.orgId, 'ci'))._unsafeUnwrap().key;
  let n = 0;
  const checks = async (count: number, suffix = '00') => {
    for (let i = 0; i < count; i++)
      await w.service.check({
        apiKey: key,
        request: { tx_hash: (++n).toString(16).padStart(62, '0') + suffix, network: 'tron' },
      });
  };
  const usagePage = async () => {
    const browser = w.client();
    await browser.signIn('viewer@example.com');
    return (await browser.get('/portal/usage')).body;
  };
  return { ...w, checks, usagePage };
}

/** The table's row of `day`: its cells after the day, as numbers. */
function tableRow(body: string, day: string): number[] {
  const row = new RegExp(`<th scope="row">${day}</th>([\\s\\S]*?)</tr>`).exec(body)![1]!;
  return [...row.matchAll(/<td>([\d,]+)<\/td>/g)].map((m) => Number(m[1]!.replaceAll(',', '')));
}

describe('Portal: usage', () => {
  test('Usage chart: UTC daily buckets of requests, billable and overall states, the same numbers in a table', async () => {
    const { checks, advance, usagePage } = await world();
    await checks(3);
    await checks(2, 'ff');
    await checks(1, 'ee');
    advance(2 * DAY);
    await checks(4);
    const body = await usagePage();
    assert.match(body, /<svg class="usage-chart"[^>]*role="img" aria-labelledby="chart-title chart-desc"/);
    assert.match(
      body,
      /<desc id="chart-desc">10 checks from 2026-05-05 to 2026-06-03 \(UTC\), 7 billable; the busiest day was 2026-06-01 with 6\./,
    );
    assert.match(body, /<title>2026-06-01: 6 requests, 3 billable<\/title>/);
    assert.match(body, /<title>2026-06-02: 0 requests, 0 billable<\/title>/);
    const columns = ['requests', 'billable', 'CLEAR', 'REVIEW', 'HIGH_RISK', 'LIMITED_DATA', 'errors'];
    assert.deepEqual(tableRow(body, '2026-06-01'), [6, 3, 3, 2, 0, 0, 1], columns.join(', '));
    assert.deepEqual(tableRow(body, '2026-06-02'), [0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(tableRow(body, '2026-06-03'), [4, 4, 4, 0, 0, 0, 0]);
    assert.deepEqual(tableRow(body, 'Total'), [10, 7, 7, 2, 0, 0, 1]);
    assert.equal([...body.matchAll(/<th scope="row">2026-\d\d-\d\d<\/th>/g)].length, 30, 'every day of the 30');
    const counters = [...body.matchAll(/<dt>Requests<\/dt>\s*<dd>(\d+)<\/dd>/g)].map((m) => Number(m[1]));
    assert.deepEqual(counters, [4, 10, 10], 'today (UTC), 7 days, 30 days');
  });

  test('Latency: p50/p95 hidden below 20 completed checks in the last 30 days, shown from 20', async () => {
    const { checks, usagePage, advance } = await world();
    await checks(5);
    advance(31 * DAY); // those five fall out of the last 30 days
    await checks(19);
    const hidden = await usagePage();
    assert.match(
      hidden,
      /Not shown yet: p50 and p95 latency need at least 20 completed checks in the last 30 days,\s+and there are 19 so far\./,
    );
    assert.ok(!hidden.includes('p50 (median)'));
    await checks(1);
    const shown = await usagePage();
    assert.match(shown, /<dt>p50 \(median\)<\/dt>\s*<dd>\d+ ms<\/dd>\s*<dt>p95<\/dt>\s*<dd>\d+ ms<\/dd>/);
    assert.match(shown, /From the 20 checks completed in the last 30 days/);
  });
});
