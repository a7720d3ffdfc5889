import { err, ok, type Result } from 'neverthrow';
import type { ChainFacts, Transfer } from '../chain/facts.js';
import { parseAmount, TRX_DECIMALS } from '../tron/amount.js';
import type { AssessmentRejection, Expectations, TransferSelection } from './input.js';

/** `true` matches, `false` checked and differs, `null` not supplied or not enough data. */
export type Comparison = boolean | null;

export interface TransferComparison {
  recipient: Comparison;
  token: Comparison;
  amount: Comparison;
}

/** The expected-payment answer of a check: one selected transfer and its three comparisons. */
export interface ExpectedPaymentMatch {
  selection: TransferSelection;
  recipient: Comparison;
  token: Comparison;
  amount: Comparison;
  /**
   * A supplied expectation could not be compared, or another transfer that cannot be decided may
   * satisfy them too (EXPECTED_DATA_UNAVAILABLE, coverage partial).
   */
  dataUnavailable: boolean;
}

const FIELDS = ['recipient', 'token', 'amount'] as const;

function supplied(expectations: Expectations): Record<keyof TransferComparison, boolean> {
  return {
    recipient: expectations.recipient !== null,
    token: expectations.tokenContract !== null,
    amount: expectations.amount !== null,
  };
}

function suppliedFields(expectations: Expectations): (keyof TransferComparison)[] {
  const fields: (keyof TransferComparison)[] = [];
  if (expectations.recipient !== null) fields.push('recipient');
  if (expectations.tokenContract !== null) fields.push('token');
  if (expectations.amount !== null) fields.push('amount');
  return fields;
}

export function hasExpectations(expectations: Expectations): boolean {
  return expectations.recipient !== null || expectations.tokenContract !== null || expectations.amount !== null;
}

/** TRX and TRC10 have no contract, so they never match an expected contract; a TRC20 without one is unknown. */
function compareContract(transfer: Transfer, expected: string): Comparison {
  if (transfer.tokenContract !== null) return transfer.tokenContract === expected;
  return transfer.assetType === 'trc20' ? null : false;
}

/**
 * Raw units in the transfer's own decimals; an amount finer than those decimals cannot equal it.
 * Without an expected contract the amount is one of TRX, the network's own asset: 100 of any token
 * is not the 100 TRX a merchant who cannot name TRX by contract asked for.
 */
function compareAmount(transfer: Transfer, expected: string, inToken: boolean): Comparison {
  if (!inToken && transfer.assetType !== 'trx') return false;
  if (transfer.decimals === null) return null;
  return parseAmount(expected, transfer.decimals).match(
    (raw) => raw === transfer.rawAmount,
    (error) => {
      if (error.kind === 'excess_precision') return false;
      throw new Error(`expected amount was not syntax-validated: ${JSON.stringify(expected)}`);
    },
  );
}

/**
 * A transfer from the recipient to itself pays it nothing: anyone may have a contract move its own
 * funds to itself (a gateway's public self-call, a token's self-transfer). With an unreadable sender
 * that cannot be ruled out.
 */
function compareRecipient(transfer: Transfer, expected: string): Comparison {
  if (transfer.recipient !== expected) return transfer.recipient === null ? null : false;
  if (transfer.sender === null) return null;
  return transfer.sender !== transfer.recipient;
}

/** Each supplied expectation against one transfer. */
export function compareTransfer(transfer: Transfer, expectations: Expectations): TransferComparison {
  const { recipient, tokenContract, amount } = expectations;
  return {
    recipient: recipient === null ? null : compareRecipient(transfer, recipient),
    token: tokenContract === null ? null : compareContract(transfer, tokenContract),
    amount: amount === null ? null : compareAmount(transfer, amount, tokenContract !== null),
  };
}

function matchCount(comparison: TransferComparison): number {
  return FIELDS.filter((field) => comparison[field] === true).length;
}

function satisfiesAll(comparison: TransferComparison, expectations: Expectations): boolean {
  return (
    (expectations.recipient === null || comparison.recipient === true) &&
    (expectations.tokenContract === null || comparison.token === true) &&
    (expectations.amount === null || comparison.amount === true)
  );
}

const byIndex = (a: Transfer, b: Transfer) => a.index - b.index;

/** The transfers by index (the list itself when it is in that order already, as the chain facts give it). */
function inIndexOrder(transfers: readonly Transfer[]): readonly Transfer[] {
  for (let i = 1; i < transfers.length; i++) {
    if (transfers[i - 1]!.index > transfers[i]!.index) return [...transfers].sort(byIndex);
  }
  return transfers;
}

/** `compareTransfer` against one set of expectations, each transfer compared once. */
type Comparer = (transfer: Transfer) => TransferComparison;

function comparer(expectations: Expectations): Comparer {
  const compared = new Map<Transfer, TransferComparison>();
  return (transfer) => {
    let comparison = compared.get(transfer);
    if (comparison === undefined) compared.set(transfer, (comparison = compareTransfer(transfer, expectations)));
    return comparison;
  };
}

/**
 * The transfer a check is about (matching rules 1–3). Without expectations: the facts' primary
 * transfer. Otherwise the first transfer (by index) satisfying every supplied expectation, else
 * the one with the most matches (ties: lowest index). Unknown comparisons count as no match.
 */
export function selectTransfer(facts: ChainFacts, expectations: Expectations): TransferSelection {
  return selectWith(facts, expectations, (transfer) => compareTransfer(transfer, expectations));
}

