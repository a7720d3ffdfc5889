// The spec's response rules, overall-state precedence, coverage table, reasons and freshness.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { decode } from '@tron-safety/codec';
import type { AssessmentInput } from '../src/assessment/input.js';
import { reasonPriority, TIE_ORDER } from '../src/assessment/verdict.js';
import type { ChainFacts } from '../src/chain/facts.js';
import type { TransactionState } from '../src/contract/enums.js';
import { MAX_KEY_EXPOSURES } from '../src/contract/bounds.js';
import { TransactionCheckResponse } from '../src/contract/models.js';
import { REASONS, type ReasonCode } from '../src/contract/reasons.js';
import type {
  AmlAnswer,
  AmlLevel,
  RiskSignals,
  SanctionsAnswer,
  TokenAuthenticityAnswer,
  Unavailable,
} from '../src/risk/signals.js';
import { ADDR, check, codes, expecting, facts, signals, trc10, trx, usdt } from './assessment-support.js';

const { alice, bob, carol, usdt: USDT } = ADDR;
const unavailable: Unavailable = { status: 'unavailable', reason: 'timeout' };
const hit: SanctionsAnswer = {
  status: 'answered',
  hits: [{ address: alice, source: 'ofac', name: 'X' }],
  asOf: new Date('2026-11-20T00:00:00Z'),
};
const aml = (level: AmlLevel): AmlAnswer => ({
  status: 'answered',
  level,
  exposures: [],
  asOf: new Date('2026-11-21T11:50:00Z'),
});
const token = (authenticity: 'official' | 'fake' | 'unknown'): TokenAuthenticityAnswer => ({
  status: 'answered',
  authenticity,
  asOf: new Date('2026-11-01T00:00:00Z'),
});

function decodes(r: TransactionCheckResponse): void {
  assert.ok(decode(TransactionCheckResponse, JSON.parse(JSON.stringify(r))).isOk(), 'decodes with the codec');
}

