import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { MAX_KEY_EXPOSURES } from '../src/contract/bounds.js';
import { createChainalysisAmlProvider, INDIRECT_EXPOSURE_HOPS } from '../src/risk/chainalysis-entity.js';
import { createChainalysisSanctionsProvider } from '../src/risk/chainalysis-sanctions.js';
import { combineSanctionsProviders } from '../src/risk/sanctions-combine.js';
import { createListSanctionsProvider, OFAC_TRON_LIST } from '../src/risk/sanctions-list.js';
import { BUNDLED_LIST_CURRENT } from '../src/testing/fake-ofac.js';
import type { AmlAnswer, SanctionsAnswer } from '../src/risk/signals.js';
import {
  startFakeChainalysis,
  type FakeChainalysis,
  type FakeFault,
  type FakeIdentification,
} from '../src/testing/fake-vendors.js';
import { fixturePath } from '../src/testing/fixtures.js';

const ADDR = {
  severe: 'TA3rH2A7iHnm6pKH8gr9cK1EZnShnmZdFg',
  high: 'TA82wQ77kb9DieW4C8q7C4KwMfnCzfziqN',
  medium: 'TASWbk6X1wiTku5TMmMQYqYFvshVEtfJy8',
  low: 'TAgZxxuvfuKYJY5UPC1DXF8NPHbKtTzEGu',
  clean: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  listed: 'TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM', // OFAC TRX list (Grinex)
};
const KEY = 'test-key';
const ctx = () => ({ signal: new AbortController().signal });
const answered = <A extends { status: string }>(a: A) => {
  assert.equal(a.status, 'answered', JSON.stringify(a));
  return a as Extract<A, { status: 'answered' }>;
};

let fake: FakeChainalysis;
before(async () => {
  fake = await startFakeChainalysis({
    apiKey: KEY,
    entities: {
      [ADDR.severe]: {
        risk: 'Severe',
        riskReason: 'Identified as sanctioned entity',
        exposures: [
          { category: 'sanctioned entity', value: 750, exposureType: 'direct' },
          { category: 'no kyc exchange', value: 250, exposureType: 'indirect' },
        ],
      },
      [ADDR.high]: {
        risk: 'High',
        triggers: [
          { category: 'darknet market', percentage: 12.5, ruleTriggered: { risk: 'High', exposureType: 'indirect' } },
        ],
      },
      [ADDR.medium]: { risk: 'Medium', exposures: [{ category: 'gambling', value: '0' as unknown as number }] },
      [ADDR.low]: { risk: 'Low' },
    },
    sanctioned: { [ADDR.listed]: [{ category: 'sanctions', name: 'SANCTIONS: OFAC SDN Grinex 2025-08-14' }] },
  });
});
after(() => fake.close());

const aml = (options: { timeoutMs?: number; ttlMs?: number; now?: () => number; apiKey?: string } = {}) =>
  createChainalysisAmlProvider({ baseUrl: fake.entityUrl, apiKey: KEY, ttlMs: 0, timeoutMs: 3000, ...options });
const sanctionsApi = (
  options: { timeoutMs?: number; ttlMs?: number; now?: () => number; maxAddresses?: number } = {},
) =>
  createChainalysisSanctionsProvider({
    baseUrl: fake.sanctionsUrl,
    apiKey: KEY,
    ttlMs: 0,
    timeoutMs: 3000,
    ...options,
  });

