import type { TransactionCategory } from '../contract/enums.js';
import { base58ToHexAddress, hexToBase58Address, isTronAddress } from '../tron/address.js';
import { decodeTokenTransferCall, readTransferLog } from '../tron/abi.js';
import { categoryOf } from './categories.js';
import type { Transfer } from './facts.js';
import type { NodeTransactionInfo } from './node-codecs.js';
import type { TokenRef } from './token-metadata.js';
import type { ContractView } from './verify.js';

/** A transfer before its position and token metadata are attached. Addresses base58. */
export interface RawTransfer extends Pick<
  Transfer,
  'assetType' | 'source' | 'sender' | 'recipient' | 'tokenContract' | 'tokenId' | 'rawAmount'
> {
  /** Where its metadata comes from; null for TRX. */
  token: TokenRef | null;
}

export interface Normalized {
  transfers: RawTransfer[];
  category: TransactionCategory;
  /** See `ChainFacts.primaryTransfer`. */
  primary: number | null;
  /** Parts of the evidence that could not be read (→ `missing`). */
  unreadable: string[];
  /**
   * Accounts the execution involved without a fungible transfer (base58, may repeat): both parties
   * and the emitter of an ERC-721 Transfer log, the emitter of every other log, the caller and
   * callee of internal transactions (rejected ones too: nothing moved, but the call was made).
   */
  involved: string[];
}

/** base58 of an address in any form java-tron prints (41-hex, 20-byte log hex, or base58 with visible=true). */
function base58(address: string | null | undefined): string | null {
  if (!address) return null;
  return isTronAddress(address) ? address : hexToBase58Address(address);
}

const evm20 = (address: string | null): string | null => {
  if (!address) return null;
  if (/^41[0-9a-f]{40}$/i.test(address)) return address.slice(2).toLowerCase();
  return /^[0-9a-f]{40}$/i.test(address) ? address.toLowerCase() : null;
};

const trc10 = (id: string): Pick<RawTransfer, 'assetType' | 'tokenId' | 'token' | 'tokenContract'> => ({
  assetType: 'trc10',
  tokenId: id,
  tokenContract: null,
  token: { kind: 'trc10', id },
});
const trx: Pick<RawTransfer, 'assetType' | 'tokenId' | 'token' | 'tokenContract'> = {
  assetType: 'trx',
  tokenId: null,
  tokenContract: null,
  token: null,
};

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
 * The value movements of a transaction, in a stable order: the contract's own transfer (TRX, TRC10,
 * or the call value of a contract call), then every TRC20 `Transfer` log in log order (whatever
 * contract emitted it: the emitter is the token), then internal TRX/TRC10 transfers that were not
 * rejected. A failed transaction moved nothing. Also decides the category and the primary transfer,
 * and lists the accounts the execution involved without a fungible transfer (`involved`).
 */
