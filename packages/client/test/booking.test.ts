import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decode } from '@tron-safety/codec';
import {
  createRiskProviders,
  createSafetyService,
  createTronChainFactsProvider,
  type SafetyService,
  type TronChainFactsProvider,
} from '@tron-safety/core';
import {
  currentOfacList,
  seedTenant,
  startFakeChainalysis,
  startFakeTronNode,
  TRON_FIXTURE_TX,
  USDT_CONTRACT,
  type FakeChainalysis,
  type FakeTronNode,
} from '@tron-safety/core/testing';
import { createMemoryStores } from '@tron-safety/store-memory';
import { CheckResponse } from '../src/codecs.js';
import { bookingProblems, isSafeToBook, type CheckRequest } from '../src/index.js';
import { clearBody, EXPECTED } from './responses.js';

// README "Reading a result safely", one rule per test: each breaks a CLEAR, confirmed, complete,
// fresh result in one way, and the helper must refuse it.

const unverified: CheckRequest = { tx_hash: 'ab'.repeat(32), network: 'tron' };
const request: CheckRequest = { ...unverified, ...EXPECTED };
const withExpectations: CheckRequest = { ...request, expected_token_contract: null };
const safe = (body: CheckResponse, req = request, now?: Date) =>
  isSafeToBook({ request: req, body }, now ? { now } : {});
const body = (changes: Partial<CheckResponse> = {}): CheckResponse => ({ ...clearBody(), ...changes });
const DAY_MS = 86_400_000;