function selectWith(facts: ChainFacts, expectations: Expectations, compare: Comparer): TransferSelection {
  if (!hasExpectations(expectations)) return primarySelection(facts);
  const ordered = inIndexOrder(facts.transfers);
  const scored = ordered.map((transfer) => ({ transfer, comparison: compare(transfer) }));
  const full = scored.filter(({ comparison }) => satisfiesAll(comparison, expectations));
  if (full.length > 0) return { transfer: full[0]!.transfer, ambiguous: full.length > 1 };
  let best: (typeof scored)[number] | null = null;
  for (const candidate of scored) {
    if (best === null || matchCount(candidate.comparison) > matchCount(best.comparison)) best = candidate;
  }
  return { transfer: best?.transfer ?? null, ambiguous: false };
}

/** Without expectations, the facts' primary transfer (rule 1). */
function primarySelection(facts: ChainFacts): TransferSelection {
  for (const transfer of facts.transfers) {
    if (transfer.index === facts.primaryTransfer) return { transfer, ambiguous: false };
  }
  return { transfer: null, ambiguous: false };
}

const MOVES_BY_BODY = new Set(['TransferContract', 'TransferAssetContract']);

/**
 * A list that may hide transfers (truncated, facts missing or contradictory, state not established):
 * the absence of a matching transfer in it proves nothing.
 */
function transferListComplete(facts: ChainFacts): boolean {
  // A pending transaction not yet in a block has no tx info: only a plain TRX/TRC10 transfer's body
  // says what it moves; a contract call's Transfer logs and internal transfers are still unknown.
  const executionUnknown =
    facts.state === 'pending' && facts.blockNumber === null && !MOVES_BY_BODY.has(facts.transactionType);
  return (
    !executionUnknown &&
    !facts.transfersTruncated &&
    facts.missing.length === 0 &&
    facts.disagreements.length === 0 &&
    facts.verified &&
    facts.state !== 'not_found' &&
    facts.state !== 'unknown'
  );
}

/**
 * A listed transfer that no supplied comparison rules out but one cannot decide (unreadable recipient,
 * contract or decimals): it may be the expected payment, so no `false` of another transfer is proof.
 */
function undecidedFields(
  facts: ChainFacts,
  expectations: Expectations,
  compare: Comparer,
): Set<keyof TransferComparison> {
  const wanted = suppliedFields(expectations);
  const open = new Set<keyof TransferComparison>();
  for (const transfer of facts.transfers) {
    const comparison = compare(transfer);
    if (wanted.some((field) => comparison[field] === false)) continue;
    for (const field of wanted) if (comparison[field] === null) open.add(field);
  }
  return open;
}

/**
 * Decimals the expected amount is written in, when they are certain: TRX's without an expected
 * contract; else the expected token's, read from any listed transfer of that exact contract.
 */
function expectedAmountDecimals(facts: ChainFacts, expectations: Expectations): number | null {
  if (expectations.tokenContract === null) return TRX_DECIMALS;
  // Contradictory sources (e.g. decimals that differ from the official token's): nothing is certain.
  if (facts.disagreements.length > 0) return null;
  const ofToken = inIndexOrder(facts.transfers).find(
    (transfer) => transfer.tokenContract === expectations.tokenContract && transfer.decimals !== null,
  );
  return ofToken?.decimals ?? null;
}

/**
 * Matching rules 1–10 for one check: the selection, its three comparisons, and the 422 for an
 * expected amount with more nonzero precision than its asset's known decimals.
 */
export function matchExpectations(
  facts: ChainFacts,
  expectations: Expectations,
): Result<ExpectedPaymentMatch, AssessmentRejection> {
  // Nothing supplied, nothing compared: every comparison below would be null and none unavailable.
  if (!hasExpectations(expectations)) {
    return ok({
      selection: primarySelection(facts),
      recipient: null,
      token: null,
      amount: null,
      dataUnavailable: false,
    });
  }
  const compare = comparer(expectations);
  const selection = selectWith(facts, expectations, compare);
  const selected = selection.transfer;

  if (expectations.amount !== null) {
    const decimals = expectedAmountDecimals(facts, expectations);
    if (decimals !== null && parseAmount(expectations.amount, decimals).isErr()) {
      return err({
        code: 'invalid_expected_amount',
        message: `expected_amount has more decimal places than the asset supports (${decimals})`,
      });
    }
  }

  const wanted = supplied(expectations);
  const open = undecidedFields(facts, expectations, compare);
  const compared = selected === null ? null : compare(selected);
  // A full match beside an undecided twin: whether the payment is ambiguous cannot be known, so the
  // comparisons the twin leaves open could not be completed (null, EXPECTED_DATA_UNAVAILABLE).
  const twinOpen = !selection.ambiguous && compared !== null && satisfiesAll(compared, expectations) ? open : NONE;
  const decided = { wanted, compared, mismatchProven: transferListComplete(facts) && open.size === 0, twinOpen };
  const recipient = comparisonOf('recipient', decided);
  const token = comparisonOf('token', decided);
  const amount = comparisonOf('amount', decided);
  const dataUnavailable =
    (wanted.recipient && recipient === null) || (wanted.token && token === null) || (wanted.amount && amount === null);
  return ok({ selection, recipient, token, amount, dataUnavailable });
}

const NONE: ReadonlySet<keyof TransferComparison> = new Set();

/** One field's comparison: null when not asked, or when a transfer the facts leave open may be the payment. */
function comparisonOf(
  name: keyof TransferComparison,
  decided: {
    wanted: Record<keyof TransferComparison, boolean>;
    compared: TransferComparison | null;
    mismatchProven: boolean;
    twinOpen: ReadonlySet<keyof TransferComparison>;
  },
): Comparison {
  if (!decided.wanted[name] || decided.twinOpen.has(name)) return null;
  // No transfer at all: a complete list proves nothing matches.
  const value = decided.compared === null ? false : decided.compared[name];
  // The payment may be a hidden or undecided transfer: `false` is then not proven.
  return value === false && !decided.mismatchProven ? null : value;
}
