/**
 * Defensive decoding of the ABI values a payment check reads from TRC20 contracts and logs.
 * A contract is arbitrary code: every return may be short, oversized, bytes32-style or garbage,
 * so each decoder answers null instead of throwing or guessing.
 */
import { MAX_DECIMALS } from './amount.js';

const WORD = 64; // hex chars per 32-byte word
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Keccak selectors of the TRC20 functions and event we read. */
export const SELECTORS = {
  transfer: 'a9059cbb',
  transferFrom: '23b872dd',
  approve: '095ea7b3',
  /** ERC-721 safeTransferFrom(address,address,uint256) and (…,bytes). */
  safeTransferFrom: '42842e0e',
  safeTransferFromData: 'b88d4fde',
  /** ERC-1155 safeTransferFrom(address,address,uint256,uint256,bytes) and safeBatchTransferFrom(…). */
  safeTransferFrom1155: 'f242432a',
  safeBatchTransferFrom: '2eb2c2d6',
  setApprovalForAll: 'a22cb465',
  /** Error(string): a revert reason, never a value. */
  error: '08c379a0',
} as const;
export const TRANSFER_EVENT_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const clean = (hex: string): string | null => {
  const body = hex.startsWith('0x') ? hex.slice(2) : hex;
  return HEX.test(body) ? body.toLowerCase() : null;
};

/** A single uint256 word; null unless exactly one 32-byte word. */
export function decodeUint256(hex: string): bigint | null {
  const body = clean(hex);
  if (body === null || body.length !== WORD) return null;
  return BigInt(`0x${body}`);
}

/** The low 20 bytes of an address word, as 40 hex chars; null when the high 12 bytes hold anything but 0 or a 0x41 prefix byte. */
export function decodeAddressWord(hex: string): string | null {
  const body = clean(hex);
  if (body === null || body.length !== WORD) return null;
  const high = body.slice(0, 24);
  // java-tron call data sometimes carries the 0x41 prefix in the address word.
  if (high !== '0'.repeat(24) && high !== `${'0'.repeat(22)}41`) return null;
  return body.slice(24);
}