describe('response rules', () => {
  test('reasons has 2 to 5 items', () => {
    const inputs: Partial<AssessmentInput>[] = [
      {},
      { facts: facts({ state: 'not_found' }) },
      {
        facts: facts({
          state: 'failed',
          disagreements: [{ code: 'nodes_disagree', detail: '' }],
          transfersTruncated: true,
        }),
        signals: signals({ sanctions: hit, aml: aml('severe'), token: token('fake') }),
        expectations: expecting({ recipient: ADDR.carol, tokenContract: ADDR.fakeUsdt, amount: '1' }),
      },
    ];
    for (const overrides of inputs) {
      const r = check(overrides);
      assert.ok(r.reasons.length >= 2 && r.reasons.length <= 5, codes(r).join());
      decodes(r);
    }
  });

  test('not_found: the listed fields are null or unknown and transfers is empty, whatever the providers said', () => {
    const r = check({
      facts: facts({ state: 'not_found' }),
      signals: signals({ sanctions: hit, aml: aml('severe'), token: token('fake') }),
      expectations: expecting({ recipient: bob, amount: '1' }),
    });
    for (const field of [
      'confirmations',
      'decimals',
      'amount',
      'sender',
      'recipient',
      'token_contract',
      'token_symbol',
      'sanctions_hit',
    ] as const) {
      assert.equal(r[field], null, field);
    }
    assert.equal(r.aml_risk_level, 'unknown');
    assert.equal(r.token_authenticity, 'unknown');
    assert.equal(r.transaction_category, 'unknown');
    assert.equal(r.transaction_type, 'unknown');
    assert.deepEqual(r.transfers, []);
    assert.deepEqual(r.key_exposure, []);
    assert.equal(r.transfers_truncated, false);
    assert.deepEqual([r.recipient_match, r.token_match, r.amount_match], [null, null, null]);
    assert.equal(r.overall_state, 'LIMITED_DATA');
    assert.equal(r.coverage, 'partial');
    assert.deepEqual(codes(r), ['TX_NOT_FOUND', 'SANCTIONS_UNAVAILABLE', 'EXPECTED_DATA_UNAVAILABLE']);
    assert.equal(r.freshness.transaction_at, null);
    assert.equal(r.freshness.risk_data_at, null);
    decodes(r);
  });

  describe('failed: TX_REVERTED is present; transfers may be empty, amount and match fields may be null', () => {
    const cases: { name: string; facts: Partial<ChainFacts>; signals?: Partial<RiskSignals>; state: string }[] = [
      {
        name: 'final, nothing moved',
        facts: { state: 'failed', transfers: [], primaryTransfer: null },
        state: 'REVIEW',
      },
      { name: 'not yet final', facts: { state: 'failed', confirmations: 3, finalized: false }, state: 'REVIEW' },
      { name: 'with a sanctions hit', facts: { state: 'failed' }, signals: { sanctions: hit }, state: 'HIGH_RISK' },
    ];
    for (const c of cases) {
      test(c.name, () => {
        const r = check({ facts: facts(c.facts), signals: signals(c.signals) });
        assert.ok(codes(r).includes('TX_REVERTED'), "codes(r).includes('TX_REVERTED')");
        assert.equal(r.overall_state, c.state);
      });
    }
    test('final failure with otherwise full evidence has complete coverage', () => {
      const r = check({
        facts: facts({ state: 'failed', transfers: [], primaryTransfer: null }),
        signals: signals({ token: null }),
      });
      assert.equal(r.coverage, 'complete');
      assert.equal(r.amount, null);
    });
  });

  describe('pending with too few confirmations: TX_PENDING_CONFIRMATIONS and REVIEW', () => {
    const cases: { name: string; facts: Partial<ChainFacts> }[] = [
      { name: 'pending', facts: { state: 'pending', confirmations: 2, finalized: false } },
      { name: 'confirmed but not finalized', facts: { confirmations: 25, finalized: false } },
      { name: 'confirmed, finalized, 18 confirmations', facts: { confirmations: 18 } },
      { name: 'confirmed, unknown confirmations', facts: { confirmations: null } },
    ];
    for (const c of cases) {
      test(c.name, () => {
        const r = check({ facts: facts(c.facts) });
        assert.ok(codes(r).includes('TX_PENDING_CONFIRMATIONS'), "codes(r).includes('TX_PENDING_CONFIRMATIONS')");
        assert.ok(!codes(r).includes('TX_FINALIZED'), "!codes(r).includes('TX_FINALIZED')");
        assert.equal(r.overall_state, 'REVIEW');
        assert.equal(r.coverage, 'partial');
      });
    }
    test('19 confirmations and finalized is final', () => {
      const r = check({ facts: facts({ confirmations: 19 }) });
      assert.ok(codes(r).includes('TX_FINALIZED'), "codes(r).includes('TX_FINALIZED')");
      assert.equal(r.overall_state, 'CLEAR');
    });
  });

  describe('unavailable AML gives unknown and AML_UNAVAILABLE; unavailable sanctions give null and SANCTIONS_UNAVAILABLE', () => {
    test('AML unavailable', () => {
      const r = check({ signals: signals({ aml: unavailable }) });
      assert.equal(r.aml_risk_level, 'unknown');
      assert.ok(codes(r).includes('AML_UNAVAILABLE'), "codes(r).includes('AML_UNAVAILABLE')");
      assert.equal(r.overall_state, 'LIMITED_DATA');
      assert.equal(r.coverage, 'partial');
    });
    test('AML unsupported asset', () => {
      const r = check({ signals: signals({ aml: { status: 'unsupported_asset' } }) });
      assert.equal(r.aml_risk_level, 'unknown');
      assert.ok(codes(r).includes('AML_UNSUPPORTED_ASSET'), "codes(r).includes('AML_UNSUPPORTED_ASSET')");
      assert.equal(r.overall_state, 'LIMITED_DATA');
    });
    for (const [name, answer] of [
      ['unavailable', unavailable],
      ['missing for a found transaction', null],
    ] as const) {
      test(`sanctions ${name}`, () => {
        const r = check({ signals: signals({ sanctions: answer }) });
        assert.equal(r.sanctions_hit, null);
        assert.ok(codes(r).includes('SANCTIONS_UNAVAILABLE'), "codes(r).includes('SANCTIONS_UNAVAILABLE')");
        assert.equal(r.overall_state, 'LIMITED_DATA');
        assert.equal(r.coverage, 'partial');
      });
    }
    test('both are kept even when five other reasons compete', () => {
      const r = check({
        facts: facts({ state: 'failed', transfersTruncated: true }),
        signals: signals({ sanctions: unavailable, aml: unavailable, token: token('fake') }),
        expectations: expecting({ recipient: ADDR.carol, tokenContract: ADDR.fakeUsdt }),
      });
      assert.ok(codes(r).includes('AML_UNAVAILABLE') && codes(r).includes('SANCTIONS_UNAVAILABLE'), codes(r).join());
      assert.ok(codes(r).includes('TX_REVERTED'), "codes(r).includes('TX_REVERTED')");
    });
  });

  describe('a warning the rules require is never left out for an info reason (TX_FINALIZED)', () => {
    test('Matching 9: a mismatch is kept beside four other warnings on a final transaction', () => {
      const r = check({
        signals: signals({ sanctions: unavailable, aml: unavailable }),
        facts: facts({ transfers: [usdt(0, alice, bob, 41_677_389n)] }),
        expectations: expecting({ recipient: carol, tokenContract: ADDR.fakeUsdt, amount: '1' }),
      });
      assert.equal(r.amount_match, false);
      assert.deepEqual(codes(r), [
        'SANCTIONS_UNAVAILABLE',
        'AML_UNAVAILABLE',
        'EXPECTED_RECIPIENT_MISMATCH',
        'EXPECTED_TOKEN_MISMATCH',
        'EXPECTED_AMOUNT_MISMATCH',
      ]);
    });
  });

  describe('codes the rules require take the places of the lowest-priority codes, the order kept', () => {
    // Contradictory facts (the explanation), a fake token, no screening, no AML, an expected recipient.
    const expected: Record<Exclude<TransactionState, 'not_found'>, ReasonCode[]> = {
      confirmed: [
        'TX_FACTS_DISAGREE',
        'TOKEN_FAKE',
        'SANCTIONS_UNAVAILABLE',
        'AML_UNAVAILABLE',
        'EXPECTED_DATA_UNAVAILABLE',
      ],
      failed: [
        'TX_FACTS_DISAGREE',
        'TX_REVERTED',
        'SANCTIONS_UNAVAILABLE',
        'AML_UNAVAILABLE',
        'EXPECTED_DATA_UNAVAILABLE',
      ],
      pending: [
        'TX_FACTS_DISAGREE',
        'SANCTIONS_UNAVAILABLE',
        'AML_UNAVAILABLE',
        'EXPECTED_DATA_UNAVAILABLE',
        'TX_PENDING_CONFIRMATIONS',
      ],
      unknown: [
        'TX_FACTS_DISAGREE',
        'SANCTIONS_UNAVAILABLE',
        'AML_UNAVAILABLE',
        'EXPECTED_DATA_UNAVAILABLE',
        'TX_FACTS_PARTIAL',
      ],
    };
    for (const [state, reasons] of Object.entries(expected) as [keyof typeof expected, ReasonCode[]][]) {
      test(`Matching 5: EXPECTED_DATA_UNAVAILABLE is kept beside contradictory facts, a fake token, no screening and no AML (state ${state})`, () => {
        const r = check({
          facts: facts({ state, disagreements: [{ code: 'nodes_disagree', detail: 'x' }] }),
          signals: signals({ sanctions: unavailable, aml: unavailable, token: token('fake') }),
          expectations: expecting({ recipient: carol }),
        });
        assert.equal(r.recipient_match, null);
        assert.deepEqual(codes(r), reasons);
      });
    }
    test('Matching 9: a mismatch gives way only to required codes of higher priority', () => {
      const r = check({
        facts: facts({ state: 'failed', transfers: [usdt(0, alice, bob, 1n, { decimals: null })] }),
        signals: signals({ sanctions: unavailable, aml: unavailable, token: token('fake') }),
        expectations: expecting({ recipient: carol, tokenContract: USDT, amount: '1' }),
      });
      assert.deepEqual([r.recipient_match, r.amount_match], [false, null]);
      assert.deepEqual(codes(r), [
        'TOKEN_FAKE',
        'TX_REVERTED',
        'SANCTIONS_UNAVAILABLE',
        'AML_UNAVAILABLE',
        'EXPECTED_DATA_UNAVAILABLE',
      ]);
    });
    test('Matching 3: AMBIGUOUS_TRANSFER is kept beside contradictory facts, a fake token, no screening and no AML', () => {
      const r = check({
        facts: facts({
          state: 'failed',
          disagreements: [{ code: 'nodes_disagree', detail: 'x' }],
          transfers: [usdt(0, alice, bob, 1n), usdt(1, alice, bob, 1n)],
        }),
        signals: signals({ sanctions: unavailable, aml: unavailable, token: token('fake') }),
        expectations: expecting({ recipient: bob }),
      });
      assert.deepEqual(codes(r), [
        'TX_FACTS_DISAGREE',
        'TX_REVERTED',
        'SANCTIONS_UNAVAILABLE',
        'AML_UNAVAILABLE',
        'AMBIGUOUS_TRANSFER',
      ]);
    });
  });

  describe('a sanctions match gives sanctions_hit true, SANCTIONS_HIT (critical) and HIGH_RISK', () => {
    const cases: { name: string; facts?: Partial<ChainFacts>; signals?: Partial<RiskSignals> }[] = [
      { name: 'otherwise clean' },
      { name: 'with contradictory facts', facts: { disagreements: [{ code: 'nodes_disagree', detail: 'x' }] } },
      { name: 'with everything else unavailable', signals: { aml: unavailable, token: unavailable } },
      { name: 'pending', facts: { state: 'pending', finalized: false, confirmations: 1 } },
    ];
    for (const c of cases) {
      test(c.name, () => {
        const r = check({ facts: facts(c.facts), signals: signals({ sanctions: hit, ...c.signals }) });
        assert.equal(r.sanctions_hit, true);
        assert.deepEqual(r.reasons[0], { code: 'SANCTIONS_HIT', category: 'sanctions', severity: 'critical' });
        assert.equal(r.overall_state, 'HIGH_RISK');
      });
    }
  });

  describe('transfers_truncated or AMBIGUOUS_TRANSFER require attention', () => {
    test('truncated', () => {
      const r = check({ facts: facts({ transfersTruncated: true }) });
      assert.equal(r.transfers_truncated, true);
      assert.ok(codes(r).includes('TRANSFERS_TRUNCATED'), "codes(r).includes('TRANSFERS_TRUNCATED')");
      assert.equal(r.overall_state, 'REVIEW');
      assert.equal(r.coverage, 'partial');
    });
    test('ambiguous', () => {
      const transfers = [usdt(0, alice, bob, 1n), usdt(1, alice, bob, 1n)];
      const r = check({ facts: facts({ transfers }), expectations: expecting({ recipient: bob }) });
      assert.ok(codes(r).includes('AMBIGUOUS_TRANSFER'), "codes(r).includes('AMBIGUOUS_TRANSFER')");
      assert.equal(r.overall_state, 'REVIEW');
    });
  });
});