export function normalizeTransfers(
  view: ContractView | null,
  info: NodeTransactionInfo | null,
  failed: boolean,
): Normalized {
  const type = view?.type ?? 'unknown';
  const transfers: RawTransfer[] = [];
  const unreadable: string[] = [];
  const involved: string[] = [];
  let category: TransactionCategory = view ? categoryOf(type) : 'unknown';
  if (!view || failed) return { transfers, category, primary: null, unreadable, involved };

  const owner = base58(view.owner);
  if (type === 'TransferContract' && view.amount !== null) {
    transfers.push({ ...trx, source: 'contract', sender: owner, recipient: base58(view.to), rawAmount: view.amount });
  } else if (type === 'TransferAssetContract' && view.amount !== null) {
    if (view.assetId === null) unreadable.push('TRC10 asset id of the transfer');
    else
      transfers.push({
        ...trc10(view.assetId),
        source: 'contract',
        sender: owner,
        recipient: base58(view.to),
        rawAmount: view.amount,
      });
  } else if (type === 'TriggerSmartContract') {
    const target = base58(view.contractAddress);
    if (view.callValue > 0n) {
      transfers.push({ ...trx, source: 'contract', sender: owner, recipient: target, rawAmount: view.callValue });
    }
    if (view.callTokenValue > 0n && view.tokenId !== null) {
      transfers.push({
        ...trc10(view.tokenId),
        source: 'contract',
        sender: owner,
        recipient: target,
        rawAmount: view.callTokenValue,
      });
    }
  }
  const contractTransfers = transfers.length;

  const call = type === 'TriggerSmartContract' && view.data ? decodeTokenTransferCall(view.data) : null;
  const called = evm20(view.contractAddress);
  const callFrom = call ? (call.from ?? evm20(view.owner)) : null;
  let matching: number | null = null;

  (info?.log ?? []).forEach((log, i) => {
    const reading = readTransferLog(log.topics ?? [], log.data ?? '');
    const emitter = base58(log.address);
    if (emitter === null) {
      unreadable.push(`log ${i}: unreadable emitter address`);
      return;
    }
    if (reading.kind === 'other') {
      involved.push(emitter);
      return;
    }
    if (reading.kind === 'malformed') {
      unreadable.push(`log ${i}: Transfer event with an unexpected shape`);
      return;
    }
    if (reading.kind === 'token_id') {
      involved.push(emitter, hexToBase58Address(reading.from) as string, hexToBase58Address(reading.to) as string);
      return;
    }
    const { from, to, amount } = reading.event;
    const emitterHex = base58ToHexAddress(emitter) as string;
    if (matching === null && call && emitterHex.slice(2) === called && to === call.to && from === callFrom) {
      matching = transfers.length;
    }
    transfers.push({
      assetType: 'trc20',
      source: 'log',
      sender: hexToBase58Address(from),
      recipient: hexToBase58Address(to),
      tokenContract: emitter,
      tokenId: null,
      token: { kind: 'trc20', contractHex: emitterHex },
      rawAmount: amount,
    });
  });

  for (const [i, internal] of (info?.internal_transactions ?? []).entries()) {
    if (internal.rejected) {
      // Nothing moved, but the transaction still tried to deal with these accounts: they are screened.
      for (const address of [internal.caller_address, internal.transferTo_address]) {
        const party = base58(address);
        if (party !== null) involved.push(party);
      }
      continue;
    }
    const transfersBefore = transfers.length;
    for (const value of internal.callValueInfo ?? []) {
      const amount = value.callValue ?? 0;
      if (amount <= 0) continue;
      if (!Number.isSafeInteger(amount)) {
        unreadable.push(`internal transaction ${i}: amount beyond exact JSON range`);
        continue;
      }
      // TRX has no token id (absent, or "_" as java-tron names TRX in asset fields); a TRC10 id is a number.
      const tokenId = value.tokenId ?? '_';
      if (tokenId !== '_' && !/^[1-9][0-9]{0,18}$/.test(tokenId)) {
        unreadable.push(
          `internal transaction ${i}: token id ${JSON.stringify(tokenId.slice(0, 40))} is not a TRC10 id`,
        );
        continue;
      }
      const asset = tokenId === '_' ? trx : trc10(tokenId);
      transfers.push({
        ...asset,
        source: 'internal',
        sender: base58(internal.caller_address),
        recipient: base58(internal.transferTo_address),
        rawAmount: BigInt(amount),
      });
    }
    // Value or not, a call names whom it talks to (the provider drops parties of the transfers above;
    // their unreadable parties are reported per transfer below).
    for (const [field, address] of [
      ['caller', internal.caller_address],
      ['callee', internal.transferTo_address],
    ] as const) {
      const party = base58(address);
      if (party !== null) involved.push(party);
      else if (transfers.length === transfersBefore)
        unreadable.push(`internal transaction ${i}: ${field} address unreadable`);
    }
  }

  // A token transfer call that emitted no matching Transfer event: either a token that moves nothing
  // and says so only in its return value (a "fake deposit") or one that logs nothing. Its effect is unknown.
  // (Without a tx info the call has not executed yet: nothing could have been emitted.)
  if (call && matching === null && info !== null)
    unreadable.push('the token transfer the call asked for emitted no matching Transfer event: its effect is unknown');
  // These move TRX or TRC10 between parties in ways not normalized into transfers: the list is not the whole story.
  if (VALUE_MOVED_UNLISTED.has(type)) unreadable.push(`the value a ${type} moves (not listed as transfers)`);

  // An unreadable party cannot be screened: the transfer stays, and the gap is reported.
  transfers.forEach((t, i) => {
    const parties = [t.sender === null && 'sender', t.recipient === null && 'recipient'].filter(Boolean);
    if (parties.length > 0) unreadable.push(`transfer ${i}: ${parties.join(' and ')} unreadable`);
  });

  if (matching !== null) category = 'trc20_transfer';
  let primary: number | null = null;
  if ((category === 'trx_transfer' || category === 'trc10_transfer') && contractTransfers > 0) primary = 0;
  else if (matching !== null) primary = matching;
  else if (transfers.length === 1) primary = 0;
  return { transfers, category, primary, unreadable, involved };
}