describe('Chainalysis Entity API adapter', () => {
  test('every risk level maps: Severe/High/Medium/Low → severe/high/moderate/low', async () => {
    const p = aml();
    const levels = await Promise.all(
      [ADDR.severe, ADDR.high, ADDR.medium, ADDR.low].map(async (a) => answered(await p.assessAddress(a, ctx())).level),
    );
    assert.deepEqual(levels, ['severe', 'high', 'moderate', 'low']);
    const call = fake.calls.at(-1);
    assert.equal(call?.apiKey, KEY, 'Token header');
  });

  test('exposures: direct hops 1, indirect hops 2, percent = share of value; triggers keep the vendor percentage', async () => {
    const p = aml();
    const severe = answered(await p.assessAddress(ADDR.severe, ctx()));
    assert.deepEqual(severe.exposures, [
      { category: 'sanctioned entity', exposureType: 'direct', hops: 1, percent: '75' },
      { category: 'no kyc exchange', exposureType: 'indirect', hops: INDIRECT_EXPOSURE_HOPS, percent: '25' },
    ]);
    const high = answered(await p.assessAddress(ADDR.high, ctx()));
    assert.deepEqual(high.exposures, [
      { category: 'darknet market', exposureType: 'indirect', hops: 2, percent: '12.5' },
    ]);
    const medium = answered(await p.assessAddress(ADDR.medium, ctx()));
    assert.deepEqual(
      medium.exposures,
      [{ category: 'gambling', exposureType: 'direct', hops: 1, percent: null }],
      'zero total: no share',
    );
    assert.deepEqual(answered(await p.assessAddress(ADDR.low, ctx())).exposures, []);
  });

  test('exposures are bounded: of thousands of categories the MAX_KEY_EXPOSURES largest are kept, a sanctions category first', async () => {
    const many = Array.from({ length: 5000 }, (_, i) => ({ category: `c${i}`, value: i % 500 === 7 ? 100_000 : 1 }));
    fake.setEntity(ADDR.clean, {
      risk: 'Low',
      exposures: [{ category: 'sanctions', value: 1, exposureType: 'indirect' }, ...many],
    });
    try {
      const { exposures } = answered(await aml().assessAddress(ADDR.clean, ctx()));
      assert.equal(exposures.length, MAX_KEY_EXPOSURES);
      assert.deepEqual(
        exposures.map((e) => e.category),
        ['sanctions', ...many.filter((e) => e.value > 1).map((e) => e.category)].slice(0, MAX_KEY_EXPOSURES),
        'the sanctions category, then the largest shares in the vendor order',
      );
    } finally {
      fake.setEntity(ADDR.clean, { risk: 'Low' });
    }
  });

  const faults: [string, FakeFault][] = [
    ['HTTP 500', { kind: 'status', status: 500 }],
    ['rate limited (HTTP 429)', { kind: 'status', status: 429 }],
    ['HTTP 503', { kind: 'status', status: 503 }],
    ['malformed body', { kind: 'malformed' }],
    ['unexpected body', { kind: 'missing_fields' }],
    ['response body too large', { kind: 'oversized' }],
    ['timed out', { kind: 'delay', ms: 400 }],
    ['timed out', { kind: 'hang' }],
  ];
  for (const [reason, fault] of faults) {
    test(`fault ${fault.kind}${fault.kind === 'status' ? ` ${fault.status}` : ''} → unavailable (${reason}), never an answer`, async () => {
      fake.setFault('entity', ADDR.low, fault);
      try {
        // A short timeout only where the fault is slowness, so a loaded machine cannot change the reason.
        const timeoutMs = fault.kind === 'delay' || fault.kind === 'hang' ? 150 : 3000;
        const answer = await aml({ timeoutMs }).assessAddress(ADDR.low, ctx());
        assert.equal(answer.status, 'unavailable');
        assert.match((answer as { reason: string }).reason, new RegExp(reason.replace(/[()]/g, '\\$&')));
      } finally {
        fake.setFault('entity', ADDR.low, null);
      }
    });
  }

  test('an assessment status other than COMPLETE (fault incomplete) → unavailable, whatever the risk says', async () => {
    fake.setFault('entity', ADDR.severe, { kind: 'incomplete' });
    try {
      assert.deepEqual(await aml().assessAddress(ADDR.severe, ctx()), {
        status: 'unavailable',
        reason: 'Chainalysis Entity API: assessment PENDING',
      });
      fake.setFault('entity', ADDR.severe, { kind: 'incomplete', status: 'ERROR' });
      assert.match(((await aml().assessAddress(ADDR.severe, ctx())) as { reason: string }).reason, /assessment ERROR/);
    } finally {
      fake.setFault('entity', ADDR.severe, null);
    }
    assert.equal(answered(await aml().assessAddress(ADDR.severe, ctx())).level, 'severe');
  });

  test('an unknown risk value and a wrong key → unavailable', async () => {
    fake.setEntity(ADDR.clean, { risk: 'Unknown' });
    assert.equal((await aml().assessAddress(ADDR.clean, ctx())).status, 'unavailable');
    const wrongKey = await aml({ apiKey: 'nope' }).assessAddress(ADDR.low, ctx());
    assert.deepEqual(wrongKey, { status: 'unavailable', reason: 'Chainalysis Entity API: HTTP 401' });
    fake.setEntity(ADDR.clean, { risk: 'Low' });
  });

  test('a Low answer with a triggered Severe rule is severe: the highest of risk and every rule risk counts', async () => {
    const selfContradicting = {
      risk: 'Low',
      triggers: [
        { category: 'gambling', percentage: 3, ruleTriggered: { risk: 'Medium', exposureType: 'indirect' as const } },
        {
          category: 'sanctions',
          percentage: 100,
          ruleTriggered: { risk: 'Severe', exposureType: 'direct' as const, direction: 'received' },
        },
        { category: 'exchange', percentage: 40, ruleTriggered: null },
      ],
    };
    fake.setEntity(ADDR.clean, selfContradicting);
    try {
      assert.equal(answered(await aml().assessAddress(ADDR.clean, ctx())).level, 'severe');
      fake.setEntity(ADDR.clean, {
        risk: 'Medium',
        triggers: [{ category: 'gambling', percentage: 1, ruleTriggered: { risk: 'Low', exposureType: 'direct' } }],
      });
      assert.equal(
        answered(await aml().assessAddress(ADDR.clean, ctx())).level,
        'moderate',
        'a lower rule does not lower the answer',
      );
      // A rule level we cannot read could be anything: no answer rather than the top-level Low.
      fake.setEntity(ADDR.clean, {
        risk: 'Low',
        triggers: [
          { category: 'sanctions', percentage: 100, ruleTriggered: { risk: 'Critical', exposureType: 'direct' } },
        ],
      });
      assert.deepEqual(await aml().assessAddress(ADDR.clean, ctx()), {
        status: 'unavailable',
        reason: 'Chainalysis Entity API: unknown risk "Critical"',
      });
    } finally {
      fake.setEntity(ADDR.clean, { risk: 'Low' });
    }
  });

  test('an address identified as sanctioned, a sanctioned entity or direct sanctions exposure is at least high, whatever the rating; indirect exposure keeps the rating', async () => {
    try {
      fake.setEntity(ADDR.clean, {
        risk: 'Low',
        exposures: [{ category: 'sanctions', value: 1200, exposureType: 'direct' }],
      });
      assert.equal(answered(await aml().assessAddress(ADDR.clean, ctx())).level, 'high');
      fake.setEntity(ADDR.clean, {
        risk: 'Severe',
        exposures: [{ category: 'sanctions', value: 1200, exposureType: 'direct' }],
      });
      assert.equal(answered(await aml().assessAddress(ADDR.clean, ctx())).level, 'severe', 'never lowered');
      fake.setEntity(ADDR.clean, {
        risk: 'Low',
        exposures: [{ category: 'sanctions', value: 1200, exposureType: 'indirect' }],
      });
      assert.equal(answered(await aml().assessAddress(ADDR.clean, ctx())).level, 'low');
      fake.setEntity(ADDR.clean, { risk: 'Low', cluster: { name: 'Garantex', category: 'sanctions' } });
      assert.equal(
        answered(await aml().assessAddress(ADDR.clean, ctx())).level,
        'high',
        'an address of a sanctioned entity',
      );
      fake.setEntity(ADDR.clean, {
        risk: 'Low',
        addressIdentifications: [{ name: 'SANCTIONS: OFAC SDN Example', category: 'sanctions', description: '' }],
      });
      assert.equal(
        answered(await aml().assessAddress(ADDR.clean, ctx())).level,
        'high',
        'an address the vendor itself identifies as sanctioned',
      );
      fake.setEntity(ADDR.clean, { risk: 'Low', cluster: { name: 'Binance', category: 'exchange' } });
      assert.equal(answered(await aml().assessAddress(ADDR.clean, ctx())).level, 'low');
    } finally {
      fake.setEntity(ADDR.clean, { risk: 'Low' });
    }
  });

  test('an answer naming another address than the one asked → unavailable, whatever its risk', async () => {
    fake.setFault('entity', ADDR.severe, { kind: 'other_address', address: ADDR.low });
    try {
      assert.deepEqual(await aml().assessAddress(ADDR.severe, ctx()), {
        status: 'unavailable',
        reason: `Chainalysis Entity API: answered for another address (${ADDR.low})`,
      });
    } finally {
      fake.setFault('entity', ADDR.severe, null);
    }
    assert.equal(answered(await aml().assessAddress(ADDR.severe, ctx())).level, 'severe', 'the same address answers');
  });

  test('Vendor answers complete or unavailable: a bare {"risk":"Low"}, or a complete answer naming no address, is unavailable over HTTP', async () => {
    const cases: [unknown, string][] = [
      [{ risk: 'Low' }, 'Chainalysis Entity API: names no address'],
      [{ risk: 'Low', status: 'COMPLETE' }, 'Chainalysis Entity API: names no address'],
      [{ risk: 'Low', address: ADDR.low }, 'Chainalysis Entity API: assessment status missing'],
    ];
    try {
      for (const [body, reason] of cases) {
        fake.setFault('entity', ADDR.low, { kind: 'body', body });
        assert.deepEqual(await aml().assessAddress(ADDR.low, ctx()), { status: 'unavailable', reason });
      }
    } finally {
      fake.setFault('entity', ADDR.low, null);
    }
    assert.equal(
      answered(await aml().assessAddress(ADDR.low, ctx())).level,
      'low',
      'a complete answer naming it counts',
    );
  });

  test('the check deadline releases the caller at once, long before the call timeout', async () => {
    fake.setFault('entity', ADDR.medium, { kind: 'hang' });
    try {
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 50);
      const answer = await aml({ timeoutMs: 5000 }).assessAddress(ADDR.medium, { signal: controller.signal });
      assert.deepEqual(answer, { status: 'unavailable', reason: 'check deadline reached' });
      assert.ok(Date.now() - started < 2500, 'well before the 5 s call timeout');
    } finally {
      fake.setFault('entity', ADDR.medium, null);
    }
  });

  test('a caller with a deadline (ctx.deadlineAt) gives up the margin before it, long before the call timeout; no time left, no call', async () => {
    fake.setFault('entity', ADDR.medium, { kind: 'hang' });
    try {
      const started = Date.now();
      const neverFires = new AbortController().signal;
      const answer = await aml({ timeoutMs: 5000 }).assessAddress(ADDR.medium, {
        signal: neverFires,
        deadlineAt: started + 1_000,
      });
      assert.deepEqual(answer, { status: 'unavailable', reason: 'check deadline reached' });
      assert.ok(Date.now() - started < 1_000, 'answered before the deadline (the default margin is 500 ms)');
      const calls = fake.calls.length;
      const late = await createChainalysisAmlProvider({
        baseUrl: fake.entityUrl,
        apiKey: KEY,
        ttlMs: 0,
        deadlineMarginMs: 300,
      }).assessAddress(ADDR.low, { signal: neverFires, deadlineAt: Date.now() + 250 });
      assert.deepEqual(late, { status: 'unavailable', reason: 'check deadline reached' });
      assert.equal(fake.calls.length, calls, 'inside the margin already: the vendor is not called');
    } finally {
      fake.setFault('entity', ADDR.medium, null);
    }
  });

  test('answers are cached for the TTL with asOf = when the vendor answered; failures are not cached', async () => {
    let clock = 1_000_000;
    const p = aml({ ttlMs: 60_000, now: () => clock });
    const count = () => fake.calls.filter((c) => c.api === 'entity' && c.address === ADDR.high).length;
    const before = count();
    const first = answered(await p.assessAddress(ADDR.high, ctx()));
    clock += 30_000;
    const second = answered(await p.assessAddress(ADDR.high, ctx()));
    assert.equal(count(), before + 1, 'second answer from the cache');
    assert.equal(second.asOf, first.asOf, 'cache age shows in asOf');
    clock += 30_001;
    answered(await p.assessAddress(ADDR.high, ctx()));
    assert.equal(count(), before + 2, 'expired after the TTL');

    fake.setFault('entity', ADDR.severe, { kind: 'status', status: 500 });
    assert.equal((await p.assessAddress(ADDR.severe, ctx())).status, 'unavailable');
    fake.setFault('entity', ADDR.severe, null);
    assert.equal(answered(await p.assessAddress(ADDR.severe, ctx())).level, 'severe');
  });

  test('concurrent identical lookups share one call', async () => {
    const p = aml({ ttlMs: 60_000 });
    fake.setFault('entity', ADDR.medium, { kind: 'delay', ms: 50 });
    const before = fake.calls.length;
    const answers: AmlAnswer[] = await Promise.all(
      Array.from({ length: 5 }, () => p.assessAddress(ADDR.medium, ctx())),
    );
    fake.setFault('entity', ADDR.medium, null);
    assert.equal(fake.calls.length - before, 1);
    for (const a of answers) assert.equal(answered(a).level, 'moderate');
  });

  test('a caller that gives up does not fail the others sharing its call', async () => {
    const p = aml({ ttlMs: 60_000 });
    fake.setFault('entity', ADDR.severe, { kind: 'delay', ms: 150 });
    try {
      const before = fake.calls.length;
      const [quitter, patient] = await Promise.all([
        p.assessAddress(ADDR.severe, { signal: AbortSignal.timeout(30) }),
        p.assessAddress(ADDR.severe, ctx()),
      ]);
      assert.deepEqual(quitter, { status: 'unavailable', reason: 'check deadline reached' });
      assert.equal(answered(patient).level, 'severe');
      assert.equal(fake.calls.length - before, 1, 'one shared call');
    } finally {
      fake.setFault('entity', ADDR.severe, null);
    }
  });

  test('supportsAsset: TRX and official TRC20s by default, configurable', () => {
    const p = aml();
    assert.equal(p.supportsAsset({ kind: 'trx' }), true);
    assert.equal(p.supportsAsset({ kind: 'trc20', contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }), true);
    assert.equal(p.supportsAsset({ kind: 'trc20', contract: ADDR.clean }), false);
    assert.equal(p.supportsAsset({ kind: 'trc10', tokenId: '1002000' }), false);
    const onlyTrx = createChainalysisAmlProvider({
      baseUrl: fake.entityUrl,
      apiKey: KEY,
      supportedAssets: [{ kind: 'trx' }],
    });
    assert.equal(onlyTrx.supportsAsset({ kind: 'trc20', contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }), false);
  });
});