describe('overall state precedence', () => {
  const disagree = { disagreements: [{ code: 'nodes_disagree' as const, detail: 'x' }] };
  const cases: {
    name: string;
    facts?: Partial<ChainFacts>;
    signals?: Partial<RiskSignals>;
    state: string;
    explains: string;
  }[] = [
    { name: 'clean and final', state: 'CLEAR', explains: 'TX_FINALIZED' },
    {
      name: 'sanctions hit beats contradiction',
      facts: disagree,
      signals: { sanctions: hit },
      state: 'HIGH_RISK',
      explains: 'SANCTIONS_HIT',
    },
    {
      name: 'contradiction beats severe AML',
      facts: disagree,
      signals: { aml: aml('severe') },
      state: 'LIMITED_DATA',
      explains: 'TX_FACTS_DISAGREE',
    },
    {
      name: 'contradiction beats a fake token',
      facts: disagree,
      signals: { token: token('fake') },
      state: 'LIMITED_DATA',
      explains: 'TX_FACTS_DISAGREE',
    },
    {
      name: 'high AML with partial coverage',
      signals: { aml: aml('high'), sanctions: unavailable },
      state: 'HIGH_RISK',
      explains: 'AML_HIGH',
    },
    { name: 'severe AML', signals: { aml: aml('severe') }, state: 'HIGH_RISK', explains: 'AML_HIGH' },
    {
      name: 'fake token with unavailable AML',
      signals: { token: token('fake'), aml: unavailable },
      state: 'HIGH_RISK',
      explains: 'TOKEN_FAKE',
    },
    { name: 'unknown token', signals: { token: token('unknown') }, state: 'LIMITED_DATA', explains: 'TOKEN_UNKNOWN' },
    {
      name: 'token answer missing for a TRC20 transfer',
      signals: { token: null },
      state: 'LIMITED_DATA',
      explains: 'TOKEN_AUTH_UNAVAILABLE',
    },
    { name: 'unverified facts', facts: { verified: false }, state: 'LIMITED_DATA', explains: 'TX_FACTS_PARTIAL' },
    {
      name: 'missing facts',
      facts: { missing: [{ code: 'node_call_failed', detail: 'solidity node' }] },
      state: 'LIMITED_DATA',
      explains: 'TX_FACTS_PARTIAL',
    },
    { name: 'unknown state', facts: { state: 'unknown' }, state: 'LIMITED_DATA', explains: 'TX_FACTS_PARTIAL' },
    {
      name: 'missing evidence beats pending',
      facts: { state: 'pending', finalized: false },
      signals: { aml: unavailable },
      state: 'LIMITED_DATA',
      explains: 'AML_UNAVAILABLE',
    },
    { name: 'moderate AML', signals: { aml: aml('moderate') }, state: 'REVIEW', explains: 'AML_ELEVATED' },
    {
      name: 'AML answer missing for a found transaction',
      signals: { aml: null },
      state: 'LIMITED_DATA',
      explains: 'AML_UNAVAILABLE',
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const r = check({ facts: facts(c.facts), signals: signals(c.signals) });
      assert.equal(r.overall_state, c.state);
      assert.ok(codes(r).includes(c.explains as never), codes(r).join());
    });
  }
});

