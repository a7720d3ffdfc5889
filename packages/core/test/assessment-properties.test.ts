// Properties of the assessment over generated facts, signals and expectations.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { decode } from '@tron-safety/codec';
import { assess } from '../src/assessment/assess.js';
import type { AssessmentInput, Expectations } from '../src/assessment/input.js';
import { selectTransfer } from '../src/assessment/matching.js';
import {
  REQUIRED_CONFIRMATIONS,
  type ChainFacts,
  type Disagreement,
  type Gap,
  type Transfer,
} from '../src/chain/facts.js';
import type { TransactionCheckResponse } from '../src/contract/models.js';
import { TransactionCheckResponse as ResponseCodec } from '../src/contract/models.js';
import { REASONS } from '../src/contract/reasons.js';
import type { Exposure, RiskSignals, SanctionsAnswer } from '../src/risk/signals.js';
import { reasonPriority } from '../src/assessment/verdict.js';
import type { ReasonCode } from '../src/contract/reasons.js';
import { parseAmount, TRX_DECIMALS } from '../src/tron/amount.js';
import { ADDR, TX_HASH } from './assessment-support.js';

/** A fixed seed per property (so they see different inputs): CI runs are reproducible. */
const runs = (property: number) => ({ seed: 20261122 + property, numRuns: 300 });
const people = [ADDR.alice, ADDR.bob, ADDR.carol];
const time = fc.date({
  min: new Date('2026-01-01T00:00:00Z'),
  max: new Date('2026-12-31T00:00:00Z'),
  noInvalidDate: true,
});
const address = fc.constantFrom(...people);
const rawAmount = fc.constantFrom(0n, 1n, 1_000_000n, 1_500_000n, 10n ** 18n, 15n);

/** Mostly the clean value, sometimes another: a fair share of generated checks is close to CLEAR. */
const mostly = <T>(usual: fc.Arbitrary<T>, other: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: usual, weight: 15 }, { arbitrary: other, weight: 1 });

const transferBody = fc.oneof(
  fc.record({
    assetType: fc.constant('trx' as const),
    tokenContract: fc.constant(null),
    tokenId: fc.constant(null),
    decimals: fc.constant(6),
  }),
  fc.record({
    assetType: fc.constant('trc10' as const),
    tokenContract: fc.constant(null),
    tokenId: fc.constant('1002000'),
    decimals: mostly(fc.constant(6), fc.constantFrom(0, null)),
  }),
  fc.record({
    assetType: fc.constant('trc20' as const),
    tokenContract: mostly(fc.constant<string | null>(ADDR.usdt), fc.constantFrom(ADDR.fakeUsdt, null)),
    tokenId: fc.constant(null),
    decimals: mostly(fc.constant<number | null>(6), fc.constantFrom(18, null)),
  }),
);

const transfer = fc.record({
  body: transferBody,
  sender: mostly(address, fc.constant(null)),
  recipient: mostly(address, fc.constant(null)),
  rawAmount,
});

const transfers = fc.array(transfer, { maxLength: 4 }).map((items) =>
  items.map(({ body, sender, recipient, rawAmount }, index): Transfer => ({
    index,
    source: body.assetType === 'trc20' ? 'log' : 'contract',
    sender,
    recipient,
    tokenSymbol: body.assetType === 'trx' ? 'TRX' : 'TOK',
    tokenName: null,
    rawAmount,
    ...body,
  })),
);