describe('Reading a result safely (isSafeToBook)', () => {
  test('a CLEAR, confirmed, complete, fresh result with every asked match true is safe to book', () => {
    assert.equal(safe(body()), true);
    assert.equal(safe(body({ recipient_match: true, amount_match: true }), withExpectations), true);
    assert.deepEqual(bookingProblems({ request, body: body() }), []);
  });

  test('booking needs the recipient and the amount verified: a CLEAR checked without them is never safe', () => {
    const notAsked = body({ recipient_match: null, amount_match: null });
    assert.deepEqual(bookingProblems({ request: unverified, body: notAsked }), [
      'recipient not verified: pass expected_recipient',
      'amount not verified: pass expected_amount',
    ]);
    const recipientOnly = { ...unverified, expected_recipient: EXPECTED.expected_recipient };
    assert.deepEqual(bookingProblems({ request: recipientOnly, body: body({ amount_match: null }) }), [
      'amount not verified: pass expected_amount',
    ]);
    // A flag true for an expectation the request did not carry verified nothing the caller gave.
    assert.equal(safe(body(), unverified), false);
    assert.equal(safe(body(), { ...request, expected_amount: null }), false, 'null is not given');
  });

  test('an answer that contradicts the request or itself is never safe', () => {
    assert.equal(safe(body({ tx_hash: 'cd'.repeat(32) })), false, 'about another transaction');
    assert.equal(safe(body({ tx_hash: 'AB'.repeat(32) })), true, 'the hash in another case is the same');
    const severe = body();
    severe.reasons = [...severe.reasons, { code: 'SANCTIONS_HIT', category: 'sanctions', severity: 'critical' }];
    assert.equal(safe(severe), false, 'a CLEAR with a critical reason');
    assert.equal(safe(body({ required_confirmations: 0, confirmations: 5 })), false, "the spec's 19 at least");
    assert.equal(safe(body(), request, new Date(Date.now() - 3_600_000)), false, 'checked an hour from now');
  });

  test('overall_state other than CLEAR is never safe, LIMITED_DATA included', () => {
    for (const overall_state of ['REVIEW', 'HIGH_RISK', 'LIMITED_DATA'] as const) {
      assert.equal(safe(body({ overall_state })), false, overall_state);
    }
  });

  test('transaction_state must be confirmed with at least required_confirmations', () => {
    for (const transaction_state of ['pending', 'failed', 'not_found', 'unknown'] as const) {
      assert.equal(safe(body({ transaction_state })), false, transaction_state);
    }
    assert.equal(safe(body({ confirmations: 18 })), false);
    assert.equal(safe(body({ confirmations: null })), false);
    assert.equal(safe(body({ confirmations: 19 })), true);
    // A required_confirmations no JSON carries (built in code) never lowers the bar.
    assert.equal(safe(body({ required_confirmations: Number.NaN, confirmations: 5 })), false);
  });

  test('coverage must be complete', () => {
    assert.equal(safe(body({ coverage: 'partial' })), false);
  });

  test('every match flag asked for must be true: false is a mismatch, null is not a match', () => {
    assert.equal(safe(body({ recipient_match: false, amount_match: true }), withExpectations), false);
    assert.equal(safe(body({ recipient_match: true, amount_match: null }), withExpectations), false);
    // Not asked for: its null is fine.
    assert.equal(safe(body({ recipient_match: true, amount_match: true, token_match: null }), withExpectations), true);
  });

  test('a truncated transfer list or AMBIGUOUS_TRANSFER is never pieced together', () => {
    assert.equal(safe(body({ transfers_truncated: true })), false);
    const ambiguous = [
      ...clearBody().reasons,
      { code: 'AMBIGUOUS_TRANSFER', category: 'expected', severity: 'warning' },
    ];
    assert.equal(safe(body({ reasons: ambiguous })), false);
  });

  test('sanctions_hit must be false: null means screening was unavailable', () => {
    assert.equal(safe(body({ sanctions_hit: null })), false);
    assert.equal(safe(body({ sanctions_hit: true })), false);
  });

  test('freshness: old evidence or an old result is not recent enough (limits are options)', () => {
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const stale = body({ freshness: { ...clearBody().freshness, risk_data_at: threeDaysAgo } });
    assert.equal(safe(stale), false);
    assert.equal(isSafeToBook({ request, body: stale }, { maxSourceAgeSeconds: 4 * 86_400 }), true);
    assert.equal(safe(body(), request, new Date(Date.now() + 2 * 3_600_000)), false);
  });

  test('freshness: max_source_age_seconds past the limit is not booked, whichever source is old (token data included)', () => {
    const oldToken = body({ token_contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' });
    oldToken.freshness = {
      ...oldToken.freshness,
      token_data_at: new Date(Date.now() - 30 * DAY_MS).toISOString(),
      max_source_age_seconds: 30 * 86_400,
    };
    assert.equal(safe(oldToken), false, 'token data 30 days old');
    // The service's figure alone (a chain head that stalled is dated by neither field).
    const oldChain = body({ freshness: { ...clearBody().freshness, max_source_age_seconds: 3 * 86_400 } });
    assert.deepEqual(bookingProblems({ request, body: oldChain }), [
      'the oldest evidence is 259200 s old (max_source_age_seconds, limit 172800 s)',
    ]);
    assert.equal(isSafeToBook({ request, body: oldChain }, { maxSourceAgeSeconds: 4 * 86_400 }), true, 'an option');
    assert.equal(isSafeToBook({ request, body: body() }, { maxSourceAgeSeconds: 5 }), false, 'the figure is 10 s');
    // token_data_at on its own, the service's figure current; ages in whole seconds rounded down, as the service's.
    const checkedAt = Date.parse(clearBody().freshness.checked_at);
    const tokenAlone = body({ token_contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' });
    tokenAlone.freshness = { ...tokenAlone.freshness, token_data_at: new Date(checkedAt - 3 * DAY_MS).toISOString() };
    assert.deepEqual(bookingProblems({ request, body: tokenAlone }), [
      'token_data_at is 259200 s old (limit 172800 s)',
    ]);
    tokenAlone.freshness = {
      ...tokenAlone.freshness,
      token_data_at: new Date(checkedAt - 2 * DAY_MS - 600).toISOString(),
    };
    assert.deepEqual(bookingProblems({ request, body: tokenAlone }), [], '172800.6 s is 172800 whole seconds');
    const negative = body({ freshness: { ...clearBody().freshness, max_source_age_seconds: -1 } });
    assert.equal(safe(negative), false, 'an age below 0 is no figure at all');
  });

  test('freshness: a limit that is NaN, negative or infinite, or an invalid now, throws instead of switching a rule off', () => {
    const yearOld = new Date(Date.now() - 365 * DAY_MS).toISOString();
    const stale = body({ freshness: { ...clearBody().freshness, checked_at: yearOld, risk_data_at: yearOld } });
    for (const options of [
      { maxSourceAgeSeconds: Number(undefined) },
      { maxSourceAgeSeconds: -1 },
      { maxSourceAgeSeconds: Infinity },
      { maxResultAgeSeconds: Number.NaN },
      { now: new Date('not a date') },
    ]) {
      assert.throws(() => isSafeToBook({ request, body: stale }, options), RangeError, String(Object.values(options)));
    }
    // Left undefined (an optional config field), each keeps its default.
    assert.equal(isSafeToBook({ request, body: body() }, { maxSourceAgeSeconds: undefined, now: undefined }), true);
  });

  test('freshness: evidence dated after the check that used it (beyond a minute of clock skew) contradicts the answer', () => {
    const later = (field: 'risk_data_at' | 'token_data_at', seconds: number) => {
      const at = new Date(Date.now() + seconds * 1000).toISOString();
      return body({ freshness: { ...clearBody().freshness, [field]: at } });
    };
    assert.equal(safe(later('risk_data_at', 3_600)), false);
    assert.equal(safe(later('token_data_at', 3_600)), false);
    assert.equal(safe(later('risk_data_at', 30)), true, 'within the skew');
    assert.equal(safe(body({ freshness: { ...clearBody().freshness, risk_data_at: 'soon' } })), false);
  });

  test('a CLEAR that contradicts its own fields or reasons is never safe (docs/assessment.md, precedence)', () => {
    const withReason = (code: string, severity: string) =>
      body({
        reasons: [
          { code: 'TX_FINALIZED', category: 'transaction', severity: 'info' },
          { code, category: 'x', severity },
        ],
      });
    const contradictions: [string, CheckResponse][] = [
      ['aml_risk_level severe', body({ aml_risk_level: 'severe' })],
      ['aml_risk_level moderate', body({ aml_risk_level: 'moderate' })],
      ['aml_risk_level unknown', body({ aml_risk_level: 'unknown' })],
      ['token_authenticity fake', body({ token_authenticity: 'fake' })],
      ['a severity beyond the spec', withReason('SANCTIONS_CLEAR', 'blocker')],
      ['a code only LIMITED_DATA carries', withReason('TX_FACTS_DISAGREE', 'warning')],
      ['a code only REVIEW carries', withReason('AML_ELEVATED', 'warning')],
      ['another network', body({ network: 'ethereum' })],
    ];
    const accepted = contradictions.filter(([, b]) => safe(b)).map(([name]) => name);
    assert.deepEqual(accepted, []);
    for (const code of ['TX_FACTS_VERIFIED', 'AML_LOW', 'TOKEN_OFFICIAL']) {
      assert.equal(safe(withReason(code, 'info')), true, code);
    }
    assert.equal(safe(body({ token_authenticity: 'unknown' })), true, 'no token judged (a vote, a TRX payment)');
  });

  test('an unknown reason code is a reason to look, never clean', () => {
    const reasons = [...clearBody().reasons, { code: 'FUTURE_CODE', category: 'risk', severity: 'info' }];
    assert.deepEqual(bookingProblems({ request, body: body({ reasons }) }), [
      'unknown reason code FUTURE_CODE: look at it',
    ]);
  });
});

describe('Reading a result safely: answers of the real service', () => {
  let node: FakeTronNode;
  let vendors: FakeChainalysis;
  const chains: TronChainFactsProvider[] = [];
  type Seeded = { service: SafetyService; apiKey: string };
  /** A service whose chain confirmed the registry's tokens (a host warms up before it serves). */
  let warm: Seeded & { chain: TronChainFactsProvider };
  /** One that has not yet: its registry tokens are dated by the registry's release. */
  let cold: Seeded;
  const serviceOf = async () => {
    const chain = createTronChainFactsProvider({ fullNodeUrl: node.url, retry: { attempts: 1 } });
    chains.push(chain);
    const risk = createRiskProviders({
      chainalysisApiUrl: vendors.entityUrl,
      chainalysisApiKey: 'k',
      ofacList: { current: () => currentOfacList() },
    })._unsafeUnwrap();
    const service = createSafetyService(createMemoryStores(), { chain, risk });
    return { chain, service, apiKey: (await seedTenant(service)).apiKey };
  };
  before(async () => {
    node = await startFakeTronNode();
    vendors = await startFakeChainalysis();
    cold = await serviceOf();
    warm = await serviceOf();
    await warm.chain.warmUp();
  });
  after(async () => {
    await Promise.all(chains.map((chain) => chain.close()));
    await node.close();
    await vendors.close();
  });

  const checked = async (req: CheckRequest, { service, apiKey }: Seeded = warm) => {
    const answer = await service.check({ apiKey, request: req });
    assert.ok(answer.ok);
    const decoded = decode(CheckResponse, answer.body);
    assert.ok(decoded.isOk(), 'the client decodes the service answer');
    return { request: req, body: decoded.value };
  };
  const paid: CheckRequest = {
    tx_hash: TRON_FIXTURE_TX.usdtTransfer,
    network: 'tron',
    expected_recipient: 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx',
    expected_token_contract: USDT_CONTRACT,
    expected_amount: '41.677389',
  };

  test('a CLEAR payment of a registry token with current risk data is safe to book with the default limits', async () => {
    const trx: CheckRequest = {
      tx_hash: TRON_FIXTURE_TX.trxTransfer,
      network: 'tron',
      expected_recipient: 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre',
      expected_amount: '0.000001',
    };
    for (const req of [trx, paid]) {
      const payment = await checked(req);
      assert.equal(payment.body.overall_state, 'CLEAR');
      assert.deepEqual(bookingProblems(payment), [], req.tx_hash);
    }
  });

  test('freshness: token data the chain has not confirmed since the registry release (days old) is not booked', async () => {
    const payment = await checked(paid, cold);
    assert.ok(payment.body.freshness.max_source_age_seconds > 2 * 86_400, 'the premise: evidence over 2 days old');
    assert.equal(isSafeToBook(payment), false);
    assert.match(bookingProblems(payment).join('; '), /the oldest evidence is \d+ s old \(max_source_age_seconds/);
  });

  test('stale risk data is still refused: a screen past the limit is not booked', async () => {
    const payment = await checked(paid);
    const old = new Date(Date.parse(payment.body.freshness.checked_at) - 3 * 86_400_000).toISOString();
    const stale = { ...payment.body, freshness: { ...payment.body.freshness, risk_data_at: old } };
    assert.equal(isSafeToBook({ ...payment, body: stale }), false);
    const unknown = { ...payment.body, freshness: { ...payment.body.freshness, risk_data_at: null } };
    assert.equal(isSafeToBook({ ...payment, body: unknown }), false);
  });
});
