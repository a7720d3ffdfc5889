import { decode, formatDecodeError } from '@tron-safety/codec';
import type * as t from 'io-ts';
import { err, type Result } from 'neverthrow';
import { request } from 'undici';
import {
  observeCall,
  type ProviderCall,
  type ProviderCallObserver,
  type ProviderCallOutcome,
} from '../chain/call-observer.js';
import { readBodyText } from '../chain/client.js';
import { rethrowProgrammerError } from '../chain/programmer-error.js';

/** Vendor answers larger than this are not an answer we can trust to read. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface VendorRequest {
  url: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  /** Reported to `onCall` as this provider and call (never the URL or headers). */
  observed?: ProviderCall & { onCall: ProviderCallObserver | undefined };
}

type Failure = { outcome: ProviderCallOutcome; reason: string; status?: number };

/**
 * GET a vendor's JSON and decode it. Every outside failure (network, status, timeout, abort,
 * body that is not what the codec says) comes back as a short reason, never as a throw; a bug
 * (a TypeError…) is thrown on, never reported as the vendor's failure.
 */
export async function getVendorJson<C extends t.Mixed>(
  vendor: VendorRequest,
  codec: C,
): Promise<Result<t.TypeOf<C>, string>> {
  const ended = observeCall(vendor.observed?.onCall, {
    provider: vendor.observed?.provider ?? 'vendor',
    call: vendor.observed?.call ?? 'get',
  });
  const answer = await fetchDecoded(vendor, codec);
  if (answer.isOk()) ended('ok');
  else ended(answer.error.outcome, answer.error.status);
  return answer.mapErr((failure) => failure.reason);
}

async function fetchDecoded<C extends t.Mixed>(
  { url, headers, signal }: VendorRequest,
  codec: C,
): Promise<Result<t.TypeOf<C>, Failure>> {
  let text: string;
  try {
    const res = await request(url, { method: 'GET', headers: { accept: 'application/json', ...headers }, signal });
    if (res.statusCode !== 200) {
      await res.body.dump();
      const reason = res.statusCode === 429 ? 'rate limited (HTTP 429)' : `HTTP ${res.statusCode}`;
      return err({ outcome: 'status', reason, status: res.statusCode });
    }
    // Read with a bound: a chunked answer declares no length.
    const read = await readBodyText(res.body, MAX_BODY_BYTES);
    if (read === null) return err({ outcome: 'decode', reason: 'response body too large' });
    text = read;
  } catch (cause) {
    rethrowProgrammerError(cause);
    if (!signal.aborted) return err({ outcome: 'network', reason: `request failed: ${(cause as Error).message}` });
    const reason = abortReason(signal);
    return err({ outcome: reason === 'timed out' ? 'timeout' : 'aborted', reason });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return err({ outcome: 'decode', reason: 'malformed body (not JSON)' });
  }
  return decode(codec, json).mapErr((e) => ({
    outcome: 'decode',
    reason: `unexpected body (${formatDecodeError(e)})`,
  }));
}

/** A timeout error raised by `AbortSignal.timeout` is a TimeoutError; anything else is the caller's deadline. */
function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof DOMException && reason.name === 'TimeoutError' ? 'timed out' : 'check deadline reached';
}