const facts: fc.Arbitrary<ChainFacts> = fc
  .record({
    state: mostly(
      fc.constant('confirmed' as const),
      fc.constantFrom('pending', 'failed', 'not_found', 'unknown' as const),
    ),
    confirmations: mostly(fc.integer({ min: 19, max: 40 }), fc.option(fc.integer({ min: 0, max: 18 }))),
    finalized: mostly(fc.constant(true), fc.constant(false)),
    verified: mostly(fc.constant(true), fc.constant(false)),
    disagreements: mostly(
      fc.constant<Disagreement[]>([]),
      fc.constant<Disagreement[]>([{ code: 'nodes_disagree', detail: 'x' }]),
    ),
    missing: mostly(fc.constant<Gap[]>([]), fc.constant<Gap[]>([{ code: 'node_call_failed', detail: 'tx info' }])),
    transfers,
    transfersTruncated: mostly(fc.constant(false), fc.constant(true)),
    primary: mostly(fc.constant(0), fc.option(fc.nat(4))),
    blockTime: fc.option(time),
    tokenDataAt: fc.option(time),
    observedAt: time,
    headTime: fc.option(time),
    owner: mostly(fc.constant<string | null>(ADDR.alice), fc.constant(null)),
  })
  .map(({ primary, transfers, ...rest }): ChainFacts => ({
    txHash: TX_HASH,
    transactionType: 'TriggerSmartContract',
    category: 'trc20_transfer' as const,
    blockNumber: 1,
    transfers,
    primaryTransfer: primary !== null && primary < transfers.length ? primary : null,
    counterparties: [],
    ...rest,
  }));

type SanctionsHit = Extract<SanctionsAnswer, { status: 'answered' }>['hits'][number];
const unavailable = fc.constant({ status: 'unavailable' as const, reason: 'down' });
const signals: fc.Arbitrary<RiskSignals> = fc.record({
  sanctions: mostly<SanctionsAnswer | null>(
    fc.record({ status: fc.constant('answered' as const), hits: fc.constant<SanctionsHit[]>([]), asOf: time }),
    fc.oneof(
      fc.constant(null),
      unavailable,
      fc.record({
        status: fc.constant('answered' as const),
        hits: fc.constant<SanctionsHit[]>([{ address: ADDR.alice, source: 'ofac', name: null }]),
        asOf: time,
      }),
    ),
  ),
  aml: fc.oneof(
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: unavailable, weight: 1 },
    { arbitrary: fc.constant({ status: 'unsupported_asset' as const }), weight: 1 },
    {
      arbitrary: fc.record({
        status: fc.constant('answered' as const),
        level: mostly(fc.constant('low' as const), fc.constantFrom('moderate', 'high', 'severe' as const)),
        exposures: fc
          .boolean()
          .map((b): Exposure[] =>
            b ? [{ category: 'exchange', exposureType: 'direct', hops: 1, percent: '2.5' }] : [],
          ),
        asOf: time,
      }),
      weight: 8,
    },
  ),
  token: fc.oneof(
    { arbitrary: fc.constant(null), weight: 2 },
    { arbitrary: unavailable, weight: 1 },
    {
      arbitrary: fc.record({
        status: fc.constant('answered' as const),
        authenticity: mostly(fc.constant('official' as const), fc.constantFrom('fake', 'unknown' as const)),
        asOf: time,
      }),
      weight: 8,
    },
  ),
});

const optional = <T>(value: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(null), weight: 2 }, { arbitrary: value, weight: 1 });
const expectations: fc.Arbitrary<Expectations> = fc.record({
  recipient: optional(address),
  tokenContract: optional(mostly(fc.constant(ADDR.usdt), fc.constant(ADDR.fakeUsdt))),
  amount: optional(fc.constantFrom('0', '1', '1.5', '1.50', '0.000001', '0.0000001', '1000000000000', '15')),
});

const inputs: fc.Arbitrary<AssessmentInput> = fc.record({
  requestId: fc.constantFrom('req-1', 'req-2'),
  txHash: fc.constant(TX_HASH),
  expectations,
  facts,
  signals,
  checkedAt: time,
});

/**
 * Many problems at once, each condition as likely as any other (`inputs` favours clean values): checks
 * where the five places cannot hold every applicable code.
 */