describe('coverage table', () => {
  test('complete: verified, final, screened, AML answered, token known, comparisons possible, not truncated', () => {
    const r = check({ expectations: expecting({ recipient: bob, tokenContract: USDT, amount: '41.677389' }) });
    assert.equal(r.coverage, 'complete');
  });
  test('a high-risk finding can have complete coverage (and is billed)', () => {
    assert.equal(check({ signals: signals({ sanctions: hit }) }).coverage, 'complete');
    assert.equal(check({ signals: signals({ token: token('fake') }) }).coverage, 'complete');
  });
  test('a TRX payment with no token answer: not applicable, unknown, coverage unaffected', () => {
    const r = check({
      facts: facts({ transfers: [trx(0, alice, bob, 5_000_000n)] }),
      signals: signals({ token: null }),
    });
    assert.equal(r.token_authenticity, 'unknown');
    assert.equal(r.coverage, 'complete');
    assert.equal(r.overall_state, 'CLEAR');
    assert.ok(
      !codes(r).some((code) => REASONS[code].category === 'token'),
      "!codes(r).some((code) => REASONS[code].category === 'token')",
    );
  });
  const partial: { name: string; facts?: Partial<ChainFacts>; signals?: Partial<RiskSignals> }[] = [
    { name: 'unverified', facts: { verified: false } },
    { name: 'contradictory', facts: { disagreements: [{ code: 'other', detail: '' }] } },
    { name: 'something missing', facts: { missing: [{ code: 'node_call_failed', detail: 'tx info' }] } },
    { name: 'not final', facts: { finalized: false } },
    { name: 'truncated', facts: { transfersTruncated: true } },
    { name: 'sanctions unavailable', signals: { sanctions: unavailable } },
    { name: 'AML unavailable', signals: { aml: unavailable } },
    { name: 'AML unsupported asset', signals: { aml: { status: 'unsupported_asset' } } },
    { name: 'token unknown', signals: { token: token('unknown') } },
    { name: 'token unavailable', signals: { token: unavailable } },
  ];
  // The provider should list these as missing; the assessment does not rely on it.
  const unreadable: { name: string; facts: Partial<ChainFacts> }[] = [
    {
      name: 'the subject transfer has no readable recipient',
      facts: { transfers: [usdt(0, alice, bob, 1n, { recipient: null })] },
    },
    {
      name: 'another transfer has no readable sender',
      facts: { transfers: [usdt(0, alice, bob, 1n), usdt(1, carol, bob, 1n, { sender: null })] },
    },
    {
      name: 'the subject transfer has unknown decimals',
      facts: { transfers: [usdt(0, alice, bob, 1n, { decimals: null })] },
    },
    { name: 'the signer is unknown', facts: { owner: null } },
    {
      name: 'a TRC20 transfer without its contract',
      facts: { transfers: [usdt(0, alice, bob, 1n, { tokenContract: null })] },
    },
    {
      name: 'a TRC10 transfer without its token id',
      facts: { transfers: [trc10(0, alice, bob, 1n, 6), { ...trc10(1, alice, bob, 1n, 6), tokenId: null }] },
    },
  ];
  for (const c of [...partial, ...unreadable]) {
    test(`partial: ${c.name}`, () => {
      const r = check({ facts: facts(c.facts), signals: signals('signals' in c ? c.signals : {}) });
      assert.equal(r.coverage, 'partial');
      assert.notEqual(r.overall_state, 'CLEAR');
    });
  }
  test('unreadable transfers with nothing listed missing are TX_FACTS_PARTIAL, not verified', () => {
    for (const c of unreadable) {
      const r = check({ facts: facts(c.facts) });
      assert.ok(
        codes(r).includes('TX_FACTS_PARTIAL') && !codes(r).includes('TX_FACTS_VERIFIED'),
        `${c.name}: ${codes(r).join()}`,
      );
      assert.equal(r.overall_state, 'LIMITED_DATA', c.name);
    }
  });
});