/** decimals(): a uint in 0..MAX_DECIMALS. */
export function decodeDecimals(hex: string): number | null {
  const body = clean(hex);
  if (body === null || body.length < WORD || body.startsWith(SELECTORS.error)) return null;
  // Some tokens return a wider tuple; ABI decoders read the first word.
  const value = decodeUint256(body.slice(0, WORD));
  return value !== null && value <= BigInt(MAX_DECIMALS) ? Number(value) : null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const MAX_TEXT_BYTES = 256;

/**
 * Printable UTF-8 text of some bytes; null for invalid UTF-8 or oversize values. Control characters (C0, DEL,
 * C1) become U+FFFD: they would corrupt logs, terminals and responses, yet the text around them is what the
 * token shows its holders, so it is still judged (`USDT\t` imitates USDT) and shown with the replacement.
 */
export function bytesToText(bytes: Uint8Array): string | null {
  if (bytes.length > MAX_TEXT_BYTES) return null;
  try {
    return utf8.decode(bytes).replace(/\p{Cc}/gu, '\uFFFD');
  } catch {
    return null;
  }
}

/** The bytes without their trailing zero bytes (padding). */
function withoutTrailingZeros(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return bytes.subarray(0, end);
}

/**
 * symbol()/name(): an ABI `string` (offset, length, bytes) or, as some old tokens do, a `bytes32`
 * right-padded with zeros. Null for anything else (revert data, bad offsets, invalid UTF-8). Zero bytes
 * at the end of a string are padding too (a bytes32 converted whole: `USDT\0…`), and are dropped.
 */
export function decodeAbiString(hex: string): string | null {
  const body = clean(hex);
  if (body === null || body.length === 0 || body.startsWith(SELECTORS.error)) return null;
  const bytes = Buffer.from(body, 'hex');
  if (bytes.length === 32) {
    const text = withoutTrailingZeros(bytes);
    // A bytes32 symbol is text followed only by zero bytes.
    return text.length === 0 || text.includes(0) ? null : bytesToText(text);
  }
  if (bytes.length < 64 || bytes.length % 32 !== 0) return null;
  const offset = BigInt(`0x${body.slice(0, WORD)}`);
  if (offset % 32n !== 0n || offset + 32n > BigInt(bytes.length)) return null;
  const start = Number(offset);
  const length = BigInt(`0x${bytes.subarray(start, start + 32).toString('hex')}`);
  if (length > BigInt(bytes.length - start - 32)) return null;
  const value = withoutTrailingZeros(bytes.subarray(start + 32, start + 32 + Number(length)));
  return value.length === 0 ? null : bytesToText(value);
}

/** Text of a java-tron visible=false bytes field (hex); null when not hex or not UTF-8 text (see `bytesToText`). */
export function hexToText(hex: string): string | null {
  const body = clean(hex);
  return body === null || body.length === 0 ? null : bytesToText(Buffer.from(body, 'hex'));
}

/** A decoded `transfer(address,uint256)` or `transferFrom(address,address,uint256)` call. */
export interface TokenTransferCall {
  selector: typeof SELECTORS.transfer | typeof SELECTORS.transferFrom;
  /** 20-byte hex; null for `transfer`, where the sender is the caller. */
  from: string | null;
  to: string;
  amount: bigint;
}

/** The token-transfer call in TriggerSmartContract data; null for any other call or malformed arguments. */
export function decodeTokenTransferCall(data: string): TokenTransferCall | null {
  const body = clean(data);
  if (body === null) return null;
  const selector = body.slice(0, 8);
  const words = body.slice(8);
  const word = (i: number) => words.slice(i * WORD, (i + 1) * WORD);
  if (selector === SELECTORS.transfer && words.length >= 2 * WORD) {
    const to = decodeAddressWord(word(0));
    const amount = decodeUint256(word(1));
    return to !== null && amount !== null ? { selector, from: null, to, amount } : null;
  }
  if (selector === SELECTORS.transferFrom && words.length >= 3 * WORD) {
    const from = decodeAddressWord(word(0));
    const to = decodeAddressWord(word(1));
    const amount = decodeUint256(word(2));
    return from !== null && to !== null && amount !== null ? { selector, from, to, amount } : null;
  }
  return null;
}

/** How many leading address arguments each call that names accounts has (transfer's `to`, approve's spender, …). */
const ADDRESS_ARGUMENTS: Record<string, number> = {
  [SELECTORS.transfer]: 1,
  [SELECTORS.approve]: 1,
  [SELECTORS.setApprovalForAll]: 1,
  [SELECTORS.transferFrom]: 2,
  [SELECTORS.safeTransferFrom]: 2,
  [SELECTORS.safeTransferFromData]: 2,
  [SELECTORS.safeTransferFrom1155]: 2,
  [SELECTORS.safeBatchTransferFrom]: 2,
};

/**
 * The accounts a token or NFT call names in its leading address arguments (20-byte hex, in order):
 * `to` of transfer, `from` and `to` of transferFrom/safeTransferFrom, the spender or operator of an
 * approval. For screening, not amounts: a word's low 20 bytes are taken whatever its high bytes,
 * as a contract that masks the argument would. Empty for other calls or a missing argument word.
 */
export function decodeCallAccounts(data: string): string[] {
  const body = clean(data);
  const count = body === null ? undefined : ADDRESS_ARGUMENTS[body.slice(0, 8)];
  if (body === null || count === undefined || body.length < 8 + count * WORD) return [];
  return Array.from({ length: count }, (_, i) => body.slice(8 + i * WORD + 24, 8 + (i + 1) * WORD));
}

/** A Transfer(address,address,uint256) event log. */
export interface TransferEvent {
  from: string;
  to: string;
  amount: bigint;
}

export type TransferLogReading =
  | { kind: 'transfer'; event: TransferEvent }
  /** ERC-721 `Transfer(from, to, tokenId)` (four topics): parties (20-byte hex) but no fungible amount. */
  | { kind: 'token_id'; from: string; to: string }
  /** Carries the Transfer topic but not its shape (wrong topic count, bad address words, tampered data). */
  | { kind: 'malformed' }
  | { kind: 'other' };

/** Reads a log as a Transfer event: topic0, two address topics, one uint256 data word (or a fourth topic: a token id). */
export function readTransferLog(topics: readonly string[], data: string): TransferLogReading {
  if (clean(topics[0] ?? '') !== TRANSFER_EVENT_TOPIC) return { kind: 'other' };
  if (topics.length !== 3 && topics.length !== 4) return { kind: 'malformed' };
  const from = decodeAddressWord(topics[1] ?? '');
  const to = decodeAddressWord(topics[2] ?? '');
  if (topics.length === 4) return from === null || to === null ? { kind: 'malformed' } : { kind: 'token_id', from, to };
  const amount = decodeUint256(data);
  if (from === null || to === null || amount === null) return { kind: 'malformed' };
  return { kind: 'transfer', event: { from, to, amount } };
}

/** ABI encodings the fake node answers with. */
export function encodeUint256(value: bigint): string {
  return value.toString(16).padStart(WORD, '0');
}

export function encodeAbiString(value: string): string {
  const bytes = Buffer.from(value, 'utf8');
  const padded = Math.ceil(bytes.length / 32) * WORD;
  return encodeUint256(32n) + encodeUint256(BigInt(bytes.length)) + bytes.toString('hex').padEnd(padded, '0');
}

export function encodeAddressWord(address20Hex: string): string {
  return address20Hex.toLowerCase().padStart(WORD, '0');
}
