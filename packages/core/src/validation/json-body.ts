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

const TOKEN = /"(?:[^"\\]|\\.)*"|[{}[\]]/g;
const COLON = /[ \t\r\n]*:/y;

/** Whether an object in a valid JSON text repeats a key (compared after unescaping). */
function hasRepeatedKey(text: string): boolean {
  const open: (Set<string> | null)[] = []; // one entry per open object (its keys) or array (null)
  for (const match of text.matchAll(TOKEN)) {
    const token = match[0];
    if (token === '{') open.push(new Set());
    else if (token === '[') open.push(null);
    else if (token === '}' || token === ']') open.pop();
    else {
      const keys = open.at(-1);
      if (!keys) continue;
      COLON.lastIndex = match.index + token.length;
      if (!COLON.test(text)) continue; // a string value, not a key
      const key = JSON.parse(token) as string;
      if (keys.has(key)) return true;
      keys.add(key);
    }
  }
  return false;
}
