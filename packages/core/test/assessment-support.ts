// Builders for the assessment tests: a clean, final, fully evidenced USDT payment, changed per test.
import type { ChainFacts, Transfer } from '../src/chain/facts.js';
import type { TransactionCheckResponse } from '../src/contract/models.js';
import { assess } from '../src/assessment/assess.js';
import type { AssessmentInput, Expectations } from '../src/assessment/input.js';
import type { RiskSignals } from '../src/risk/signals.js';

export const ADDR = {
  alice: 'TYPG8VeuoVAh2hP7Vfw6ww7vK98nvXXXUG',
  bob: 'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B',
  carol: 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC',
  dave: 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre',
  erin: 'TJzXt1sZautjqXnpjQT4xSCBHNSYgBkDr3',
  usdt: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  fakeUsdt: 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx',
} as const;

export const TX_HASH = '0130dfde9d5bd6b44f5b3a8ab5d3c5f2f5e6b7b3c0d3a4e5f60718293a4b5c6d';
export const CHECKED_AT = new Date('2026-11-21T12:00:00.000Z');
const OBSERVED_AT = new Date('2026-11-21T11:59:59.000Z');
const HEAD_TIME = new Date('2026-11-21T11:59:58.000Z');

export function usdt(
  index: number,
  sender: string,
  recipient: string,
  rawAmount: bigint,
  extra: Partial<Transfer> = {},
): Transfer {
  return {
    index,
    assetType: 'trc20',
    source: 'log',
    sender,
    recipient,
    tokenContract: ADDR.usdt,
    tokenId: null,
    tokenSymbol: 'USDT',
    tokenName: 'Tether USD',
    decimals: 6,
    rawAmount,
    ...extra,
  };
}

export function trx(index: number, sender: string, recipient: string, rawAmount: bigint): Transfer {
  return {
    index,
    assetType: 'trx',
    source: 'contract',
    sender,
    recipient,
    tokenContract: null,
    tokenId: null,
    tokenSymbol: 'TRX',
    tokenName: 'Tronix',
    decimals: 6,
    rawAmount,
  };
}

export function trc10(
  index: number,
  sender: string,
  recipient: string,
  rawAmount: bigint,
  decimals: number | null,
): Transfer {
  return {
    index,
    assetType: 'trc10',
    source: 'contract',
    sender,
    recipient,
    tokenContract: null,
    tokenId: '1002000',
    tokenSymbol: 'BTT',
    tokenName: 'BitTorrent',
    decimals,
    rawAmount,
  };
}

/** A confirmed, finalized, verified USDT payment alice → bob of 41.677389 USDT. */
export function facts(overrides: Partial<ChainFacts> = {}): ChainFacts {
  return {
    txHash: TX_HASH,
    state: 'confirmed',
    transactionType: 'TriggerSmartContract',
    category: 'trc20_transfer',
    owner: ADDR.alice,
    blockNumber: 60_000_000,
    blockTime: new Date('2026-11-21T11:00:00.000Z'),
    confirmations: 1200,
    finalized: true,
    verified: true,
    disagreements: [],
    missing: [],
    transfers: [usdt(0, ADDR.alice, ADDR.bob, 41_677_389n)],
    transfersTruncated: false,
    primaryTransfer: 0,
    counterparties: [],
    tokenDataAt: new Date('2026-11-21T11:30:00.000Z'),
    observedAt: OBSERVED_AT,
    headTime: HEAD_TIME,
    ...overrides,
  };
}

export function signals(overrides: Partial<RiskSignals> = {}): RiskSignals {
  return {
    sanctions: { status: 'answered', hits: [], asOf: new Date('2026-11-20T00:00:00.000Z') },
    aml: { status: 'answered', level: 'low', exposures: [], asOf: new Date('2026-11-21T11:50:00.000Z') },
    token: { status: 'answered', authenticity: 'official', asOf: new Date('2026-11-01T00:00:00.000Z') },
    ...overrides,
  };
}

export const NONE: Expectations = { recipient: null, tokenContract: null, amount: null };

export function expecting(overrides: Partial<Expectations> = {}): Expectations {
  return { ...NONE, ...overrides };
}

export function input(overrides: Partial<AssessmentInput> = {}): AssessmentInput {
  return {
    requestId: 'req-1',
    txHash: TX_HASH,
    expectations: NONE,
    facts: facts(),
    signals: signals(),
    checkedAt: CHECKED_AT,
    ...overrides,
  };
}

/** The response of a check that must not be rejected. */
export function check(overrides: Partial<AssessmentInput> = {}): TransactionCheckResponse {
  return assess(input(overrides))._unsafeUnwrap();
}

export const codes = (response: TransactionCheckResponse) => response.reasons.map((r) => r.code);
