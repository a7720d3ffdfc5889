import { err, ok, type Result } from 'neverthrow';
import { requestError, type RequestError } from './request-error.js';

/** Largest accepted request body (spec: 4 KiB). */
export const MAX_BODY_BYTES = 4096;

/** The 422 for a body over the limit, whoever noticed it (here, or an adapter that stopped reading). */
export const payloadTooLarge = (): RequestError =>
  requestError('payload_too_large', `request body is larger than ${MAX_BODY_BYTES} bytes`);

// fatal: invalid UTF-8 is an error, not U+FFFD; ignoreBOM: a BOM stays in the text, so JSON.parse rejects it.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The JSON value of a request body: size first (on the raw bytes, before any decoding), then
 * strict UTF-8, then JSON without a BOM and without repeated keys.
 */
export function parseJsonBody(body: Uint8Array): Result<unknown, RequestError> {
  if (body.byteLength > MAX_BODY_BYTES) return err(payloadTooLarge());
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return err(requestError('validation_error', 'request body is not valid UTF-8'));
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return err(requestError('validation_error', 'request body is not valid JSON'));
  }
  // JSON.parse silently keeps the last of repeated keys; another parser on the way may keep the first.
  if (hasRepeatedKey(text)) return err(requestError('validation_error', 'request body repeats a field'));
  return ok(value);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether an object in a valid JSON text repeats a key (compared after unescaping). One pass over
 * the characters: strings are skipped whole, and a string followed by `:` inside an object is a key.
 */
function hasRepeatedKey(text: string): boolean {
  const open: (Set<string> | null)[] = []; // one entry per open object (its keys) or array (null)
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      const keys = open[open.length - 1];
      if (keys && isKey(text, end + 1)) {
        const token = text.slice(i, end + 1);
        const key = token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
        if (keys.has(key)) return true;
        keys.add(key);
      }
      i = end;
    } else if (c === 0x7b /* { */) open.push(new Set());
    else if (c === 0x5b /* [ */) open.push(null);
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) open.pop();
  }
  return false;
}

/** The index of the quote closing the string that opens at `start` (the text is valid JSON). */
function closingQuote(text: string, start: number): number {
  for (let i = start + 1; ; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
}

/** Whether JSON whitespace and then `:` follow at `from`: the string before was a key. */
function isKey(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3a /* : */) return true;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return false;
}
