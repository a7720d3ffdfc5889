import { decode, formatDecodeError } from '@tron-safety/codec';
import type * as t from 'io-ts';
import { err, ok, type Result } from 'neverthrow';
import { ErrorResponse } from './codecs.js';
import type { Attempt } from './http.js';
import { parseRetryAfter } from './retry.js';

type Headers = Record<string, string | string[] | undefined>;

/** What every answer that came back carries besides its body. */
export interface AnswerMeta {
  status: number;
  headers: Headers;
  /** The body exactly as received (the `--json` output of the CLI). */
  raw: string;
  /** `X-Request-ID`: quote it when asking about this answer. */
  requestId: string | null;
  /** `Idempotent-Replayed: true`: a stored answer, not a new check. */
  replayed: boolean;
  /** HTTP attempts made for this call. */
  attempts: number;
}

export interface Answered<T> extends AnswerMeta {
  body: T;
}

/** The API answered with its error envelope. */
export interface ApiFailure extends AnswerMeta {
  kind: 'api_error';
  body: ErrorResponse;
  code: string;
  message: string;
  retryable: boolean;
  /** `Retry-After` in ms, when the answer had one. */
  retryAfterMs: number | null;
}

/**
 * No answer this client can read: no response (network, timeout), a caller's abort, a response
 * without the API's envelope (a gateway's page), or a 200 that is not the API's answer (not JSON,
 * over 1 MiB, fields this client cannot decode). The outcome is unknown, so a check must be sent
 * again later with the same body and the same Idempotency-Key, never a new one (Errors rule 4).
 */
export interface UnresolvedFailure {
  kind: 'unresolved';
  reason: 'network' | 'timeout' | 'aborted' | 'bad_response';
  message: string;
  /** The HTTP status, when a response came back. */
  status: number | null;
  raw: string | null;
  attempts: number;
  /** `Retry-After` in ms, when a response came back with one (a gateway's 503 or 429). */
  retryAfterMs: number | null;
}

/**
 * A call this client did not send, because an option of the call cannot be used (a `requestId` that
 * cannot be an HTTP header, a `deadlineMs` that is not a positive number). Nothing reached the server:
 * the outcome is known, and the call can be made again once the option is fixed.
 */
export interface NotSentFailure {
  kind: 'not_sent';
  message: string;
  attempts: 0;
  retryAfterMs: null;
}

export type ClientFailure = ApiFailure | UnresolvedFailure | NotSentFailure;

const header = (headers: Headers, name: string): string | null => {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
};

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** `application/json`, with or without parameters such as `charset`. */
function isJson(headers: Headers): boolean {
  const type = header(headers, 'content-type');
  return type !== null && type.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** Reads one attempt: a decoded 200 body, the API's error, or an unresolved outcome. */
export function readAttempt<C extends t.Mixed>(
  codec: C,
  attempt: Attempt,
  attempts: number,
): Result<Answered<t.TypeOf<C>>, ClientFailure> {
  if (attempt.kind === 'no_response') {
    const { reason, message } = attempt;
    return err({ kind: 'unresolved', reason, message, status: null, raw: null, attempts, retryAfterMs: null });
  }
  const { status, headers } = attempt;
  const raw = attempt.kind === 'response' ? attempt.raw : null;
  const retryAfterMs = parseRetryAfter(headers['retry-after']);
  const unreadable = (message: string): Result<never, ClientFailure> =>
    err({ kind: 'unresolved', reason: 'bad_response', message, status, raw, attempts, retryAfterMs });
  if (raw === null) return unreadable(`HTTP ${status} with an answer larger than 1 MiB`);
  const meta: AnswerMeta = {
    status,
    headers,
    raw,
    requestId: header(headers, 'x-request-id'),
    replayed: header(headers, 'idempotent-replayed') === 'true',
    attempts,
  };
  if (status === 200) {
    // A proxy's or captive portal's page is not the API's answer, whatever its body parses as.
    if (!isJson(headers)) return unreadable(`HTTP 200 with Content-Type ${header(headers, 'content-type') ?? 'none'}`);
    const decoded = decode(codec, parseJson(raw));
    if (decoded.isOk()) return ok({ ...meta, body: decoded.value as t.TypeOf<C> });
    return unreadable(`HTTP 200 with a body this client cannot read (${formatDecodeError(decoded.error)})`);
  }
  const envelope = decode(ErrorResponse, parseJson(raw));
  if (envelope.isErr()) return unreadable(`HTTP ${status} without the API's error envelope`);
  const { code, message, retryable } = envelope.value.error;
  return err({ kind: 'api_error', ...meta, body: envelope.value, code, message, retryable, retryAfterMs });
}

/**
 * Whether the same request may be sent again (Errors rules 1, 2, 4, 5): an error the API calls
 * retryable unless it is a replay (a stored error is final), and any outcome without a readable
 * answer except a caller's abort and a 200 that could not be read (a retry would replay it).
 */
export function mayRetry(failure: ClientFailure): boolean {
  if (failure.kind === 'api_error') return failure.retryable && !failure.replayed;
  if (failure.kind === 'not_sent') return false;
  if (failure.reason === 'aborted') return false;
  return !(failure.reason === 'bad_response' && failure.status === 200);
}
