import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assess } from '../src/assessment/assess.js';
import type { ChainFacts, Transfer } from '../src/chain/facts.js';
import { gatherSignals, involvedAddresses, MAX_AML_PAYERS } from '../src/risk/gather.js';
import { createRiskProviders, riskConfigFromEnv } from '../src/risk/providers.js';
import { createListSanctionsProvider, OFAC_TRON_LIST } from '../src/risk/sanctions-list.js';
import { BUNDLED_LIST_CURRENT, currentOfacList } from '../src/testing/fake-ofac.js';
import type { AmlAnswer, RiskProviders, SanctionsAnswer } from '../src/risk/signals.js';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createSafetyService } from '../src/runtime/service.js';
import { startFakeChainalysis, type FakeChainalysis } from '../src/testing/fake-vendors.js';
import { checkBody, instantChain, seedTenant } from '../src/testing/service-harness.js';

/** The bundled OFAC entries as a list a refresh confirmed at the start of this file's run. */
const CURRENT_OFAC_LIST = currentOfacList();
const CURRENT_OFAC = { ofacList: { current: () => CURRENT_OFAC_LIST } };

const OWNER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const SENDER = 'TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre'; // OFAC TRX list
const RECIPIENT = 'TA3941uFAvmVibSkQ6fMJXxmaSNovX86mz'; // OFAC USDT list
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const FAKE_USDT = 'TLZSucJRjnqBKwvQz6n5hd29gbS4P7u7w8'; // checksums, not listed, not official
const ctx = () => ({ signal: new AbortController().signal });

function transfer(overrides: Partial<Transfer> = {}): Transfer {
  return {
    index: 0,
    assetType: 'trc20',
    source: 'log',
    sender: SENDER,
    recipient: RECIPIENT,
    tokenContract: USDT,
    tokenId: null,
    tokenSymbol: 'USDT',
    tokenName: 'Tether USD',
    decimals: 6,
    rawAmount: 1_000_000n,
    ...overrides,
  };
}

function facts(transfers: Transfer[], overrides: Partial<ChainFacts> = {}): ChainFacts {
  return {
    txHash: 'ab'.repeat(32),
    state: 'confirmed',
    transactionType: 'TriggerSmartContract',
    category: 'trc20_transfer',
    owner: OWNER,
    blockNumber: 1,
    blockTime: new Date(0),
    confirmations: 20,
    finalized: true,
    verified: true,
    disagreements: [],
    missing: [],
    transfers,
    transfersTruncated: false,
    primaryTransfer: transfers.length ? 0 : null,
    counterparties: [],
    tokenDataAt: new Date(0),
    observedAt: new Date(0),
    headTime: new Date(0),
    ...overrides,
  };
}

/** Providers that record what they were asked. */
function recording(
  aml: (address: string) => AmlAnswer = () => ({ status: 'answered', level: 'low', exposures: [], asOf: new Date(5) }),
) {
  const calls: string[] = [];
  const providers: RiskProviders = {
    sanctions: {
      screen: async (addresses) => {
        calls.push(`sanctions ${[...addresses].join(',')}`);
        return { status: 'answered', hits: [], asOf: new Date(1) } satisfies SanctionsAnswer;
      },
    },
    aml: {
      supportsAsset: (asset) => asset.kind === 'trx' || (asset.kind === 'trc20' && asset.contract === USDT),
      assessAddress: async (address) => {
        calls.push(`aml ${address}`);
        return aml(address);
      },
    },
    tokens: {
      assess: async (token) => {
        calls.push(`token ${token.symbol}`);
        return { status: 'answered', authenticity: 'official', asOf: new Date(2) };
      },
    },
  };
  return { providers, calls };
}