describe('reasons', () => {
  test('the documented order covers every code of the reason table exactly once', () => {
    assert.deepEqual([...TIE_ORDER].sort(), Object.keys(REASONS).sort());
  });
  test('docs/assessment.md shows the priority table the code uses', () => {
    const docs = readFileSync(new URL('../../../docs/assessment.md', import.meta.url), 'utf8');
    const rows = [...docs.matchAll(/^\| (\d+) \| ([A-Z_]+) \| (\w+) \|$/gm)].map(([, n, code, severity]) => [
      Number(n),
      code,
      severity,
    ]);
    const ordered = (Object.keys(REASONS) as ReasonCode[]).sort(reasonPriority);
    assert.deepEqual(
      rows,
      ordered.map((code, i) => [i + 1, code, REASONS[code].severity]),
    );
  });
  test('a clean check: the five info codes in the documented order', () => {
    assert.deepEqual(codes(check()), [
      'TX_FINALIZED',
      'TX_FACTS_VERIFIED',
      'SANCTIONS_CLEAR',
      'AML_LOW',
      'TOKEN_OFFICIAL',
    ]);
  });
  test('ordered by severity, the state explanation and the transaction state always kept', () => {
    const r = check({
      facts: facts({ state: 'pending', finalized: false, confirmations: 3, transfersTruncated: true }),
      signals: signals({ aml: aml('moderate'), token: token('unknown') }),
      expectations: expecting({ recipient: ADDR.carol, tokenContract: ADDR.fakeUsdt, amount: '2' }),
    });
    assert.equal(r.overall_state, 'LIMITED_DATA');
    assert.equal(r.reasons.length, 5);
    assert.ok(codes(r).includes('TOKEN_UNKNOWN'), 'explains LIMITED_DATA');
    assert.ok(codes(r).includes('TX_PENDING_CONFIRMATIONS'), 'the transaction state');
    const severities = r.reasons.map((x) => ['critical', 'high', 'warning', 'info'].indexOf(x.severity));
    assert.deepEqual(
      severities,
      [...severities].sort((a, b) => a - b),
    );
  });
  test('category and severity come from the reason table', () => {
    const r = check({ signals: signals({ aml: aml('high'), token: token('fake') }) });
    for (const item of r.reasons) assert.deepEqual(item, { code: item.code, ...REASONS[item.code] });
  });
  test('TX_FACTS_VERIFIED only with verified facts, no disagreement and nothing missing', () => {
    assert.ok(codes(check()).includes('TX_FACTS_VERIFIED'), "codes(check()).includes('TX_FACTS_VERIFIED')");
    for (const f of [
      { verified: false },
      { missing: [{ code: 'node_call_failed' as const, detail: 'x' }] },
      { disagreements: [{ code: 'other' as const, detail: '' }] },
    ]) {
      assert.ok(
        !codes(check({ facts: facts(f) })).includes('TX_FACTS_VERIFIED'),
        "!codes(check({ facts: facts(f) })).includes('TX_FACTS_VERIFIED')",
      );
    }
  });
});

