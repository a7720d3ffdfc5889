import { err, ok, type Result } from 'neverthrow';
import { repeatedKey } from '../repeated-key.js';
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
  if (repeatedKey(text)) return err(requestError('validation_error', 'request body repeats a field'));
  return ok(value);
}