describe('Chainalysis sanctions API adapter and the combiner', () => {
  test('identifications non-empty = hit with the name; empty = screened clean', async () => {
    const answer = answered(await sanctionsApi().screen([ADDR.listed, ADDR.clean, ADDR.listed], ctx()));
    assert.deepEqual(answer.hits, [
      { address: ADDR.listed, source: 'Chainalysis sanctions API', name: 'SANCTIONS: OFAC SDN Grinex 2025-08-14' },
    ]);
    assert.equal(fake.calls.at(-1)?.apiKey, KEY, 'X-API-Key header');
    assert.deepEqual(answered(await sanctionsApi().screen([ADDR.clean], ctx())).hits, []);
  });

  test('any non-empty identifications is a hit, even with entries we cannot read (named where they say a name)', async () => {
    fake.setFault('sanctions', ADDR.clean, {
      kind: 'body',
      body: { identifications: [{ category: 'sanctions', name: null }, 'SDN', { name: 'SANCTIONS: OFAC SDN X' }] },
    });
    try {
      assert.deepEqual(answered(await sanctionsApi().screen([ADDR.clean], ctx())).hits, [
        {
          address: ADDR.clean,
          source: 'Chainalysis sanctions API',
          name: 'unnamed identification; unnamed identification; SANCTIONS: OFAC SDN X',
        },
      ]);
    } finally {
      fake.setFault('sanctions', ADDR.clean, null);
    }
  });

  test('the recorded Chainalysis example (packages/core/fixtures/vendors) decodes as a hit with its name', async () => {
    const recorded = JSON.parse(
      readFileSync(fixturePath('vendors', 'chainalysis-sanctions-v1-address.json'), 'utf8'),
    ) as { identifications: FakeIdentification[] };
    fake.setSanctioned(ADDR.clean, recorded.identifications);
    try {
      const answer = answered(await sanctionsApi().screen([ADDR.clean], ctx()));
      assert.deepEqual(answer.hits, [
        {
          address: ADDR.clean,
          source: 'Chainalysis sanctions API',
          name: 'SANCTIONS: OFAC SDN Secondeye Solution 2021-04-15 1da5821544e25c636c1417ba96ade4cf6d2f9b5a',
        },
      ]);
    } finally {
      fake.setSanctioned(ADDR.clean, null);
    }
  });

  test('answers are cached per address for the TTL (asOf = when the API answered); failures are not cached', async () => {
    let clock = 5_000_000;
    const api = sanctionsApi({ ttlMs: 60_000, now: () => clock });
    const count = () => fake.calls.filter((c) => c.api === 'sanctions' && c.address === ADDR.listed).length;
    const before = count();
    const first = answered(await api.screen([ADDR.listed], ctx()));
    clock += 59_999;
    const second = answered(await api.screen([ADDR.listed], ctx()));
    assert.equal(count(), before + 1, 'second answer from the cache');
    assert.equal(second.asOf.getTime(), first.asOf.getTime(), 'the cache age shows in asOf');
    assert.deepEqual(second.hits, first.hits);
    clock += 1;
    answered(await api.screen([ADDR.listed], ctx()));
    assert.equal(count(), before + 2, 'expired after the TTL');

    fake.setFault('sanctions', ADDR.low, { kind: 'status', status: 500 });
    assert.equal((await api.screen([ADDR.low], ctx())).status, 'unavailable');
    fake.setFault('sanctions', ADDR.low, null);
    assert.deepEqual(answered(await api.screen([ADDR.low], ctx())).hits, [], 'the failure was not cached');
  });

  test('concurrent screens of the same address share one call; a quitter does not fail the others', async () => {
    const api = sanctionsApi({ ttlMs: 60_000 });
    fake.setFault('sanctions', ADDR.listed, { kind: 'delay', ms: 150 });
    try {
      const before = fake.calls.length;
      const [quitter, ...patient] = await Promise.all([
        api.screen([ADDR.listed], { signal: AbortSignal.timeout(30) }),
        ...Array.from({ length: 4 }, () => api.screen([ADDR.listed], ctx())),
      ]);
      assert.deepEqual(quitter, { status: 'unavailable', reason: 'check deadline reached' });
      for (const a of patient)
        assert.deepEqual(
          answered(a).hits.map((h) => h.address),
          [ADDR.listed],
        );
      assert.equal(fake.calls.length - before, 1, 'one shared call');
    } finally {
      fake.setFault('sanctions', ADDR.listed, null);
    }
  });

  test('at most maxAddresses are sent per check; the rest make the API unavailable unless something hit', async () => {
    const many = [ADDR.severe, ADDR.high, ADDR.medium, ADDR.low, ADDR.clean];
    const before = fake.calls.length;
    const capped = await sanctionsApi({ maxAddresses: 3 }).screen(many, ctx());
    assert.deepEqual(
      fake.calls
        .slice(before)
        .map((c) => c.address)
        .sort(),
      many.slice(0, 3).sort(),
      'the first three, in the order given',
    );
    assert.deepEqual(capped, {
      status: 'unavailable',
      reason: 'Chainalysis sanctions API: 2 of 5 addresses beyond the per-check cap of 3 not screened',
    });
    const hit = answered(await sanctionsApi({ maxAddresses: 1 }).screen([ADDR.listed, ...many], ctx()));
    assert.deepEqual(
      hit.hits.map((h) => h.address),
      [ADDR.listed],
      'a hit among those screened stands',
    );
    assert.deepEqual(
      answered(await sanctionsApi({ maxAddresses: 5 }).screen(many, ctx())).hits,
      [],
      'at the cap: answered',
    );
    assert.throws(() => sanctionsApi({ maxAddresses: 0 }), /maxAddresses/);
  });

  test('many addresses under a concurrency cap: every address screened once', async () => {
    fake.setFault('sanctions', '*', { kind: 'delay', ms: 20 });
    try {
      const before = fake.calls.length;
      const addresses = [...Object.values(ADDR), 'TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre'];
      const api = createChainalysisSanctionsProvider({
        baseUrl: fake.sanctionsUrl,
        apiKey: KEY,
        ttlMs: 0,
        maxConcurrent: 2,
      });
      const answer = answered(await api.screen(addresses, ctx()));
      assert.deepEqual(
        answer.hits.map((h) => h.address),
        [ADDR.listed],
      );
      assert.equal(fake.calls.length - before, addresses.length);
    } finally {
      fake.setFault('sanctions', '*', null);
    }
  });

  const faults: FakeFault[] = [
    { kind: 'status', status: 500 },
    { kind: 'status', status: 429 },
    { kind: 'malformed' },
    { kind: 'missing_fields' },
    { kind: 'oversized' },
    { kind: 'delay', ms: 400 },
    { kind: 'hang' },
  ];
  for (const fault of faults) {
    test(`fault ${fault.kind}${fault.kind === 'status' ? ` ${fault.status}` : ''} → unavailable alone, a list hit still stands combined`, async () => {
      fake.setFault('sanctions', '*', fault);
      try {
        const api = sanctionsApi({ timeoutMs: fault.kind === 'delay' || fault.kind === 'hang' ? 150 : 3000 });
        assert.equal((await api.screen([ADDR.clean], ctx())).status, 'unavailable');
        const combined = combineSanctionsProviders([
          createListSanctionsProvider([OFAC_TRON_LIST], BUNDLED_LIST_CURRENT),
          api,
        ]);
        const clean: SanctionsAnswer = await combined.screen([ADDR.clean], ctx());
        assert.equal(clean.status, 'unavailable', 'no hit + a failed source is not clean');
        const hit = answered(await combined.screen([ADDR.clean, ADDR.listed], ctx()));
        assert.deepEqual(
          hit.hits.map((h) => h.address),
          [ADDR.listed],
        );
      } finally {
        fake.setFault('sanctions', '*', null);
      }
    });
  }

  test('the check deadline firing mid-call: unavailable alone and combined, never clean', async () => {
    fake.setFault('sanctions', ADDR.clean, { kind: 'hang' });
    try {
      const api = sanctionsApi({ timeoutMs: 5000, ttlMs: 60_000 });
      const combined = combineSanctionsProviders([
        createListSanctionsProvider([OFAC_TRON_LIST], BUNDLED_LIST_CURRENT),
        api,
      ]);
      const started = Date.now();
      const [alone, both] = await Promise.all([
        api.screen([ADDR.clean], { signal: AbortSignal.timeout(60) }),
        combined.screen([ADDR.clean], { signal: AbortSignal.timeout(60) }),
      ]);
      assert.deepEqual(alone, { status: 'unavailable', reason: 'check deadline reached' });
      assert.equal(both.status, 'unavailable');
      assert.ok(Date.now() - started < 2500, 'released at the deadline, not the call timeout');
    } finally {
      fake.setFault('sanctions', ADDR.clean, null);
    }
  });

  test('combined: no hit and every source answered → answered clean, as of the oldest source', async () => {
    const combined = combineSanctionsProviders([
      createListSanctionsProvider([OFAC_TRON_LIST], BUNDLED_LIST_CURRENT),
      sanctionsApi(),
    ]);
    const answer = answered(await combined.screen([ADDR.clean], ctx()));
    assert.deepEqual(answer.hits, []);
    assert.equal(answer.asOf.getTime(), OFAC_TRON_LIST.asOf.getTime());
    const both = answered(await combined.screen([ADDR.listed], ctx()));
    assert.deepEqual(both.hits.map((h) => h.source).sort(), [
      'Chainalysis sanctions API',
      'OFAC SDN (Digital Currency Address - TRX)',
    ]);
  });
});
