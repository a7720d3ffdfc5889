import { hexToBase58Address, isTronAddress } from '../../tron/address.js';
import type { Gap, Transfer } from '../facts.js';
import type { TokenRef } from '../token-metadata.js';

/** A transfer before its position and token metadata are attached. Addresses base58. */
export interface RawTransfer extends Pick<
  Transfer,
  'assetType' | 'source' | 'sender' | 'recipient' | 'tokenContract' | 'tokenId' | 'rawAmount'
> {
  /** Where its metadata comes from; null for TRX. */
  token: TokenRef | null;
}

/** What one source of transfers (the contract, the logs, the internal transactions) yields. */
export interface SourceReading {
  transfers: RawTransfer[];
  /** Parts of that source that could not be read. */
  gaps: Gap[];
  /** Accounts it involved without a fungible transfer (base58, may repeat). */
  involved: string[];
}

export const gap = (code: Gap['code'], detail: string): Gap => ({ code, detail });

/** base58 of an address in any form java-tron prints (41-hex, 20-byte log hex, or base58 with visible=true). */
export function base58(address: string | null | undefined): string | null {
  if (!address) return null;
  return isTronAddress(address) ? address : hexToBase58Address(address);
}

/** The 20-byte EVM form (lower-case hex) of a `41…` or 20-byte hex address; null otherwise. */
export function evm20(address: string | null): string | null {
  if (!address) return null;
  if (/^41[0-9a-f]{40}$/i.test(address)) return address.slice(2).toLowerCase();
  return /^[0-9a-f]{40}$/i.test(address) ? address.toLowerCase() : null;
}

type Asset = Pick<RawTransfer, 'assetType' | 'tokenId' | 'token' | 'tokenContract'>;

export const trc10 = (id: string): Asset => ({
  assetType: 'trc10',
  tokenId: id,
  tokenContract: null,
  token: { kind: 'trc10', id },
});

export const TRX: Asset = { assetType: 'trx', tokenId: null, tokenContract: null, token: null };