describe('gatherSignals', () => {
  test('not found: all null and no provider is called', async () => {
    const { providers, calls } = recording();
    const signals = await gatherSignals(facts([], { state: 'not_found', owner: null }), null, providers, ctx());
    assert.deepEqual(signals, { sanctions: null, aml: null, token: null });
    assert.deepEqual(calls, []);
  });

  test('sanctions screen owner, every sender, recipient and token contract once; AML the sender and the owner; token the focus asset', async () => {
    const { providers, calls } = recording();
    const t0 = transfer();
    const t1 = transfer({ index: 1, sender: RECIPIENT, recipient: OWNER, tokenContract: FAKE_USDT });
    const f = facts([t0, t1]);
    assert.deepEqual(involvedAddresses(f), [OWNER, SENDER, RECIPIENT, USDT, FAKE_USDT]);
    const signals = await gatherSignals(f, t0, providers, ctx());
    assert.deepEqual(
      calls.sort(),
      [
        `aml ${OWNER}`,
        `aml ${SENDER}`,
        `sanctions ${[OWNER, SENDER, RECIPIENT, USDT, FAKE_USDT].join(',')}`,
        'token USDT',
      ].sort(),
    );
    assert.deepEqual(signals.aml, { status: 'answered', level: 'low', exposures: [], asOf: new Date(5) });
    assert.equal(signals.token?.status, 'answered');
  });

  test('AML: highest of sender and owner; owner only once when it is the sender; owner alone without a focus', async () => {
    const levels: Record<string, AmlAnswer> = {
      [SENDER]: { status: 'answered', level: 'severe', exposures: [], asOf: new Date(9) },
      [OWNER]: { status: 'answered', level: 'low', exposures: [], asOf: new Date(3) },
    };
    const { providers, calls } = recording((a) => levels[a]!);
    const signals = await gatherSignals(facts([transfer()]), transfer(), providers, ctx());
    assert.deepEqual(signals.aml, { status: 'answered', level: 'severe', exposures: [], asOf: new Date(3) });

    calls.length = 0;
    await gatherSignals(facts([transfer({ sender: OWNER })]), transfer({ sender: OWNER }), providers, ctx());
    assert.deepEqual(
      calls.filter((c) => c.startsWith('aml')),
      [`aml ${OWNER}`],
    );

    calls.length = 0;
    const noFocus = await gatherSignals(facts([]), null, providers, ctx());
    assert.deepEqual(
      calls.filter((c) => !c.startsWith('sanctions')),
      [`aml ${OWNER}`],
    );
    assert.equal(noFocus.token, null, 'no transfer, no token');
  });

  test('AML: every payer of the focus recipient in the transaction, each once, the focus sender first; not the recipient paying itself, nor payers of others', async () => {
    const DIRTY = 'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B';
    const OTHER = 'TBXMiRqUp1XH1zLazWu8cWitMAScv4HsYq';
    const levels: Record<string, AmlAnswer> = {
      [DIRTY]: { status: 'answered', level: 'severe', exposures: [], asOf: new Date(4) },
    };
    const low: AmlAnswer = { status: 'answered', level: 'low', exposures: [], asOf: new Date(5) };
    const { providers, calls } = recording((a) => levels[a] ?? low);
    const focus = transfer({ index: 3 });
    const f = facts([
      transfer({ index: 0, sender: DIRTY, rawAmount: 1n }),
      transfer({ index: 1, sender: RECIPIENT }),
      transfer({ index: 2, sender: OTHER, recipient: OWNER }),
      focus,
      transfer({ index: 4, sender: DIRTY, assetType: 'trx', tokenContract: null }),
    ]);
    const signals = await gatherSignals(f, focus, providers, ctx());
    assert.deepEqual(
      calls.filter((c) => c.startsWith('aml')),
      [`aml ${SENDER}`, `aml ${DIRTY}`, `aml ${OWNER}`],
    );
    assert.deepEqual(signals.aml, { status: 'answered', level: 'severe', exposures: [], asOf: new Date(4) });
  });

  test(`AML: at most ${MAX_AML_PAYERS} payers of the recipient are assessed; beyond the cap the answer is never clean`, async () => {
    const many = Array.from({ length: MAX_AML_PAYERS + 2 }, (_, i) =>
      transfer({ index: i, sender: i === 0 ? SENDER : `T${String(i).padStart(33, 'x')}` }),
    );
    const { providers, calls } = recording();
    const capped = await gatherSignals(facts(many), many[0]!, providers, ctx());
    assert.equal(
      calls.filter((c) => c.startsWith('aml')).length,
      MAX_AML_PAYERS + 1,
      'the payers within the cap and the owner',
    );
    assert.deepEqual(capped.aml, {
      status: 'unavailable',
      reason: `2 of ${MAX_AML_PAYERS + 2} payers of the recipient beyond the AML cap of ${MAX_AML_PAYERS} not assessed`,
    });
    const severe = recording((a) =>
      a === SENDER
        ? { status: 'answered', level: 'severe', exposures: [], asOf: new Date(1) }
        : { status: 'answered', level: 'low', exposures: [], asOf: new Date(1) },
    );
    const high = await gatherSignals(facts(many), many[0]!, severe.providers, ctx());
    assert.deepEqual(high.aml, {
      status: 'answered',
      level: 'severe',
      exposures: [],
      asOf: new Date(1),
      incomplete: true,
    });
  });

  test('an asset the AML vendor does not cover → unsupported_asset without calling it', async () => {
    const { providers, calls } = recording();
    const focus = transfer({ tokenContract: FAKE_USDT });
    const signals = await gatherSignals(facts([focus]), focus, providers, ctx());
    assert.deepEqual(signals.aml, { status: 'unsupported_asset' });
    assert.equal(
      calls.some((c) => c.startsWith('aml')),
      false,
    );
  });

  test('a focus transfer without a readable sender: AML unavailable, the owner alone is not screened as the counterparty', async () => {
    const { providers, calls } = recording();
    const focus = transfer({ sender: null });
    const signals = await gatherSignals(facts([focus]), focus, providers, ctx());
    assert.deepEqual(signals.aml, { status: 'unavailable', reason: 'the transfer does not name its sender' });
    assert.equal(
      calls.some((c) => c.startsWith('aml')),
      false,
    );
  });

  test('the counterparties a value-less call names are screened too: a listed called contract is a hit, HIGH_RISK', async () => {
    const { providers } = recording();
    const screened: string[][] = [];
    const list = createListSanctionsProvider([OFAC_TRON_LIST], BUNDLED_LIST_CURRENT);
    const withList: RiskProviders = {
      ...providers,
      sanctions: { screen: (addresses, c) => (screened.push([...addresses]), list.screen(addresses, c)) },
    };
    const CALLED = 'TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM'; // OFAC TRX list (Grinex)
    const call = facts([], { category: 'smart_contract_call', counterparties: [CALLED, OWNER] });
    assert.deepEqual(involvedAddresses(call), [OWNER, CALLED], 'deduplicated with the owner');
    const signals = await gatherSignals(call, null, withList, ctx());
    assert.deepEqual(screened, [[OWNER, CALLED]]);
    assert.equal(signals.sanctions?.status, 'answered');
    assert.deepEqual(
      (signals.sanctions as Extract<SanctionsAnswer, { status: 'answered' }>).hits.map((h) => h.address),
      [CALLED],
    );
    const expectations = { recipient: null, tokenContract: null, amount: null };
    const result = assess({
      requestId: 'r',
      txHash: call.txHash,
      expectations,
      facts: call,
      signals,
      checkedAt: new Date(0),
    })._unsafeUnwrap();
    assert.equal(result.sanctions_hit, true);
    assert.equal(result.overall_state, 'HIGH_RISK');
  });

  test('the order of screening: owner, the focus transfer, other counterparties, then every other transfer', () => {
    const others = transfer({
      index: 0,
      sender: 'TBKq3SzXigsGhQNzdCYocpt8RzoMh3uxAr',
      recipient: 'TBXMiRqUp1XH1zLazWu8cWitMAScv4HsYq',
    });
    const focus = transfer({ index: 1 });
    const f = facts([others, focus], { counterparties: [FAKE_USDT] });
    assert.deepEqual(involvedAddresses(f, focus), [
      OWNER,
      SENDER,
      RECIPIENT,
      USDT,
      FAKE_USDT,
      'TBKq3SzXigsGhQNzdCYocpt8RzoMh3uxAr',
      'TBXMiRqUp1XH1zLazWu8cWitMAScv4HsYq',
    ]);
  });

  test('a truncated transfer list: no hit is unavailable (not every address known), a hit stands', async () => {
    const { providers } = recording();
    const truncated = facts([transfer({ sender: OWNER, recipient: OWNER })], { transfersTruncated: true });
    const clean = await gatherSignals(truncated, truncated.transfers[0]!, providers, ctx());
    assert.equal(clean.sanctions?.status, 'unavailable');
    assert.match((clean.sanctions as { reason: string }).reason, /truncated/);
    assert.ok(clean.sanctions?.asOf, 'the screen still says when it was made');
    const nothingNamed = await gatherSignals(
      facts([], { owner: null, transfersTruncated: true }),
      null,
      providers,
      ctx(),
    );
    assert.equal(
      nothingNamed.sanctions?.status,
      'unavailable',
      'nothing to screen is not "not applicable" when the list was cut',
    );

    const listed = { ...providers, sanctions: createListSanctionsProvider([OFAC_TRON_LIST], BUNDLED_LIST_CURRENT) };
    const hit = await gatherSignals(facts([transfer()], { transfersTruncated: true }), transfer(), listed, ctx());
    assert.equal(hit.sanctions?.status, 'answered');
    assert.deepEqual(
      (hit.sanctions as Extract<SanctionsAnswer, { status: 'answered' }>).hits.map((h) => h.address).sort(),
      [RECIPIENT, SENDER].sort(),
    );
  });

  test('a provider that rejects is unavailable, never clean', async () => {
    const { providers } = recording();
    const broken: RiskProviders = {
      sanctions: { screen: () => Promise.reject(new Error('boom')) },
      aml: { ...providers.aml, assessAddress: () => Promise.reject(new Error('boom')) },
      tokens: { assess: () => Promise.reject(new Error('boom')) },
    };
    const signals = await gatherSignals(facts([transfer()]), transfer(), broken, ctx());
    assert.equal(signals.sanctions?.status, 'unavailable');
    assert.equal(signals.aml?.status, 'unavailable');
    assert.equal(signals.token?.status, 'unavailable');
  });

  test('a provider answering in a shape of its own (a status of its own, an answered without a valid time or level, an `incomplete` that is no boolean) is unavailable, never clean', async () => {
    const { providers } = recording();
    const odd = (answer: object) => Promise.resolve(answer as never);
    const shapes: RiskProviders[] = [
      {
        sanctions: { screen: () => odd({ status: 'pending' }) },
        aml: { ...providers.aml, assessAddress: () => odd({ status: 'pending' }) },
        tokens: { assess: () => odd({ status: 'pending' }) },
      },
      {
        sanctions: { screen: () => odd({ status: 'answered', hits: [], asOf: new Date(Number.NaN) }) },
        aml: {
          ...providers.aml,
          assessAddress: () => odd({ status: 'answered', level: 'unknown', exposures: [], asOf: new Date(1) }),
        },
        tokens: { assess: () => odd({ status: 'answered', authenticity: 'genuine', asOf: new Date(1) }) },
      },
      {
        // `incomplete` that is no boolean: read as complete it would be a clean lookup.
        sanctions: { screen: () => odd({ status: 'answered', hits: [], asOf: new Date(1), incomplete: 'yes' }) },
        aml: {
          ...providers.aml,
          assessAddress: () =>
            odd({ status: 'answered', level: 'low', exposures: [], asOf: new Date(1), incomplete: 'yes' }),
        },
        tokens: { assess: () => odd({ status: 'unknown' }) },
      },
    ];
    for (const broken of shapes) {
      const signals = await gatherSignals(facts([transfer()]), transfer(), broken, ctx());
      assert.deepEqual(signals, {
        sanctions: { status: 'unavailable', reason: 'provider answered in an unknown shape' },
        aml: { status: 'unavailable', reason: 'provider answered in an unknown shape' },
        token: { status: 'unavailable', reason: 'provider answered in an unknown shape' },
      });
    }
  });
});

