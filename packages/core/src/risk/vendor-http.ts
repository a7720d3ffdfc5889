import type * as t from 'io-ts';
import { err, ok, type Result } from 'neverthrow';
import { request } from 'undici';
import { readBodyText } from '../chain/client.js';

/** Vendor answers larger than this are not an answer we can trust to read. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * GET a vendor's JSON and decode it. Every outside failure (network, status, timeout, abort,
 * body that is not what the codec says) comes back as a short reason, never as a throw.
 */
export async function getVendorJson<C extends t.Mixed>(
  url: string,
  headers: Record<string, string>,
  codec: C,
  signal: AbortSignal,
): Promise<Result<t.TypeOf<C>, string>> {
  let text: string;
  try {
    const res = await request(url, { method: 'GET', headers: { accept: 'application/json', ...headers }, signal });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return err(res.statusCode === 429 ? 'rate limited (HTTP 429)' : `HTTP ${res.statusCode}`);
    }
    // Read with a bound: a chunked answer declares no length.
    const read = await readBodyText(res.body, MAX_BODY_BYTES);
    if (read === null) return err('response body too large');
    text = read;
  } catch (cause) {
    return err(signal.aborted ? abortReason(signal) : `request failed: ${(cause as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return err('malformed body (not JSON)');
  }
  const decoded = codec.decode(json);
  if (decoded._tag === 'Left') return err(`unexpected body at ${errorPath(decoded.left)}`);
  return ok(decoded.right);
}

/** A timeout error raised by `AbortSignal.timeout` is a TimeoutError; anything else is the caller's deadline. */
function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof DOMException && reason.name === 'TimeoutError' ? 'timed out' : 'check deadline reached';
}

function errorPath(errors: t.Errors): string {
  const path = errors[0]?.context
    .map((c) => c.key)
    .filter((k) => k !== '')
    .join('.');
  return path ? `"${path}"` : 'the top level';
}
