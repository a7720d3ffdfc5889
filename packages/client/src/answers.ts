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
 * No answer this client can read: no response (network, timeout), a caller's abort, an error
 * status without the API's envelope (a gateway's page, a wrong base URL's 404), or a success that
 * is not the API's answer (a 2xx other than 200; a 200 not JSON, over 1 MiB, or with fields this
 * client cannot decode). The outcome is unknown, so a check must be sent again later with the same
 * body and the same Idempotency-Key, never a new one (Errors rule 4). Only network failures,
 * timeouts and a gateway's 429, 502, 503 or 504 are sent again at once (see `mayRetry`).
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
  // The API answers every success with 200: another 2xx is something else speaking (it may have
  // forwarded the request, so the outcome is unknown), and its body is not read as an error.
  if (isSuccess(status) && status !== 200) return unreadable(`HTTP ${status}: the API answers a success with 200`);
  if (status === 200) {
    // A proxy's or captive portal's page is not the API's answer, whatever its body parses as.
    if (!isJson(headers)) return unreadable(`HTTP 200 with Content-Type ${header(headers, 'content-type') ?? 'none'}`);
    const decoded = decode(codec, parseJson(raw));
    if (decoded.isOk()) return ok({ ...meta, body: decoded.value as t.TypeOf<C> });
    return unreadable(`HTTP 200 with a body this client cannot read (${formatDecodeError(decoded.error)})`);
  }
  const envelope = decode(ErrorResponse, parseJson(raw));
  if (envelope.isErr()) return unreadable(withoutEnvelope(status));
  const { code, message, retryable } = envelope.value.error;
  return err({ kind: 'api_error', ...meta, body: envelope.value, code, message, retryable, retryAfterMs });
}

const isSuccess = (status: number) => status >= 200 && status < 300;

/**
 * A gateway's or proxy's busy or unreachable-upstream answer (Errors rule 5 lists 429, 503 and 504
 * as retryable): transient like a network failure, so sent again without the API's envelope.
 */
const TRANSIENT_GATEWAY_STATUSES = new Set([429, 502, 503, 504]);

function withoutEnvelope(status: number): string {
  const message = `HTTP ${status} without the API's error envelope`;
  // The API's paths answer with its envelope: a bare 404 or redirect is another server or path.
  const misdirected = status === 404 || (status >= 300 && status < 400);
  return misdirected ? `${message}: is the base URL right?` : message;
}

/**
 * Whether the same request may be sent again (Errors rules 1, 2, 4, 5): an error the API calls
 * retryable unless it is a replay (a stored error is final); no response (network, timeout) but a
 * caller's abort; and, without the API's envelope, only a gateway's transient status. Nothing else
 * says `retryable: true`: a 404 or another server's page would come back the same, and a 2xx, like
 * an unreadable 200, may be a processed check a retry would only replay.
 */
export function mayRetry(failure: ClientFailure): boolean {
  if (failure.kind === 'api_error') return failure.retryable && !failure.replayed;
  if (failure.kind === 'not_sent') return false;
  if (failure.reason === 'bad_response') return TRANSIENT_GATEWAY_STATUSES.has(failure.status ?? 0);
  return failure.reason !== 'aborted';
}