const down = { status: 'unavailable' as const, reason: 'down' };
const asOf = new Date('2026-11-01T00:00:00Z');
const troubled: fc.Arbitrary<AssessmentInput> = fc
  .record({
    input: inputs,
    state: fc.constantFrom('confirmed', 'pending', 'failed', 'unknown' as const),
    finalized: fc.boolean(),
    disagreements: fc.constantFrom<Disagreement[]>([], [{ code: 'nodes_disagree', detail: 'x' }]),
    transfersTruncated: fc.boolean(),
    sanctions: fc.constantFrom<SanctionsAnswer | null>(null, down, {
      status: 'answered',
      hits: [{ address: ADDR.alice, source: 'ofac', name: null }],
      asOf,
    }),
    aml: fc.constantFrom<RiskSignals['aml']>(null, down, { status: 'answered', level: 'severe', exposures: [], asOf }),
    token: fc.constantFrom<RiskSignals['token']>(null, down, { status: 'answered', authenticity: 'fake', asOf }),
    recipient: address,
  })
  .map(({ input, state, finalized, disagreements, transfersTruncated, sanctions, aml, token, recipient }) => ({
    ...input,
    facts: { ...input.facts, state, finalized, disagreements, transfersTruncated },
    signals: { sanctions, aml, token },
    expectations: { ...input.expectations, recipient },
  }));

/** Generated checks, half of them with many problems at once. */
const checks = fc.oneof(inputs, troubled);

/** Checks that ran and found the transaction (the not_found rule overrides everything else). */
function response(input: AssessmentInput): TransactionCheckResponse | null {
  const result = assess(input);
  if (result.isErr()) {
    assert.equal(result.error.code, 'invalid_expected_amount');
    const { amount, tokenContract } = input.expectations;
    assert.notEqual(amount, null, '422 only for a supplied amount');
    assert.ok(
      tokenContract === null
        ? parseAmount(amount!, TRX_DECIMALS).isErr()
        : input.facts.state !== 'not_found' && input.facts.transfers.some((t) => t.decimals !== null),
      "without a contract beyond TRX's decimals, else only once the token's decimals are known",
    );
    return null;
  }
  return result.value;
}

/** The codes that can explain each overall state (docs/assessment.md, "Overall state precedence"). */
const EXPLAINING: Record<TransactionCheckResponse['overall_state'], ReasonCode[]> = {
  HIGH_RISK: ['SANCTIONS_HIT', 'AML_HIGH', 'TOKEN_FAKE'],
  LIMITED_DATA: [
    'TX_FACTS_DISAGREE',
    'TX_NOT_FOUND',
    'TX_FACTS_PARTIAL',
    'SANCTIONS_UNAVAILABLE',
    'AML_UNAVAILABLE',
    'AML_UNSUPPORTED_ASSET',
    'TOKEN_AUTH_UNAVAILABLE',
    'TOKEN_UNKNOWN',
    'EXPECTED_DATA_UNAVAILABLE',
  ],
  REVIEW: [
    'TX_REVERTED',
    'TX_PENDING_CONFIRMATIONS',
    'EXPECTED_RECIPIENT_MISMATCH',
    'EXPECTED_TOKEN_MISMATCH',
    'EXPECTED_AMOUNT_MISMATCH',
    'AMBIGUOUS_TRANSFER',
    'AML_ELEVATED',
    'TRANSFERS_TRUNCATED',
  ],
  CLEAR: ['TX_FINALIZED'],
};

const STATE_CODE = {
  not_found: 'TX_NOT_FOUND',
  failed: 'TX_REVERTED',
  unknown: 'TX_FACTS_PARTIAL',
  pending: 'TX_PENDING_CONFIRMATIONS',
} as const;

/**
 * The codes the rules say this response includes, read from the inputs and the response's fields (not
 * from the implementation): `always` fit in five places together; the mismatches take the places left.
 */
