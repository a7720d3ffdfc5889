import type { Gap } from '../facts.js';
import type { NodeInternalTransaction } from '../node-codecs.js';
import { hexToText } from '../../tron/abi.js';
import { base58, gap, TRX, trc10, type RawTransfer, type SourceReading } from './raw.js';

/** TRX has no token id (absent, or "_" as java-tron names TRX in asset fields); a TRC10 id is a number. */
const TRC10_ID = /^[1-9][0-9]{0,18}$/;

/**
 * What java-tron's `note` (Program.java's `addInternalTx`, printed as the hex of its text) says a
 * record is. Only `call`, `create` and `suicide` move their `callValueInfo` from caller to callee.
 * The TVM's staking, resource and governance steps record an amount staked, unstaked or delegated
 * (or 0), which no party received: read as a payment, delegating 100 TRX worth of energy to a
 * merchant would pay it 100 TRX. `withdrawExpireUnfreezeWhileSuiciding`'s amount is already in its
 * `suicide` record.
 */
type InternalKind = 'moves_value' | 'resource_step' | 'unknown';

const MOVES_VALUE = new Set(['call', 'create', 'suicide']);
const RESOURCE = '(?:Bandwidth|Energy|TronPower|UnknownType)';
const RESOURCE_STEP = new RegExp(
  `^(?:(?:freezeFor|unfreezeFor|freezeBalanceV2For|unfreezeBalanceV2For)${RESOURCE}` +
    `|(?:delegateResourceOf|unDelegateResourceOf)${RESOURCE}` +
    '|withdrawExpireUnfreeze(?:WhileUnfreezing|WhileCanceling|WhileSuiciding)?' +
    '|cancelAllUnfreezeV2|withdrawReward|voteWitness)$',
);
function kindOf(note: string | undefined): InternalKind {
  const text = note === undefined ? null : hexToText(note);
  if (text === null) return 'unknown';
  if (MOVES_VALUE.has(text)) return 'moves_value';
  return RESOURCE_STEP.test(text) ? 'resource_step' : 'unknown';
}

/**
 * The TRX and TRC10 value the internal transactions moved, in order. A rejected one moved nothing,
 * but the transaction still tried to deal with its caller and callee: they are involved (screened).
 * Every other one names its caller and callee too, value or not; a resource step (a vote has no
 * callee) needs only its caller. A record whose note is missing or unknown and that carries a value
 * is a gap: whether that value moved cannot be told.
 */
export function internalTransfers(internals: readonly NodeInternalTransaction[]): SourceReading {
  const reading: SourceReading = { transfers: [], gaps: [], involved: [] };
  internals.forEach((internal, i) => {
    const parties = [base58(internal.caller_address), base58(internal.transferTo_address)];
    reading.involved.push(...parties.filter((p): p is string => p !== null));
    if (internal.rejected) return;
    const kind = kindOf(internal.note);
    const moved = kind === 'moves_value' ? valuesOf(internal, i) : unreadValue(internal, i, kind);
    reading.transfers.push(...moved.transfers);
    reading.gaps.push(...moved.gaps);
    const required = kind === 'resource_step' ? (['caller'] as const) : (['caller', 'callee'] as const);
    // A party of a listed transfer that cannot be read is reported per transfer (see `partyGaps`).
    required.forEach((field, p) => {
      if (parties[p] === null && moved.transfers.length === 0) {
        reading.gaps.push(
          gap('internal_transaction_unreadable', `internal transaction ${i}: ${field} address unreadable`),
        );
      }
    });
  });
  return reading;
}

/** A record that moves no value: a gap when it carries one all the same under a note not known. */
function unreadValue(
  internal: NodeInternalTransaction,
  i: number,
  kind: InternalKind,
): Omit<SourceReading, 'involved'> {
  const valued = (internal.callValueInfo ?? []).some((value) => (value.callValue ?? 0) !== 0);
  if (kind === 'resource_step' || !valued) return { transfers: [], gaps: [] };
  const note =
    internal.note === undefined ? 'no note' : `the unknown note ${JSON.stringify(internal.note.slice(0, 80))}`;
  const detail = `internal transaction ${i}: a value with ${note}, so whether it moved is unknown`;
  return { transfers: [], gaps: [gap('internal_transaction_unreadable', detail)] };
}

function valuesOf(internal: NodeInternalTransaction, i: number): Omit<SourceReading, 'involved'> {
  const transfers: RawTransfer[] = [];
  const gaps: Gap[] = [];
  for (const value of internal.callValueInfo ?? []) {
    const amount = value.callValue ?? 0;
    if (amount <= 0) continue;
    if (!Number.isSafeInteger(amount)) {
      gaps.push(gap('internal_transaction_unreadable', `internal transaction ${i}: amount beyond exact JSON range`));
      continue;
    }
    const tokenId = value.tokenId ?? '_';
    if (tokenId !== '_' && !TRC10_ID.test(tokenId)) {
      const shown = JSON.stringify(tokenId.slice(0, 40));
      gaps.push(
        gap('internal_transaction_unreadable', `internal transaction ${i}: token id ${shown} is not a TRC10 id`),
      );
      continue;
    }
    transfers.push({
      ...(tokenId === '_' ? TRX : trc10(tokenId)),
      source: 'internal',
      sender: base58(internal.caller_address),
      recipient: base58(internal.transferTo_address),
      rawAmount: BigInt(amount),
    });
  }
  return { transfers, gaps };
}
