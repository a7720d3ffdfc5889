import type { Gap } from '../facts.js';
import type { NodeInternalTransaction } from '../node-codecs.js';
import { base58, gap, TRX, trc10, type RawTransfer, type SourceReading } from './raw.js';

/** TRX has no token id (absent, or "_" as java-tron names TRX in asset fields); a TRC10 id is a number. */
const TRC10_ID = /^[1-9][0-9]{0,18}$/;

/**
 * The TRX and TRC10 value the internal transactions moved, in order. A rejected one moved nothing,
 * but the transaction still tried to deal with its caller and callee: they are involved (screened).
 * Every other one names its caller and callee too, value or not.
 */
export function internalTransfers(internals: readonly NodeInternalTransaction[]): SourceReading {
  const reading: SourceReading = { transfers: [], gaps: [], involved: [] };
  internals.forEach((internal, i) => {
    const parties = [base58(internal.caller_address), base58(internal.transferTo_address)];
    if (internal.rejected) return void reading.involved.push(...parties.filter((p): p is string => p !== null));
    const moved = valuesOf(internal, i);
    reading.transfers.push(...moved.transfers);
    reading.gaps.push(...moved.gaps);
    // A party of a listed transfer that cannot be read is reported per transfer (see `partyGaps`).
    (['caller', 'callee'] as const).forEach((field, p) => {
      const party = parties[p]!;
      if (party !== null) reading.involved.push(party);
      else if (moved.transfers.length === 0) {
        reading.gaps.push(
          gap('internal_transaction_unreadable', `internal transaction ${i}: ${field} address unreadable`),
        );
      }
    });
  });
  return reading;
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
