import { base58 } from '@scure/base';
import { createHash } from 'node:crypto';

/**
 * TRON addresses: 0x41 ‖ 20-byte account id, shown as base58check (34 chars, `T…`),
 * as hex (`41` + 40 hex) in java-tron's visible=false JSON, and as 20-byte hex (no `41`)
 * in EVM logs and ABI words.
 */
const VERSION_BYTE = 0x41;
const BASE58_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

const sha256 = (data: Uint8Array): Uint8Array => createHash('sha256').update(data).digest();

function checksum(payload: Uint8Array): Uint8Array {
  return sha256(sha256(payload)).subarray(0, 4);
}

/** The 21-byte payload of a valid base58check TRON address, or null. */
export function decodeBase58Address(value: string): Uint8Array | null {
  if (!BASE58_ADDRESS.test(value)) return null;
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(value);
  } catch {
    return null;
  }
  if (bytes.length !== 25 || bytes[0] !== VERSION_BYTE) return null;
  const payload = bytes.subarray(0, 21);
  const expected = checksum(payload);
  for (let i = 0; i < 4; i++) if (bytes[21 + i] !== expected[i]) return null;
  return payload;
}

export function isTronAddress(value: string): boolean {
  return decodeBase58Address(value) !== null;
}

/** base58check of a 21-byte payload that starts with 0x41. */
export function encodeBase58Address(payload: Uint8Array): string {
  if (payload.length !== 21 || payload[0] !== VERSION_BYTE) {
    throw new Error('a TRON address payload is 21 bytes starting with 0x41');
  }
  const full = new Uint8Array(25);
  full.set(payload);
  full.set(checksum(payload), 21);
  return base58.encode(full);
}

const HEX41 = /^41[0-9a-fA-F]{40}$/;
const HEX20 = /^[0-9a-fA-F]{40}$/;

/**
 * Base58 form of an address given as java-tron hex (`41…`, 42 chars) or as a 20-byte
 * EVM/log form (40 chars). Null for anything else.
 */
export function hexToBase58Address(hex: string): string | null {
  let body: string;
  if (HEX41.test(hex)) body = hex;
  else if (HEX20.test(hex)) body = `41${hex}`;
  else return null;
  return encodeBase58Address(Buffer.from(body, 'hex'));
}

/** `41…` hex form (lower case) of a base58 address, or null when it is not valid. */
export function base58ToHexAddress(address: string): string | null {
  const payload = decodeBase58Address(address);
  return payload ? Buffer.from(payload).toString('hex') : null;
}