function requiredCodes(input: AssessmentInput, r: TransactionCheckResponse) {
  const { facts: f, signals: s, expectations: e } = input;
  const always: ReasonCode[] = [];
  const final = f.finalized && f.confirmations !== null && f.confirmations >= REQUIRED_CONFIRMATIONS;
  if (f.state !== 'confirmed') always.push(STATE_CODE[f.state]);
  else if (!final) always.push('TX_PENDING_CONFIRMATIONS');
  if (r.sanctions_hit !== false) always.push(r.sanctions_hit ? 'SANCTIONS_HIT' : 'SANCTIONS_UNAVAILABLE');
  if (f.state !== 'not_found' && (s.aml === null || s.aml.status === 'unavailable')) always.push('AML_UNAVAILABLE');
  const supplied = [
    [e.recipient, r.recipient_match, 'EXPECTED_RECIPIENT_MISMATCH'],
    [e.tokenContract, r.token_match, 'EXPECTED_TOKEN_MISMATCH'],
    [e.amount, r.amount_match, 'EXPECTED_AMOUNT_MISMATCH'],
  ] as const;
  if (supplied.some(([expected, match]) => expected !== null && match === null))
    always.push('EXPECTED_DATA_UNAVAILABLE');
  const expecting = supplied.some(([expected]) => expected !== null);
  if (expecting && f.state !== 'not_found' && selectTransfer(f, e).ambiguous) always.push('AMBIGUOUS_TRANSFER');
  const mismatches = supplied.filter(([, match]) => match === false).map(([, , code]) => code);
  return { always, mismatches };
}

/**
 * The reasons list is bounded: an applicable code may be absent only when five reasons are there, each
 * of higher priority or one the rules require (`required`, or a code that explains the overall state).
 */
function present(r: TransactionCheckResponse, code: ReasonCode, required: readonly ReasonCode[]): void {
  const codes = r.reasons.map((x) => x.code);
  if (codes.includes(code)) return;
  assert.equal(codes.length, 5, `${code} missing from ${codes.join()}`);
  const displacedBy = codes.filter((other) => reasonPriority(other, code) > 0);
  const mayDisplace = [...required, ...EXPLAINING[r.overall_state]];
  assert.ok(
    displacedBy.every((other) => mayDisplace.includes(other)),
    `${code} dropped for ${codes.join()}`,
  );
}

/** Every piece of evidence a CLEAR needs, read straight from the inputs (not from the implementation). */
function evidenceComplete(input: AssessmentInput, r: TransactionCheckResponse): boolean {
  const { facts: f, signals: s, expectations: e } = input;
  const selected = selectTransfer(f, e).transfer;
  const tokenMoves = selected !== null ? selected.assetType !== 'trx' : f.transfers.some((t) => t.assetType !== 'trx');
  const expecting = e.recipient !== null || e.tokenContract !== null || e.amount !== null;
  // Another transfer no supplied expectation rules out: the payment may be ambiguous. (One from the
  // recipient to itself pays it nothing.)
  const couldAlsoBeThePayment = (t: Transfer) =>
    t !== selected &&
    (e.recipient === null || t.recipient === null || (t.recipient === e.recipient && t.sender !== t.recipient)) &&
    (e.tokenContract === null ||
      t.tokenContract === e.tokenContract ||
      (t.assetType === 'trc20' && t.tokenContract === null)) &&
    amountMayMatch(t);
  // Without an expected contract the amount is one of TRX.
  const amountMayMatch = (t: Transfer) =>
    e.amount === null ||
    ((e.tokenContract !== null || t.assetType === 'trx') &&
      (t.decimals === null ||
        parseAmount(e.amount, t.decimals)
          .map((raw) => raw === t.rawAmount)
          .unwrapOr(false)));
  return (
    !(expecting && f.transfers.some(couldAlsoBeThePayment)) &&
    f.owner !== null &&
    f.transfers.every(
      (t) => t.sender !== null && t.recipient !== null && (t.assetType !== 'trc20' || t.tokenContract !== null),
    ) &&
    (selected === null || selected.decimals !== null) &&
    f.state === 'confirmed' &&
    f.finalized &&
    f.confirmations !== null &&
    f.confirmations >= REQUIRED_CONFIRMATIONS &&
    f.verified &&
    f.disagreements.length === 0 &&
    f.missing.length === 0 &&
    !f.transfersTruncated &&
    s.sanctions?.status === 'answered' &&
    s.sanctions.hits.length === 0 &&
    s.aml?.status === 'answered' &&
    s.aml.level === 'low' &&
    (s.token === null ? !tokenMoves : s.token.status === 'answered' && s.token.authenticity === 'official') &&
    (e.recipient === null || r.recipient_match === true) &&
    (e.tokenContract === null || r.token_match === true) &&
    (e.amount === null || r.amount_match === true)
  );
}

