import type { TransactionCategory } from '../../contract/enums.js';
import { categoryOf } from '../categories.js';
import type { Gap } from '../facts.js';
import type { NodeTransactionInfo } from '../node-codecs.js';
import type { ContractView } from '../verify.js';
import { contractTransfers } from './contract.js';
import { internalTransfers } from './internal.js';
import { askedTransfer, logTransfers } from './logs.js';
import { categoryAndPrimary } from './primary.js';
import { gap, type RawTransfer } from './raw.js';

export type { RawTransfer } from './raw.js';

export interface Normalized {
  transfers: RawTransfer[];
  category: TransactionCategory;
  /** See `ChainFacts.primaryTransfer`. */
  primary: number | null;
  /** Parts of the evidence that could not be read (→ `missing`). */
  gaps: Gap[];
  /**
   * Accounts the execution involved without a fungible transfer (base58, may repeat): both parties
   * and the emitter of an ERC-721 Transfer log, the emitter of every other log, the caller and
   * callee of internal transactions (rejected ones too: nothing moved, but the call was made).
   */
  involved: string[];
}

/** Contract types that move TRX or TRC10 between parties without being listed as transfers here. */
const VALUE_MOVED_UNLISTED = new Set([
  'CreateSmartContract',
  'ParticipateAssetIssueContract',
  'ExchangeInjectContract',
  'ExchangeWithdrawContract',
  'ExchangeTransactionContract',
  'MarketSellAssetContract',
  'ShieldedTransferContract',
]);

/**
 * The value movements of a transaction, in a stable order, by source: the contract's own transfer,
 * then every TRC20 `Transfer` log, then the internal calls, creations and self-destructs that moved
 * TRX/TRC10 and were not rejected (not the TVM's staking and resource steps: see `internalTransfers`). A
 * failed transaction moved nothing. Also decides the category and the primary transfer, and lists
 * the accounts the execution involved without a fungible transfer (`involved`).
 */
export function normalizeTransfers(
  view: ContractView | null,
  info: NodeTransactionInfo | null,
  failed: boolean,
): Normalized {
  const category: TransactionCategory = view ? categoryOf(view.type) : 'unknown';
  if (!view || failed) return { transfers: [], category, primary: null, gaps: [], involved: [] };
  const asked = askedTransfer(view);
  const own = contractTransfers(view);
  const logs = logTransfers(info?.log ?? [], asked);
  const internal = internalTransfers(info?.internal_transactions ?? []);
  const transfers = [...own.transfers, ...logs.transfers, ...internal.transfers];
  const decided = categoryAndPrimary({
    category,
    contractTransfers: own.transfers.length,
    asked: logs.matching === null ? null : own.transfers.length + logs.matching,
    total: transfers.length,
  });
  const gaps = [
    ...own.gaps,
    ...logs.gaps,
    ...internal.gaps,
    ...listGaps(view.type, { asked: asked !== null, emitted: logs.matching !== null, executed: info !== null }),
    ...partyGaps(transfers),
  ];
  return { transfers, ...decided, gaps, involved: [...logs.involved, ...internal.involved] };
}

/** Why the list may not be the whole story, though every part of it was read. */
function listGaps(type: string, call: { asked: boolean; emitted: boolean; executed: boolean }): Gap[] {
  const gaps: Gap[] = [];
  // A token transfer call that emitted no matching Transfer event: either a token that moves nothing
  // and says so only in its return value (a "fake deposit") or one that logs nothing. Its effect is
  // unknown. (Without a tx info the call has not executed yet: nothing could have been emitted.)
  if (call.asked && !call.emitted && call.executed) {
    const detail = 'the token transfer the call asked for emitted no matching Transfer event: its effect is unknown';
    gaps.push(gap('transfer_event_missing', detail));
  }
  if (VALUE_MOVED_UNLISTED.has(type)) {
    gaps.push(gap('value_not_listed', `the value a ${type} moves (not listed as transfers)`));
  }
  return gaps;
}

/** An unreadable party cannot be screened: the transfer stays, and the gap is reported. */
function partyGaps(transfers: readonly RawTransfer[]): Gap[] {
  return transfers.flatMap((t, i) => {
    const parties = [t.sender === null && 'sender', t.recipient === null && 'recipient'].filter(Boolean);
    return parties.length > 0 ? [gap('party_unreadable', `transfer ${i}: ${parties.join(' and ')} unreadable`)] : [];
  });
}