describe('response fields', () => {
  test('top-level fields describe the selected transfer, key_exposure comes from the AML answer', () => {
    const transfers = [trx(0, alice, ADDR.carol, 1_000_000n), usdt(1, alice, bob, 2_500_000n)];
    const r = check({
      facts: facts({ transfers, primaryTransfer: 0 }),
      signals: signals({
        aml: {
          status: 'answered',
          level: 'low',
          exposures: [{ category: 'exchange', exposureType: 'indirect', hops: 2, percent: '12.5' }],
          asOf: new Date('2026-11-21T11:00:00Z'),
        },
      }),
      expectations: expecting({ recipient: bob }),
    });
    assert.deepEqual(
      [r.sender, r.recipient, r.token_contract, r.token_symbol, r.decimals, r.amount],
      [alice, bob, USDT, 'USDT', 6, '2.5'],
    );
    assert.deepEqual(r.key_exposure, [{ category: 'exchange', exposure_type: 'indirect', hops: 2, percent: '12.5' }]);
    assert.deepEqual(
      r.transfers.map((t) => t.amount),
      ['1', '2.5'],
    );
    assert.equal(r.request_id, 'req-1');
    decodes(r);
  });
  test('key_exposure is bounded: the MAX_KEY_EXPOSURES heaviest of any AML answer, a sanctions category first, in the answer order', () => {
    const exposures = Array.from({ length: 30 }, (_, i) => ({
      category: `c${i}`,
      exposureType: 'direct' as const,
      hops: 1,
      percent: String(i % 2 === 0 ? i : 1),
    }));
    const sanctions = { category: 'sanctions', exposureType: 'indirect' as const, hops: 2, percent: null };
    const answer = { ...aml('low'), exposures: [...exposures, sanctions] };
    const r = check({ signals: signals({ aml: answer }) });
    assert.deepEqual(
      r.key_exposure.map((e) => e.category),
      ['c12', 'c14', 'c16', 'c18', 'c20', 'c22', 'c24', 'c26', 'c28', 'sanctions'],
    );
    assert.equal(r.key_exposure.length, MAX_KEY_EXPOSURES);
  });
  test('unknown decimals: amount null in the transfer and at the top', () => {
    const r = check({ facts: facts({ transfers: [usdt(0, alice, bob, 5n, { decimals: null })] }) });
    assert.equal(r.transfers[0]!.amount, null);
    assert.equal(r.amount, null);
    assert.equal(r.decimals, null);
  });
  test('Sender: no selected transfer: sender is the signer, the other top-level transfer fields are null', () => {
    const r = check({
      facts: facts({
        owner: ADDR.carol,
        transfers: [usdt(0, alice, bob, 1n), usdt(1, bob, alice, 1n)],
        primaryTransfer: null,
      }),
      signals: signals({ token: null }),
    });
    assert.deepEqual(
      [r.sender, r.recipient, r.token_contract, r.token_symbol, r.decimals, r.amount],
      [ADDR.carol, null, null, null, null, null],
    );
    assert.equal(r.token_authenticity, 'unknown');
    // Tokens move and nobody established their authenticity: not a clean result.
    assert.ok(codes(r).includes('TOKEN_AUTH_UNAVAILABLE'), codes(r).join());
    assert.equal(r.overall_state, 'LIMITED_DATA');
  });
  test('Sender: a selected transfer gives its own sender, not the signer (a TRC20 transferFrom pays from another account)', () => {
    const r = check({ facts: facts({ owner: ADDR.carol, transfers: [usdt(0, alice, bob, 1n)], primaryTransfer: 0 }) });
    assert.equal(r.sender, alice);
  });
  test('Sender: a failed call or a vote (nothing moved) answers its signer; matching is unchanged', () => {
    for (const state of ['failed', 'confirmed'] as const) {
      const r = check({
        facts: facts({ state, owner: ADDR.carol, transfers: [], primaryTransfer: null }),
        signals: signals({ token: null }),
        expectations: expecting({ recipient: bob }),
      });
      assert.deepEqual([r.sender, r.recipient, r.amount, r.recipient_match], [ADDR.carol, null, null, false], state);
    }
  });
  test('no selected transfer and only TRX moving: token authenticity not applicable', () => {
    const r = check({
      facts: facts({ transfers: [trx(0, alice, bob, 1n), trx(1, bob, alice, 1n)], primaryTransfer: null }),
      signals: signals({ token: null }),
    });
    assert.equal(r.overall_state, 'CLEAR');
  });
});

