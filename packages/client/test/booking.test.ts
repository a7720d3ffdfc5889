import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bookingProblems, isSafeToBook, type CheckRequest, type CheckResponse } from '../src/index.js';
import { clearBody } from './responses.js';

// README "Reading a result safely", one rule per test: each breaks a CLEAR, confirmed, complete,
// fresh result in one way, and the helper must refuse it.

const request: CheckRequest = { tx_hash: 'ab'.repeat(32), network: 'tron' };
const withExpectations: CheckRequest = {
  ...request,
  expected_recipient: 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC',
  expected_token_contract: null,
  expected_amount: '1.5',
};
const safe = (body: CheckResponse, req = request, now?: Date) =>
  isSafeToBook({ request: req, body }, now ? { now } : {});
const body = (changes: Partial<CheckResponse> = {}): CheckResponse => ({ ...clearBody(), ...changes });

describe('Reading a result safely (isSafeToBook)', () => {
  test('a CLEAR, confirmed, complete, fresh result with every asked match true is safe to book', () => {
    assert.equal(safe(body()), true);
    assert.equal(safe(body({ recipient_match: true, amount_match: true }), withExpectations), true);
    assert.deepEqual(bookingProblems({ request, body: body() }), []);
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
    const stale = body({ freshness: { ...clearBody().freshness, max_source_age_seconds: 3 * 86_400 } });
    assert.equal(safe(stale), false);
    assert.equal(isSafeToBook({ request, body: stale }, { maxSourceAgeSeconds: 4 * 86_400 }), true);
    assert.equal(safe(body(), request, new Date(Date.now() + 2 * 3_600_000)), false);
  });

  test('an unknown reason code is a reason to look, never clean', () => {
    const reasons = [...clearBody().reasons, { code: 'FUTURE_CODE', category: 'risk', severity: 'info' }];
    assert.deepEqual(bookingProblems({ request, body: body({ reasons }) }), [
      'unknown reason code FUTURE_CODE: look at it',
    ]);
  });
});
