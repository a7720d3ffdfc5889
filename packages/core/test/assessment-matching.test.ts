// The spec's matching rules for expected_* fields, one table-driven test per rule.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assess } from '../src/assessment/assess.js';
import type { Expectations } from '../src/assessment/input.js';
import { selectTransfer } from '../src/assessment/matching.js';
import type { Transfer } from '../src/chain/facts.js';
import { ADDR, check, codes, expecting, facts, input, signals, trc10, trx, usdt } from './assessment-support.js';

const { alice, bob, carol, dave, usdt: USDT, fakeUsdt } = ADDR;

/** WINkLink, an official registry token with TRX's 6 decimals. */
const WIN = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

const matchFields = (r: ReturnType<typeof check>) => [r.recipient_match, r.token_match, r.amount_match];

describe('matching rules', () => {
  test('rule 1: the three comparisons describe one selected transfer (flags of different transfers are never combined)', () => {
    // bob gets 5 USDT, carol gets 10 USDT; expecting 10 USDT to bob matches no single transfer.
    const transfers = [usdt(0, alice, bob, 5_000_000n), usdt(1, alice, carol, 10_000_000n)];
    const r = check({
      facts: facts({ transfers, primaryTransfer: null }),
      expectations: expecting({ recipient: bob, tokenContract: USDT, amount: '10' }),
    });
    assert.deepEqual(matchFields(r), [true, true, false], 'transfer 0 (tie broken by index), not a mix');
    assert.equal(r.recipient, bob);
    assert.equal(r.amount, '5');
    assert.equal(r.overall_state, 'REVIEW');
    assert.ok(codes(r).includes('EXPECTED_AMOUNT_MISMATCH'), "codes(r).includes('EXPECTED_AMOUNT_MISMATCH')");
  });

  describe('rule 2: selection = first full match, else most matches, ties by index', () => {
    const cases: {
      name: string;
      transfers: Transfer[];
      primary: number | null;
      exp: Expectations;
      selected: number | null;
    }[] = [
      {
        name: 'no expectations: the primary transfer',
        transfers: [trx(0, alice, carol, 1n), usdt(1, alice, bob, 1n)],
        primary: 1,
        exp: expecting(),
        selected: 1,
      },
      {
        name: 'no expectations and no primary: none',
        transfers: [usdt(0, alice, bob, 1n), usdt(1, alice, carol, 1n)],
        primary: null,
        exp: expecting(),
        selected: null,
      },
      {
        name: 'a later full match beats an earlier partial one',
        transfers: [trx(0, alice, bob, 1_000_000n), trx(1, alice, bob, 2_000_000n)],
        primary: null,
        exp: expecting({ recipient: bob, amount: '2' }),
        selected: 1,
      },
      {
        name: 'no full match: the most matches',
        transfers: [trx(0, alice, dave, 1n), usdt(1, alice, bob, 1n), usdt(2, alice, carol, 7_000_000n)],
        primary: null,
        exp: expecting({ recipient: bob, tokenContract: USDT, amount: '7' }),
        selected: 1,
      },
      {
        name: 'equal matches: the lowest index, whatever the list order',
        transfers: [usdt(2, alice, carol, 3_000_000n), usdt(1, alice, bob, 9n)],
        primary: null,
        exp: expecting({ recipient: bob, amount: '3' }),
        selected: 1,
      },
      {
        name: 'nothing matches: the lowest index',
        transfers: [usdt(0, alice, carol, 1n), usdt(1, alice, dave, 1n)],
        primary: null,
        exp: expecting({ recipient: bob }),
        selected: 0,
      },
      {
        name: 'unknown comparisons count as no match',
        transfers: [usdt(0, alice, bob, 5n, { decimals: null }), usdt(1, alice, carol, 5_000_000n)],
        primary: null,
        exp: expecting({ tokenContract: USDT, amount: '5' }),
        selected: 1,
      },
      {
        name: 'no transfers: none',
        transfers: [],
        primary: null,
        exp: expecting({ recipient: bob }),
        selected: null,
      },
    ];
    for (const c of cases) {
      test(c.name, () => {
        const selection = selectTransfer(facts({ transfers: c.transfers, primaryTransfer: c.primary }), c.exp);
        assert.equal(selection.transfer?.index ?? null, c.selected);
        assert.equal(selection.ambiguous, false);
      });
    }
  });

  describe('rule 3: several full matches give AMBIGUOUS_TRANSFER', () => {
    const cases = [
      { name: 'two identical payments', exp: expecting({ recipient: bob, amount: '1' }), ambiguous: true },
      { name: 'only the recipient expected, both to bob', exp: expecting({ recipient: bob }), ambiguous: true },
      { name: 'the amount tells them apart', exp: expecting({ recipient: bob, amount: '2' }), ambiguous: false },
    ];
    const transfers = [trx(0, alice, bob, 1_000_000n), trx(1, alice, bob, 1_000_000n), trx(2, alice, bob, 2_000_000n)];
    for (const c of cases) {
      test(c.name, () => {
        const r = check({ facts: facts({ transfers, primaryTransfer: null }), expectations: c.exp });
        assert.equal(codes(r).includes('AMBIGUOUS_TRANSFER'), c.ambiguous);
        assert.equal(r.overall_state, c.ambiguous ? 'REVIEW' : 'CLEAR');
        assert.equal(r.recipient_match, true, 'the first full match is described');
      });
    }
    test('a full match beside an undecided twin (unknown decimals): ambiguity unknown, never CLEAR', () => {
      // Transfer 1 may be 100 units to bob too: whether two transfers satisfy everything is unknown.
      const twin = [usdt(0, alice, bob, 100_000_000n), usdt(1, alice, bob, 100_000_000n, { decimals: null })];
      for (const exp of [
        expecting({ recipient: bob, tokenContract: USDT, amount: '100' }),
        expecting({ tokenContract: USDT, amount: '100' }),
      ]) {
        const r = check({ facts: facts({ transfers: twin, primaryTransfer: null }), expectations: exp });
        assert.equal(r.recipient_match, exp.recipient === null ? null : true);
        assert.equal(r.amount_match, null, 'whether the twin pays the amount too is unknown: its match field is null');
        assert.equal(r.coverage, 'partial');
        assert.equal(r.overall_state, 'LIMITED_DATA');
        assert.ok(codes(r).includes('EXPECTED_DATA_UNAVAILABLE'), codes(r).join());
      }
      // A twin the expectations rule out (another recipient) leaves the match decided.
      const ruledOut = [twin[0]!, usdt(1, alice, carol, 100_000_000n, { decimals: null })];
      const r = check({
        facts: facts({ transfers: ruledOut, primaryTransfer: null }),
        expectations: expecting({ recipient: bob, tokenContract: USDT, amount: '100' }),
      });
      assert.equal(r.overall_state, 'CLEAR');
    });
  });

  describe('rule 4: true matches, false checked and differs, null not requested or not enough data', () => {
    const cases: { name: string; transfer: Transfer; exp: Expectations; fields: (boolean | null)[] }[] = [
      { name: 'not requested', transfer: usdt(0, alice, bob, 1n), exp: expecting(), fields: [null, null, null] },
      {
        name: 'all match',
        transfer: usdt(0, alice, bob, 1_500_000n),
        exp: expecting({ recipient: bob, tokenContract: USDT, amount: '1.5' }),
        fields: [true, true, true],
      },
      {
        name: 'all differ',
        transfer: usdt(0, alice, bob, 1_500_000n),
        exp: expecting({ recipient: carol, tokenContract: fakeUsdt, amount: '2' }),
        fields: [false, false, false],
      },
      {
        name: 'unreadable recipient and decimals',
        transfer: usdt(0, alice, bob, 1n, { recipient: null, decimals: null }),
        exp: expecting({ recipient: bob, tokenContract: USDT, amount: '1' }),
        fields: [null, true, null],
      },
    ];
    for (const c of cases) {
      test(c.name, () => {
        const r = check({ facts: facts({ transfers: [c.transfer] }), expectations: c.exp });
        assert.deepEqual(matchFields(r), c.fields);
      });
    }
  });

  describe('rule 5: supplied but unavailable data gives null, partial coverage, EXPECTED_DATA_UNAVAILABLE', () => {
    const cases: { name: string; facts: Parameters<typeof facts>[0]; exp: Expectations; fields: (boolean | null)[] }[] =
      [
        {
          name: 'unknown decimals never prove an amount mismatch',
          facts: { transfers: [usdt(0, alice, bob, 123n, { decimals: null })] },
          exp: expecting({ recipient: bob, tokenContract: USDT, amount: '1' }),
          fields: [true, true, null],
        },
        {
          name: 'truncated list without a full match: the misses are not proven',
          facts: { transfers: [trx(0, alice, carol, 1_000_000n)], transfersTruncated: true },
          exp: expecting({ recipient: bob, amount: '1' }),
          fields: [null, null, true],
        },
        {
          name: 'facts missing (internal transactions unreadable) and no transfer to the recipient',
          facts: {
            transfers: [],
            missing: [{ code: 'internal_transaction_unreadable', detail: 'internal transactions' }],
          },
          exp: expecting({ recipient: bob }),
          fields: [null, null, null],
        },
        {
          name: 'another transfer with unknown decimals may be the payment',
          facts: {
            transfers: [usdt(0, alice, bob, 1_000_000n), usdt(1, carol, bob, 2n, { decimals: null })],
            primaryTransfer: null,
          },
          exp: expecting({ recipient: bob, tokenContract: USDT, amount: '2' }),
          fields: [true, true, null],
        },
        {
          name: 'TRC20 transfer whose contract is unreadable',
          facts: { transfers: [usdt(0, alice, bob, 1n, { tokenContract: null })] },
          exp: expecting({ tokenContract: USDT }),
          fields: [null, null, null],
        },
      ];
    for (const c of cases) {
      test(c.name, () => {
        const r = check({ facts: facts(c.facts), expectations: c.exp });
        assert.deepEqual(matchFields(r), c.fields);
        assert.equal(r.coverage, 'partial');
        assert.ok(codes(r).includes('EXPECTED_DATA_UNAVAILABLE'), codes(r).join());
        assert.notEqual(r.overall_state, 'CLEAR');
      });
    }
    test('an undecided transfer that another comparison rules out hides nothing', () => {
      const transfers = [usdt(0, alice, bob, 1_000_000n), usdt(1, alice, carol, 2n, { decimals: null })];
      const r = check({
        facts: facts({ transfers, primaryTransfer: null }),
        expectations: expecting({ recipient: bob, amount: '2' }),
      });
      assert.deepEqual(matchFields(r), [true, null, false]);
      assert.ok(codes(r).includes('EXPECTED_AMOUNT_MISMATCH'), codes(r).join());
    });
    test('a complete list without any transfer proves the mismatch', () => {
      const r = check({
        facts: facts({
          transfers: [],
          primaryTransfer: null,
          category: 'voting',
          transactionType: 'VoteWitnessContract',
        }),
        expectations: expecting({ recipient: bob, amount: '1' }),
      });
      assert.deepEqual(matchFields(r), [false, null, false]);
      assert.ok(!codes(r).includes('EXPECTED_DATA_UNAVAILABLE'), "!codes(r).includes('EXPECTED_DATA_UNAVAILABLE')");
    });
  });

  describe('rule 6: addresses are compared as checksum-validated base58, exactly', () => {
    // Checksums are validated with the request (422 invalid_tron_address); here equality is exact.
    const cases = [
      { name: 'same address', expected: bob, match: true },
      { name: 'another valid address', expected: carol, match: false },
    ];
    for (const c of cases) {
      test(c.name, () => {
        assert.equal(check({ expectations: expecting({ recipient: c.expected }) }).recipient_match, c.match);
      });
    }
  });

  describe('rule 7: tokens are compared by exact contract, never by symbol', () => {
    const cases: { name: string; transfer: Transfer; match: boolean | null }[] = [
      { name: 'the USDT contract', transfer: usdt(0, alice, bob, 1n), match: true },
      {
        name: 'a token named USDT at another contract',
        transfer: usdt(0, alice, bob, 1n, { tokenContract: fakeUsdt }),
        match: false,
      },
      { name: 'TRX has no contract', transfer: trx(0, alice, bob, 1n), match: false },
      { name: 'TRC10 has no contract', transfer: trc10(0, alice, bob, 1n, 6), match: false },
    ];
    for (const c of cases) {
      test(c.name, () => {
        const r = check({
          facts: facts({ transfers: [c.transfer] }),
          expectations: expecting({ tokenContract: USDT }),
        });
        assert.equal(r.token_match, c.match);
        assert.equal(codes(r).includes('EXPECTED_TOKEN_MISMATCH'), c.match === false);
      });
    }
  });

  describe('rule 8: amounts compare in raw units via the asset decimals, no tolerance; excess precision is 422', () => {
    const IN_USDT = { tokenContract: USDT };
    const cases: {
      name: string;
      transfer: Transfer;
      amount: string;
      exp?: Partial<Expectations>;
      result: boolean | null | 'rejected';
    }[] = [
      {
        name: 'USDT exact',
        transfer: usdt(0, alice, bob, 41_677_389n),
        amount: '41.677389',
        exp: IN_USDT,
        result: true,
      },
      {
        name: 'trailing zeros are fine',
        transfer: usdt(0, alice, bob, 41_677_389n),
        amount: '41.67738900',
        exp: IN_USDT,
        result: true,
      },
      {
        name: 'one raw unit short',
        transfer: usdt(0, alice, bob, 41_677_388n),
        amount: '41.677389',
        exp: IN_USDT,
        result: false,
      },
      {
        name: 'USDT 7th decimal',
        transfer: usdt(0, alice, bob, 41_677_389n),
        amount: '41.6773891',
        exp: IN_USDT,
        result: 'rejected',
      },
      { name: 'TRX has 6 decimals', transfer: trx(0, alice, bob, 1_000_001n), amount: '1.000001', result: true },
      { name: 'TRX 7th decimal', transfer: trx(0, alice, bob, 1n), amount: '0.0000001', result: 'rejected' },
      {
        name: 'without an expected contract the amount is TRX: the same figure of a token is a mismatch',
        transfer: usdt(0, alice, bob, 41_677_389n),
        amount: '41.677389',
        result: false,
      },
      {
        name: 'without an expected contract the amount is TRX: beyond 6 decimals is 422 whatever the transfer',
        transfer: usdt(0, alice, bob, 1_000_000_000_000_000_001n, { decimals: 18 }),
        amount: '1.000000000000000001',
        result: 'rejected',
      },
      {
        name: 'TRC10 (no contract to expect) never matches an amount, which is TRX',
        transfer: trc10(0, alice, bob, 15n, 0),
        amount: '15',
        result: false,
      },
      {
        name: '18 decimals',
        transfer: usdt(0, alice, bob, 1_000_000_000_000_000_001n, { decimals: 18 }),
        amount: '1.000000000000000001',
        exp: IN_USDT,
        result: true,
      },
      {
        name: 'excess precision for a different asset than the expected token is a mismatch, not a 422',
        transfer: trx(0, alice, bob, 1n),
        amount: '0.0000001',
        exp: { tokenContract: USDT },
        result: false,
      },
      {
        name: 'unknown decimals: no 422 and no verdict',
        transfer: usdt(0, alice, bob, 1n, { decimals: null }),
        amount: '0.0000000001',
        exp: IN_USDT,
        result: null,
      },
    ];
    for (const c of cases) {
      test(c.name, () => {
        const result = assess(
          input({ facts: facts({ transfers: [c.transfer] }), expectations: expecting({ amount: c.amount, ...c.exp }) }),
        );
        if (c.result === 'rejected') {
          assert.equal(result._unsafeUnwrapErr().code, 'invalid_expected_amount');
          return;
        }
        assert.equal(result._unsafeUnwrap().amount_match, c.result);
      });
    }
    test('the expected token decimals decide the 422, even when another transfer is selected', () => {
      const transfers = [trx(0, alice, bob, 1n), usdt(1, alice, carol, 1n)];
      const result = assess(
        input({
          facts: facts({ transfers }),
          expectations: expecting({ recipient: bob, tokenContract: USDT, amount: '0.0000001' }),
        }),
      );
      assert.equal(result._unsafeUnwrapErr().code, 'invalid_expected_amount');
    });
    test("decimals that differ from the official token's pinned ones: a contradiction, never a match or a 422", () => {
      // A node answered decimals() = 0 for USDT: 41.677389 USDT would read as 41677389 units.
      const lying = [usdt(0, alice, bob, 41_677_389n, { decimals: 0 })];
      const official = signals({
        token: {
          status: 'answered',
          authenticity: 'official',
          asOf: new Date('2026-11-01T00:00:00.000Z'),
          officialDecimals: 6,
        },
      });
      for (const amount of ['41677389', '41.677389']) {
        const result = assess(
          input({
            facts: facts({ transfers: lying }),
            signals: official,
            expectations: expecting({ recipient: bob, tokenContract: USDT, amount }),
          }),
        );
        assert.ok(result.isOk(), `${amount}: no 422 from a contradicted reading`);
        assert.equal(result.value.overall_state, 'LIMITED_DATA');
        assert.ok(codes(result.value).includes('TX_FACTS_DISAGREE'), codes(result.value).join());
        assert.notEqual(result.value.amount_match, true);
      }
      const honest = check({
        facts: facts({ transfers: [usdt(0, alice, bob, 41_677_389n)] }),
        signals: official,
        expectations: expecting({ recipient: bob, tokenContract: USDT, amount: '41.677389' }),
      });
      assert.equal(honest.overall_state, 'CLEAR', 'agreeing decimals change nothing');
    });
    test('a pending contract call not yet in a block: its transfers are unknown, so no mismatch is proven', () => {
      const pending = {
        state: 'pending' as const,
        blockNumber: null,
        confirmations: 0,
        finalized: false,
        transfers: [],
        primaryTransfer: null,
      };
      const call = check({
        facts: facts(pending),
        expectations: expecting({ recipient: bob, tokenContract: USDT, amount: '5' }),
      });
      assert.deepEqual(matchFields(call), [null, null, null]);
      assert.ok(codes(call).includes('EXPECTED_DATA_UNAVAILABLE'), codes(call).join());
      assert.ok(codes(call).includes('TX_PENDING_CONFIRMATIONS'), codes(call).join());
      // A plain TRX transfer's body says it all: its mismatch stands while pending.
      const trxPending = check({
        facts: facts({
          ...pending,
          transactionType: 'TransferContract',
          category: 'trx_transfer',
          transfers: [trx(0, alice, carol, 5_000_000n)],
          primaryTransfer: 0,
        }),
        expectations: expecting({ recipient: bob }),
      });
      assert.equal(trxPending.recipient_match, false);
    });
    test('without an expected token the amount is TRX: beyond 6 decimals is 422 whatever the facts say', () => {
      const cases: Parameters<typeof facts>[0][] = [
        { transfers: [trx(0, alice, bob, 1n), usdt(1, alice, carol, 1n, { decimals: 18 })] },
        { transfers: [trx(0, alice, carol, 1n)], transfersTruncated: true },
        { transfers: [trx(0, alice, carol, 1n)], disagreements: [{ code: 'nodes_disagree', detail: 'block differs' }] },
        { transfers: [usdt(0, alice, carol, 1n, { decimals: null })] },
        { transfers: [] },
      ];
      for (const [i, c] of cases.entries()) {
        const result = assess(
          input({
            facts: facts({ primaryTransfer: null, ...c }),
            expectations: expecting({ recipient: carol, amount: '1.1234567' }),
          }),
        );
        assert.equal(result._unsafeUnwrapErr().code, 'invalid_expected_amount', `case ${i}`);
      }
    });
    test('100 of an official token is not the 100 TRX expected without a contract: never CLEAR', () => {
      const win = usdt(0, alice, bob, 100_000_000n, { tokenContract: WIN, tokenSymbol: 'WIN' });
      const r = check({
        facts: facts({ transfers: [win] }),
        expectations: expecting({ recipient: bob, amount: '100' }),
      });
      assert.deepEqual(matchFields(r), [true, null, false]);
      assert.ok(codes(r).includes('EXPECTED_AMOUNT_MISMATCH'), codes(r).join());
      assert.equal(r.overall_state, 'REVIEW');
    });
  });

  describe('rule 9: each mismatch adds its reason and sets its field false', () => {
    const cases: {
      name: string;
      exp: Partial<Expectations>;
      field: 'recipient_match' | 'token_match' | 'amount_match';
      code: string;
    }[] = [
      { name: 'recipient', exp: { recipient: carol }, field: 'recipient_match', code: 'EXPECTED_RECIPIENT_MISMATCH' },
      { name: 'token', exp: { tokenContract: fakeUsdt }, field: 'token_match', code: 'EXPECTED_TOKEN_MISMATCH' },
      { name: 'amount', exp: { amount: '41.67738' }, field: 'amount_match', code: 'EXPECTED_AMOUNT_MISMATCH' },
    ];
    for (const c of cases) {
      test(c.name, () => {
        const r = check({ expectations: expecting(c.exp) });
        assert.equal(r[c.field], false);
        assert.ok(codes(r).includes(c.code as never), 'codes(r).includes(c.code as never)');
        assert.equal(r.overall_state, 'REVIEW');
        assert.equal(r.coverage, 'complete', 'a mismatch is a finding, not missing evidence');
      });
    }
    test('all three at once', () => {
      const r = check({ expectations: expecting({ recipient: carol, tokenContract: fakeUsdt, amount: '1' }) });
      for (const code of [
        'EXPECTED_RECIPIENT_MISMATCH',
        'EXPECTED_TOKEN_MISMATCH',
        'EXPECTED_AMOUNT_MISMATCH',
      ] as const) {
        assert.ok(codes(r).includes(code), code);
      }
    });
  });

  describe('rule 9: a transfer from the expected recipient to itself is a recipient mismatch (it pays the recipient nothing)', () => {
    const exp = expecting({ recipient: bob, tokenContract: USDT, amount: '10' });
    test("the recipient's self-transfer alone: recipient_match false, REVIEW, still listed", () => {
      const r = check({ facts: facts({ transfers: [usdt(0, bob, bob, 10_000_000n)] }), expectations: exp });
      assert.deepEqual(matchFields(r), [false, true, true]);
      assert.ok(codes(r).includes('EXPECTED_RECIPIENT_MISMATCH'), codes(r).join());
      assert.equal(r.overall_state, 'REVIEW');
      assert.deepEqual(
        r.transfers.map((t) => [t.sender, t.recipient]),
        [[bob, bob]],
      );
    });
    test('beside a payment from someone else: that payment is the match, not ambiguous', () => {
      const transfers = [usdt(0, bob, bob, 10_000_000n), usdt(1, alice, bob, 10_000_000n)];
      const r = check({ facts: facts({ transfers, primaryTransfer: null }), expectations: exp });
      assert.deepEqual(matchFields(r), [true, true, true]);
      assert.equal(r.sender, alice);
      assert.ok(!codes(r).includes('AMBIGUOUS_TRANSFER'), codes(r).join());
    });
    test('an unreadable sender may be the recipient itself: null, not a match', () => {
      const transfers = [{ ...usdt(0, alice, bob, 10_000_000n), sender: null }];
      const r = check({ facts: facts({ transfers }), expectations: exp });
      assert.equal(r.recipient_match, null);
      assert.notEqual(r.overall_state, 'CLEAR');
    });
  });

  describe('rule 10: any subset of the three expected fields may be sent', () => {
    const full = { recipient: bob, tokenContract: USDT, amount: '41.677389' };
    for (let mask = 0; mask < 8; mask++) {
      const exp = expecting({
        recipient: mask & 1 ? full.recipient : null,
        tokenContract: mask & 2 ? full.tokenContract : null,
        amount: mask & 4 ? full.amount : null,
      });
      // An amount without a contract is one of TRX: against this USDT payment it is a mismatch.
      const amountInTrx = (mask & 6) === 4;
      test(`subset ${mask.toString(2).padStart(3, '0')}`, () => {
        const r = check({ expectations: exp });
        const amount = mask & 4 ? !amountInTrx : null;
        assert.deepEqual(matchFields(r), [mask & 1 ? true : null, mask & 2 ? true : null, amount]);
        assert.equal(r.overall_state, amountInTrx ? 'REVIEW' : 'CLEAR');
      });
    }
  });
});
