import { base58ToHexAddress, hexToBase58Address } from '../../tron/address.js';
import { decodeTokenTransferCall, readTransferLog, type TokenTransferCall } from '../../tron/abi.js';
import type { NodeLog } from '../node-codecs.js';
import type { ContractView } from '../verify.js';
import { base58, evm20, gap, type RawTransfer, type SourceReading } from './raw.js';

/** The token transfer a contract call asked for: the called contract and the call's from and to (20-byte hex). */
export interface AskedTransfer {
  contract: string | null;
  from: string | null;
  to: string;
}

/** What a `transfer`/`transferFrom` call asks to move, or null for any other transaction. */
export function askedTransfer(view: ContractView): AskedTransfer | null {
  const call: TokenTransferCall | null =
    view.type === 'TriggerSmartContract' && view.data ? decodeTokenTransferCall(view.data) : null;
  if (call === null) return null;
  return { contract: evm20(view.contractAddress), from: call.from ?? evm20(view.owner), to: call.to };
}

export interface LogReading extends SourceReading {
  /** Position (among these transfers) of the first Transfer event that is the one the call asked for. */
  matching: number | null;
}

/**
 * Every TRC20 `Transfer` log, in log order, whatever contract emitted it (the emitter is the token).
 * An ERC-721 Transfer (four topics) moves no fungible value: its emitter and parties are involved;
 * the emitter of any other event is involved too.
 */
export function logTransfers(logs: readonly NodeLog[], asked: AskedTransfer | null): LogReading {
  const reading: LogReading = { transfers: [], gaps: [], involved: [], matching: null };
  logs.forEach((log, i) => {
    const emitter = base58(log.address);
    if (emitter === null) return void reading.gaps.push(gap('log_unreadable', `log ${i}: unreadable emitter address`));
    const event = readTransferLog(log.topics ?? [], log.data ?? '');
    switch (event.kind) {
      case 'other':
        return void reading.involved.push(emitter);
      case 'malformed':
        return void reading.gaps.push(gap('log_unreadable', `log ${i}: Transfer event with an unexpected shape`));
      case 'token_id':
        return void reading.involved.push(emitter, hexToBase58Address(event.from)!, hexToBase58Address(event.to)!);
      case 'transfer': {
        const transfer = tokenTransfer(emitter, event.event);
        if (reading.matching === null && isAsked(asked, transfer, event.event)) {
          reading.matching = reading.transfers.length;
        }
        return void reading.transfers.push(transfer);
      }
    }
  });
  return reading;
}

function tokenTransfer(emitter: string, event: { from: string; to: string; amount: bigint }): RawTransfer {
  return {
    assetType: 'trc20',
    source: 'log',
    sender: hexToBase58Address(event.from),
    recipient: hexToBase58Address(event.to),
    tokenContract: emitter,
    tokenId: null,
    token: { kind: 'trc20', contractHex: base58ToHexAddress(emitter)! },
    rawAmount: event.amount,
  };
}

/** The called contract emitted it, between the parties the call named. */
function isAsked(asked: AskedTransfer | null, transfer: RawTransfer, event: { from: string; to: string }): boolean {
  if (asked === null || transfer.token?.kind !== 'trc20') return false;
  return transfer.token.contractHex.slice(2) === asked.contract && event.from === asked.from && event.to === asked.to;
}