describe('createRiskProviders wired to the fake vendors over HTTP', () => {
  let fake: FakeChainalysis;
  const dir = mkdtempSync(join(tmpdir(), 'risk-config-'));
  before(async () => {
    fake = await startFakeChainalysis({
      apiKey: 'k',
      entities: { [SENDER]: { risk: 'High', exposures: [{ category: 'sanctions', value: 1 }] } },
    });
  });
  after(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('from environment variables: list hits, AML from the Entity API, fake token', async () => {
    const listFile = join(dir, 'extra.txt');
    writeFileSync(listFile, `# as-of: 2026-01-01\n${OWNER}\n`);
    const config = riskConfigFromEnv({
      CHAINALYSIS_API_URL: fake.entityUrl,
      CHAINALYSIS_API_KEY: 'k',
      CHAINALYSIS_SANCTIONS_URL: fake.sanctionsUrl,
      CHAINALYSIS_SANCTIONS_API_KEY: 'k',
      SANCTIONS_LIST_FILES: ` ${listFile} ,`,
      RISK_CACHE_TTL_SECONDS: '60',
      RISK_TIMEOUT_MS: '500',
    })._unsafeUnwrap();
    const providers = createRiskProviders(config)._unsafeUnwrap();
    const focus = transfer({ tokenContract: FAKE_USDT, tokenSymbol: 'USDТ' });
    const signals = await gatherSignals(facts([focus]), focus, providers, ctx());
    assert.equal(signals.sanctions?.status, 'answered');
    const hits = (signals.sanctions as Extract<SanctionsAnswer, { status: 'answered' }>).hits;
    assert.deepEqual(hits.map((h) => h.address).sort(), [OWNER, SENDER, RECIPIENT].sort());
    assert.deepEqual(signals.aml, { status: 'unsupported_asset' }, 'a fake USDT is not covered');
    assert.deepEqual(signals.token && { ...signals.token, asOf: null }, {
      status: 'answered',
      authenticity: 'fake',
      asOf: null,
    });

    const real = transfer();
    const second = await gatherSignals(facts([real]), real, providers, ctx());
    assert.equal(second.aml?.status === 'answered' && second.aml.level, 'high');
  });

  test('the vendor calls of one check go out in parallel (sanctions per address and AML per counterparty)', async () => {
    const delay = 200;
    fake.setFault('entity', '*', { kind: 'delay', ms: delay });
    fake.setFault('sanctions', '*', { kind: 'delay', ms: delay });
    try {
      const providers = createRiskProviders({
        chainalysisApiUrl: fake.entityUrl,
        chainalysisApiKey: 'k',
        chainalysisSanctionsUrl: fake.sanctionsUrl,
        chainalysisSanctionsApiKey: 'k',
        cacheTtlMs: 0,
      })._unsafeUnwrap();
      const focus = transfer();
      const first = fake.calls.length;
      const signals = await gatherSignals(facts([focus]), focus, providers, ctx());
      const calls = fake.calls.slice(first);
      assert.deepEqual(
        calls.map((c) => `${c.api} ${c.address}`).sort(),
        [
          `entity ${OWNER}`,
          `entity ${SENDER}`,
          ...[OWNER, SENDER, RECIPIENT, USDT].map((a) => `sanctions ${a}`),
        ].sort(),
      );
      const arrivals = calls.map((c) => c.at.getTime());
      assert.ok(
        Math.max(...arrivals) - Math.min(...arrivals) < delay,
        'every call arrived before the first could be answered',
      );
      assert.equal(signals.aml?.status === 'answered' && signals.aml.level, 'high');
    } finally {
      fake.setFault('entity', '*', null);
      fake.setFault('sanctions', '*', null);
    }
  });

  test('no keys: lists only and AML unavailable ("not configured"); bad settings are load errors', async () => {
    const providers = createRiskProviders({
      ...riskConfigFromEnv({})._unsafeUnwrap(),
      ...CURRENT_OFAC,
    })._unsafeUnwrap();
    const signals = await gatherSignals(facts([transfer()]), transfer(), providers, ctx());
    assert.deepEqual(signals.aml, { status: 'unavailable', reason: 'AML vendor not configured' });
    assert.equal(signals.sanctions?.status, 'answered');
  });

  test('a slow chain and a hanging vendor: the check answers AML_UNAVAILABLE before the request deadline instead of 504', async () => {
    fake.setFault('entity', '*', { kind: 'hang' });
    fake.setFault('sanctions', '*', { kind: 'hang' });
    const risk = createRiskProviders({
      chainalysisApiUrl: fake.entityUrl,
      chainalysisApiKey: 'k',
      chainalysisSanctionsUrl: fake.sanctionsUrl,
      chainalysisSanctionsApiKey: 'k',
      cacheTtlMs: 0,
      timeoutMs: 10_000,
    })._unsafeUnwrap();
    // 2 s deadline, 500 ms settle grace: providers must be done 1.5 s in; the chain takes 0.6 s of it.
    const service = createSafetyService(
      createMemoryStores(),
      { chain: instantChain({ delayMs: 600 }), risk },
      { deadlineMs: 2_000 },
    );
    try {
      const { apiKey } = await seedTenant(service, {});
      const answer = await service.handle({
        method: 'POST',
        path: '/v1/transaction/check',
        query: {},
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: checkBody('ab'.repeat(32)),
      });
      assert.equal(answer.status, 200, answer.body);
      const body = JSON.parse(answer.body) as {
        aml_risk_level: string;
        sanctions_hit: boolean | null;
        overall_state: string;
        reasons: { code: string }[];
      };
      assert.equal(body.aml_risk_level, 'unknown');
      assert.equal(body.sanctions_hit, null);
      assert.notEqual(body.overall_state, 'CLEAR');
      assert.ok(
        body.reasons.some((r) => r.code === 'AML_UNAVAILABLE'),
        JSON.stringify(body.reasons),
      );
    } finally {
      fake.setFault('entity', '*', null);
      fake.setFault('sanctions', '*', null);
      await service.close({ timeoutMs: 100 });
    }
  });

  test('refused settings are structured errors: the option, its variable (null when none) and the message', () => {
    const nope = join(dir, 'nope.txt');
    assert.deepEqual(riskConfigFromEnv({ RISK_TIMEOUT_MS: 'soon' })._unsafeUnwrapErr(), {
      option: 'timeoutMs',
      variable: 'RISK_TIMEOUT_MS',
      message: 'must be a nonnegative integer, got "soon"',
    });
    assert.deepEqual(
      riskConfigFromEnv({ SANCTIONS_LIST_MAX_AGE_DAYS: '-1' })._unsafeUnwrapErr().variable,
      'SANCTIONS_LIST_MAX_AGE_DAYS',
    );
    assert.deepEqual(riskConfigFromEnv({ RISK_CACHE_TTL_SECONDS: '1.5' })._unsafeUnwrapErr().option, 'cacheTtlMs');
    // Set but naming no file: a lost path, never "no list files".
    assert.deepEqual(riskConfigFromEnv({ SANCTIONS_LIST_FILES: ' , ' })._unsafeUnwrapErr(), {
      option: 'sanctionsListFiles',
      variable: 'SANCTIONS_LIST_FILES',
      message: 'is set but names no file',
    });
    const refused = (config: Parameters<typeof createRiskProviders>[0]) => {
      const { option, variable, message } = createRiskProviders(config)._unsafeUnwrapErr();
      return [option, variable, message];
    };
    assert.deepEqual(refused({ timeoutMs: 0 }), [
      'timeoutMs',
      'RISK_TIMEOUT_MS',
      'must be an integer from 1 to 600000, got 0',
    ]);
    assert.deepEqual(refused({ cacheTtlMs: -1 }), [
      'cacheTtlMs',
      'RISK_CACHE_TTL_SECONDS',
      'must be an integer from 0 to 86400000, got -1',
    ]);
    assert.deepEqual(refused({ sanctionsListMaxAgeDays: 0 }), [
      'sanctionsListMaxAgeDays',
      'SANCTIONS_LIST_MAX_AGE_DAYS',
      'must be an integer from 1 to 30, got 0',
    ]);
    assert.deepEqual(refused({ chainalysisSanctionsMaxAddresses: 0 }), [
      'chainalysisSanctionsMaxAddresses',
      'CHAINALYSIS_SANCTIONS_MAX_ADDRESSES',
      'must be a positive integer, got 0',
    ]);
    assert.deepEqual(refused({ chainalysisApiUrl: 'ftp://x' }), [
      'chainalysisApiUrl',
      'CHAINALYSIS_API_URL',
      'must be an http(s) URL, got "ftp://x/"',
    ]);
    assert.deepEqual(refused({ chainalysisSanctionsUrl: 'x' }).slice(0, 2), [
      'chainalysisSanctionsUrl',
      'CHAINALYSIS_SANCTIONS_URL',
    ]);
    const [option, variable, message] = refused({ sanctionsListFiles: [nope] });
    assert.deepEqual([option, variable], ['sanctionsListFiles', 'SANCTIONS_LIST_FILES']);
    assert.match(message!, new RegExp(`^${nope.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: cannot read`));
    assert.deepEqual(
      refused({ extraTokens: [{ symbol: 'X', name: 'X', contract: 'nope', decimals: 6 }] }).slice(0, 2),
      ['extraTokens', null],
    );
    assert.deepEqual(refused({ deadlineMarginMs: -1 }).slice(0, 2), ['deadlineMarginMs', null]);
  });

  test('Secrets: a refused CHAINALYSIS_API_URL or CHAINALYSIS_SANCTIONS_URL is shown without its user-info or query', () => {
    const cases = [
      ['ftp://user:S3CRET@lists.example/v1?token=S3CRET', 'must be an http(s) URL, got "ftp://lists.example/v1"'],
      ['S3CRET not a URL', 'must be an http(s) URL, got "(not a URL)"'],
    ];
    for (const [value, message] of cases) {
      for (const variable of ['CHAINALYSIS_API_URL', 'CHAINALYSIS_SANCTIONS_URL']) {
        const error = riskConfigFromEnv({ [variable]: value }).andThen((c) => createRiskProviders(c));
        assert.deepEqual([error._unsafeUnwrapErr().variable, error._unsafeUnwrapErr().message], [variable, message]);
      }
    }
  });

  test('Settings: RISK_TIMEOUT_MS, RISK_CACHE_TTL_SECONDS and SANCTIONS_LIST_MAX_AGE_DAYS are bounded above: a typo (more digits) is refused, not a timer that fires at once or a protection switched off', () => {
    const fromEnv = (env: Record<string, string>) => riskConfigFromEnv(env).andThen((c) => createRiskProviders(c));
    const refusedAs = (env: Record<string, string>) => {
      const { variable, message } = fromEnv(env)._unsafeUnwrapErr();
      return [variable, message];
    };
    // 2^31 ms: Node's timer overflow (fires after 1 ms); 2^32 ms: AbortSignal.timeout throws.
    for (const value of ['600001', '2147483648', '4294967296', '9999999999'])
      assert.deepEqual(refusedAs({ RISK_TIMEOUT_MS: value }), [
        'RISK_TIMEOUT_MS',
        `must be an integer from 1 to 600000, got ${value}`,
      ]);
    for (const value of ['86401', '9999999999'])
      assert.deepEqual(refusedAs({ RISK_CACHE_TTL_SECONDS: value }), [
        'RISK_CACHE_TTL_SECONDS',
        `must be an integer from 0 to 86400, got "${value}"`,
      ]);
    for (const value of ['31', '365', '9999999999'])
      assert.deepEqual(refusedAs({ SANCTIONS_LIST_MAX_AGE_DAYS: value }), [
        'SANCTIONS_LIST_MAX_AGE_DAYS',
        `must be an integer from 1 to 30, got ${value}`,
      ]);
    const largest = { RISK_TIMEOUT_MS: '600000', RISK_CACHE_TTL_SECONDS: '86400', SANCTIONS_LIST_MAX_AGE_DAYS: '30' };
    assert.ok(fromEnv(largest).isOk());
    assert.throws(
      () => createListSanctionsProvider([OFAC_TRON_LIST], { maxAgeDays: 31 }),
      /maxAgeDays must be an integer/,
    );
  });

  test('SANCTIONS_LIST_MAX_AGE_DAYS: a list older than the limit leaves a clean address unscreened; a hit stands', async () => {
    const config = riskConfigFromEnv({
      SANCTIONS_LIST_MAX_AGE_DAYS: '1',
      CHAINALYSIS_SANCTIONS_MAX_ADDRESSES: '7',
    })._unsafeUnwrap();
    assert.equal(config.sanctionsListMaxAgeDays, 1);
    assert.equal(config.chainalysisSanctionsMaxAddresses, 7);
    const providers = createRiskProviders(config)._unsafeUnwrap();
    const clean = transfer({ sender: OWNER, recipient: OWNER });
    const stale = await gatherSignals(facts([clean]), clean, providers, ctx());
    assert.equal(stale.sanctions?.status, 'unavailable', 'the bundled list (2025-11-27) is more than a day old');
    const listed = await gatherSignals(facts([transfer()]), transfer(), providers, ctx());
    assert.equal(listed.sanctions?.status, 'answered');
  });

  test('CHAINALYSIS_SANCTIONS_MAX_ADDRESSES: addresses beyond the cap are screened by the lists only, never worse than without the API', async () => {
    const withApi = (overrides: Parameters<typeof createRiskProviders>[0] = {}) =>
      createRiskProviders({
        chainalysisSanctionsUrl: fake.sanctionsUrl,
        chainalysisSanctionsApiKey: 'k',
        chainalysisSanctionsMaxAddresses: 2,
        cacheTtlMs: 0,
        ...CURRENT_OFAC,
        ...overrides,
      })._unsafeUnwrap();
    const clean = transfer({ sender: OWNER, recipient: FAKE_USDT });
    const first = fake.calls.length;
    const signals = await gatherSignals(facts([clean]), clean, withApi(), ctx());
    assert.deepEqual(
      fake.calls
        .slice(first)
        .map((c) => c.address)
        .sort(),
      [OWNER, FAKE_USDT].sort(),
      'owner and the focus transfer first',
    );
    const listsOnly = await gatherSignals(
      facts([clean]),
      clean,
      createRiskProviders(CURRENT_OFAC)._unsafeUnwrap(),
      ctx(),
    );
    assert.equal(listsOnly.sanctions?.status, 'answered');
    assert.deepEqual(
      signals.sanctions,
      { ...listsOnly.sanctions },
      'clean, as with the lists alone (the bundled list date)',
    );
    // Lists too old to vouch: the address beyond the cap is screened by nothing current.
    const bundled = { current: () => OFAC_TRON_LIST };
    const stale = await gatherSignals(facts([clean]), clean, withApi({ ofacList: bundled }), ctx());
    assert.equal(stale.sanctions?.status, 'unavailable');
    assert.match(
      (stale.sanctions as { reason: string }).reason,
      /^1 of 3 addresses beyond the sanctions API cap of 2 are screened by the lists only: sanctions list as of .* older than the 2-day limit$/,
    );
    assert.deepEqual(stale.sanctions?.asOf, OFAC_TRON_LIST.asOf, "the stale lists' age shows");
    // An API failure without a hit still makes the answer unavailable, current lists or not.
    fake.setFault('sanctions', OWNER, { kind: 'status', status: 500 });
    try {
      assert.equal((await gatherSignals(facts([clean]), clean, withApi(), ctx())).sanctions?.status, 'unavailable');
    } finally {
      fake.setFault('sanctions', OWNER, null);
    }
  });

  test('SANCTIONS_LIST_MAX_AGE_DAYS: stale lists do not undo a clean sanctions API answer that covered every address', async () => {
    const providers = createRiskProviders({
      chainalysisSanctionsUrl: fake.sanctionsUrl,
      chainalysisSanctionsApiKey: 'k',
      sanctionsListMaxAgeDays: 1,
      cacheTtlMs: 0,
    })._unsafeUnwrap();
    const clean = transfer({ sender: OWNER, recipient: FAKE_USDT });
    const before = Date.now();
    const signals = await gatherSignals(facts([clean]), clean, providers, ctx());
    assert.equal(signals.sanctions?.status, 'answered', JSON.stringify(signals.sanctions));
    const answer = signals.sanctions as Extract<SanctionsAnswer, { status: 'answered' }>;
    assert.deepEqual(answer.hits, []);
    assert.ok(answer.asOf.getTime() >= before, 'as of the API answer, not the stale list');
    const listed = await gatherSignals(facts([transfer()]), transfer(), providers, ctx());
    assert.equal(listed.sanctions?.status, 'answered', 'a list hit stands');
    assert.equal(
      (listed.sanctions as { incomplete?: boolean }).incomplete,
      undefined,
      'complete: the API vouched for every address the stale lists did not list',
    );
    fake.setFault('sanctions', '*', { kind: 'status', status: 503 });
    try {
      const failed = (await gatherSignals(facts([clean]), clean, providers, ctx())).sanctions;
      assert.equal(failed?.status, 'unavailable', 'stale lists and a failed API');
      assert.ok(failed?.asOf && failed.asOf.getTime() < before, "the stale lists' age shows");
      const hitBesideFailure = (await gatherSignals(facts([transfer()]), transfer(), providers, ctx())).sanctions;
      assert.equal(hitBesideFailure?.status, 'answered', 'a stale list hit stands while the API is down');
      assert.equal(
        (hitBesideFailure as { incomplete?: boolean }).incomplete,
        true,
        'but the other addresses were screened by no current source',
      );
    } finally {
      fake.setFault('sanctions', '*', null);
    }
  });
});