describe('freshness', () => {
  test('times of the sources, and the age of the oldest at checked_at', () => {
    const r = check();
    assert.deepEqual(r.freshness, {
      checked_at: '2026-11-21T12:00:00.000Z',
      transaction_at: '2026-11-21T11:00:00.000Z',
      risk_data_at: '2026-11-20T00:00:00.000Z', // sanctions list older than the AML answer
      token_data_at: '2026-11-01T00:00:00.000Z', // registry older than the chain metadata read
      max_source_age_seconds: 20 * 24 * 3600 + 12 * 3600,
    });
  });
  test('unavailable answers give no time; the chain data still counts', () => {
    const r = check({
      signals: signals({ sanctions: unavailable, aml: unavailable, token: unavailable }),
      facts: facts({ tokenDataAt: null }),
    });
    assert.equal(r.freshness.risk_data_at, null);
    assert.equal(r.freshness.token_data_at, null);
    assert.equal(r.freshness.max_source_age_seconds, 2, "the nodes' head (11:59:58), older than the observation");
  });
  test("Freshness: the chain data is as old as the nodes' head when it is older than the observation (a stalled node)", () => {
    const quiet = signals({ sanctions: unavailable, aml: unavailable, token: unavailable });
    const stalled = check({
      signals: quiet,
      facts: facts({ tokenDataAt: null, headTime: new Date('2026-08-01T00:00:00Z') }),
    });
    assert.equal(
      stalled.freshness.max_source_age_seconds,
      (Date.parse('2026-11-21T12:00:00Z') - Date.parse('2026-08-01T00:00:00Z')) / 1000,
    );
    const ahead = check({
      signals: quiet,
      facts: facts({ tokenDataAt: null, headTime: new Date('2026-11-21T12:00:30Z') }),
    });
    assert.equal(ahead.freshness.max_source_age_seconds, 1, 'a head after the observation: the observation dates it');
    const unknown = check({ signals: quiet, facts: facts({ tokenDataAt: null, headTime: null }) });
    assert.equal(unknown.freshness.max_source_age_seconds, 1, 'no head answered: the observation');
  });
  test('a source time after checked_at gives age 0, never negative', () => {
    const r = check({
      facts: facts({ observedAt: new Date('2026-11-21T12:00:05Z'), headTime: null, tokenDataAt: null }),
      signals: signals({ sanctions: unavailable, aml: unavailable, token: null }),
    });
    assert.equal(r.freshness.max_source_age_seconds, 0);
  });
});
