import type { ContractView } from '../verify.js';
import { base58, gap, TRX, trc10, type SourceReading } from './raw.js';

/**
 * The contract's own transfer: a TRX or TRC10 transfer, or the TRX and TRC10 call value a contract
 * call sends to the contract it calls.
 */
export function contractTransfers(view: ContractView): SourceReading {
  const owner = base58(view.owner);
  const reading: SourceReading = { transfers: [], gaps: [], involved: [] };
  // java-tron refuses a transfer of a negative amount: signed bytes with one were never executed as shown.
  if (view.amount !== null && view.amount < 0n) {
    reading.gaps.push(gap('amount_invalid', `negative amount ${view.amount} in the signed ${view.type}`));
    return reading;
  }
  if (view.type === 'TransferContract' && view.amount !== null) {
    reading.transfers.push({
      ...TRX,
      source: 'contract',
      sender: owner,
      recipient: base58(view.to),
      rawAmount: view.amount,
    });
  } else if (view.type === 'TransferAssetContract' && view.amount !== null) {
    if (view.assetId === null) reading.gaps.push(gap('asset_id_unreadable', 'TRC10 asset id of the transfer'));
    else {
      const to = base58(view.to);
      reading.transfers.push({
        ...trc10(view.assetId),
        source: 'contract',
        sender: owner,
        recipient: to,
        rawAmount: view.amount,
      });
    }
  } else if (view.type === 'TriggerSmartContract') {
    const target = base58(view.contractAddress);
    const sent = { source: 'contract' as const, sender: owner, recipient: target };
    if (view.callValue > 0n) reading.transfers.push({ ...TRX, ...sent, rawAmount: view.callValue });
    if (view.callTokenValue > 0n && view.tokenId !== null) {
      reading.transfers.push({ ...trc10(view.tokenId), ...sent, rawAmount: view.callTokenValue });
    }
  }
  return reading;
}