describe('assessment properties', () => {
  test('every response decodes with the TransactionCheckResponse codec', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const r = response(input);
        if (r !== null)
          assert.ok(decode(ResponseCodec, JSON.parse(JSON.stringify(r))).isOk(), 'the response decodes with its codec');
      }),
      runs(1),
    );
  });

  test('reasons: 2 to 5, unique, code/category/severity from the table, sorted by severity, one about the transaction state unless five outrank TX_FINALIZED', () => {
    const severity = ['critical', 'high', 'warning', 'info'];
    const stateCodes = ['TX_FINALIZED', 'TX_PENDING_CONFIRMATIONS', 'TX_REVERTED', 'TX_NOT_FOUND', 'TX_FACTS_PARTIAL'];
    fc.assert(
      fc.property(checks, (input) => {
        const r = response(input);
        if (r === null) return;
        const codes = r.reasons.map((x) => x.code);
        assert.ok(codes.length >= 2 && codes.length <= 5, codes.join());
        assert.equal(new Set(codes).size, codes.length);
        for (const item of r.reasons) assert.deepEqual(item, { code: item.code, ...REASONS[item.code] });
        const ranks = r.reasons.map((x) => severity.indexOf(x.severity));
        assert.deepEqual(
          ranks,
          [...ranks].sort((a, b) => a - b),
        );
        // TX_FINALIZED (info) gives way to five warnings or worse.
        assert.ok(
          codes.some((code) => stateCodes.includes(code)) || (codes.length === 5 && !ranks.includes(3)),
          codes.join(),
        );
      }),
      runs(2),
    );
  });

  test('the reasons always include a code that explains the overall state', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const r = response(input);
        if (r === null) return;
        const codes = r.reasons.map((x) => x.code);
        assert.ok(
          codes.some((code) => EXPLAINING[r.overall_state]!.includes(code)),
          `${r.overall_state}: ${codes.join()}`,
        );
        if (r.overall_state === 'CLEAR')
          assert.ok(
            codes.every((x) => REASONS[x].severity === 'info'),
            codes.join(),
          );
      }),
      runs(3),
    );
  });

  test('never CLEAR when any applicable evidence is missing, unknown, partial or contradictory', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const r = response(input);
        if (r === null || r.overall_state !== 'CLEAR') return;
        assert.ok(evidenceComplete(input, r), JSON.stringify(r));
        assert.equal(r.coverage, 'complete');
        assert.equal(r.sanctions_hit, false);
        assert.equal(r.aml_risk_level, 'low');
        assert.notEqual(r.token_authenticity, 'fake');
        assert.equal(r.transfers_truncated, false);
      }),
      runs(4),
    );
  });

  test('sanctions_hit true is always HIGH_RISK with SANCTIONS_HIT first', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const r = response(input);
        if (r === null || r.sanctions_hit !== true) return;
        assert.equal(r.overall_state, 'HIGH_RISK');
        assert.equal(r.reasons[0]!.code, 'SANCTIONS_HIT');
      }),
      runs(5),
    );
  });

  test('HIGH_RISK findings and contradictions win as documented', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const r = response(input);
        if (r === null || input.facts.state === 'not_found') return;
        const highAml =
          input.signals.aml?.status === 'answered' && ['high', 'severe'].includes(input.signals.aml.level);
        const fake = input.signals.token?.status === 'answered' && input.signals.token.authenticity === 'fake';
        const contradictory = input.facts.disagreements.length > 0;
        if (r.sanctions_hit === true) return;
        if (contradictory) assert.equal(r.overall_state, 'LIMITED_DATA');
        else if (highAml || fake) assert.equal(r.overall_state, 'HIGH_RISK');
      }),
      runs(6),
    );
  });

  test('not_found always yields the spec nulls', () => {
    const notFound = inputs.map((input) => ({ ...input, facts: { ...input.facts, state: 'not_found' as const } }));
    fc.assert(
      fc.property(notFound, (input) => {
        const r = response(input);
        if (r === null) return; // an amount finer than TRX's decimals, without a contract: 422 whatever was found

        assert.deepEqual(
          [
            r.confirmations,
            r.decimals,
            r.amount,
            r.sender,
            r.recipient,
            r.token_contract,
            r.token_symbol,
            r.sanctions_hit,
          ],
          [null, null, null, null, null, null, null, null],
        );
        assert.deepEqual(
          [r.aml_risk_level, r.token_authenticity, r.transaction_category, r.transaction_type],
          ['unknown', 'unknown', 'unknown', 'unknown'],
        );
        assert.deepEqual(r.transfers, []);
        assert.equal(r.overall_state, 'LIMITED_DATA');
        assert.ok(
          r.reasons.some((x) => x.code === 'TX_NOT_FOUND'),
          "r.reasons.some((x) => x.code === 'TX_NOT_FOUND')",
        );
      }),
      runs(7),
    );
  });

  test('match fields are null for expectations not supplied; a supplied one null only with partial coverage', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const r = response(input);
        if (r === null) return;
        const pairs = [
          [input.expectations.recipient, r.recipient_match],
          [input.expectations.tokenContract, r.token_match],
          [input.expectations.amount, r.amount_match],
        ] as const;
        for (const [expected, match] of pairs) {
          if (expected === null) assert.equal(match, null);
          else if (match === null) {
            assert.equal(r.coverage, 'partial');
            assert.ok(r.reasons.some((x) => x.code === 'EXPECTED_DATA_UNAVAILABLE'));
          }
        }
      }),
      runs(8),
    );
  });

  test('response rules hold for every input: failed, pending, unavailable AML and sanctions', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const r = response(input);
        if (r === null) return;
        const codes = r.reasons.map((x) => x.code);
        if (r.transaction_state === 'failed') assert.ok(codes.includes('TX_REVERTED'), codes.join());
        if (r.transaction_state === 'pending') assert.ok(codes.includes('TX_PENDING_CONFIRMATIONS'), codes.join());
        if (r.overall_state === 'CLEAR') assert.ok(codes.includes('TX_FINALIZED'), codes.join());
        if (r.transaction_state === 'not_found') return;
        if (input.signals.aml === null || input.signals.aml.status === 'unavailable') {
          assert.equal(r.aml_risk_level, 'unknown');
          assert.ok(codes.includes('AML_UNAVAILABLE'), "codes.includes('AML_UNAVAILABLE')");
        }
        if (input.signals.sanctions?.status !== 'answered') {
          assert.equal(r.sanctions_hit, null);
          assert.ok(codes.includes('SANCTIONS_UNAVAILABLE'), "codes.includes('SANCTIONS_UNAVAILABLE')");
        }
      }),
      runs(9),
    );
  });

  test('reasons: every required code kept, a code left out only for required or higher-priority ones', () => {
    fc.assert(
      fc.property(checks, (input) => {
        const r = response(input);
        if (r === null) return;
        const codes = r.reasons.map((x) => x.code);
        const { always, mismatches } = requiredCodes(input, r);
        for (const code of always) assert.ok(codes.includes(code), `${code} missing from ${codes.join()}`);
        // Mismatches give way to the codes that are always kept, nothing else.
        for (const code of mismatches) present(r, code, always);
        if (r.transaction_state === 'not_found') return;
        const { aml, token } = input.signals;
        const severe: [boolean, ReasonCode][] = [
          [input.facts.disagreements.length > 0, 'TX_FACTS_DISAGREE'],
          [aml?.status === 'answered' && (aml.level === 'high' || aml.level === 'severe'), 'AML_HIGH'],
          [token?.status === 'answered' && token.authenticity === 'fake', 'TOKEN_FAKE'],
        ];
        for (const [applies, code] of severe) if (applies) present(r, code, [...always, ...mismatches]);
      }),
      runs(11),
    );
  });

  test('the same inputs always give the same output', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const first = assess(input);
        const second = assess(structuredClone(input));
        assert.deepEqual(second, first);
        if (first.isOk()) assert.equal(JSON.stringify(assess(input)._unsafeUnwrap()), JSON.stringify(first.value));
      }),
      runs(10),
    );
  });
});
