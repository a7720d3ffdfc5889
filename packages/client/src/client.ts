import { randomUUID } from 'node:crypto';
import type * as t from 'io-ts';
import { err, ok, type Result } from 'neverthrow';
import { Agent, type Dispatcher } from 'undici';
import { mayRetry, readAttempt, type Answered, type ClientFailure } from './answers.js';
import { CheckResponse, UsageResponse, type CheckRequest } from './codecs.js';
import { ABORTED, sendOnce, type AttemptSpec } from './http.js';
import { isHeaderValue } from './header-value.js';
import { isIdempotencyKey } from './idempotency-key.js';
import { MAX_TIMER_MS, retryDelayMs, retryPolicyOf, sleep, type RetryPolicy } from './retry.js';
import { CLIENT_VERSION } from './version.js';

export interface SafetyClientOptions {
  /** e.g. `https://safety.example.com` (the `/v1/…` paths are appended); not http: or https: throws a TypeError. */
  baseUrl: string;
  /** Sent as `X-API-Key`; never logged or put in an error. One HTTP cannot carry unchanged throws a TypeError. */
  apiKey: string;
  /**
   * One logical call, retries and waits included, ends by then; default 30 000 ms. NaN, 0 or less
   * throws a RangeError (as for `attemptTimeoutMs` and `retry`).
   */
  deadlineMs?: number;
  /** One attempt's own limit; default 15 000 ms (the server answers within its 12 s deadline). */
  attemptTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Your own undici dispatcher (proxy, TLS settings); by default the client opens an Agent that `close()` ends. */
  dispatcher?: Dispatcher;
}

export interface CallOptions {
  /** Stops the call (and its retries, waits between them included); the outcome is then unresolved (`aborted`). */
  signal?: AbortSignal;
  /**
   * Correlation id sent as `X-Request-ID` (the service keeps one of `[A-Za-z0-9._:-]`, 1 to 128, as
   * `request_id`, and makes its own otherwise). One HTTP cannot carry unchanged is a `not_sent` failure.
   */
  requestId?: string;
  /** Overrides the client's `deadlineMs` for this call; NaN, 0 or less is a `not_sent` failure. */
  deadlineMs?: number;
}

export interface CheckOptions extends CallOptions {
  /** One per logical check: pass the one you stored to resend after an unresolved outcome; generated when absent. */
  idempotencyKey?: string;
}

/** Every check outcome names its request and its Idempotency-Key: keep the key until the outcome is resolved. */
interface CheckIdentity {
  request: CheckRequest;
  idempotencyKey: string;
}
export type CheckAnswer = Answered<CheckResponse> & CheckIdentity;
export type CheckFailure = ClientFailure & CheckIdentity;
export type UsageAnswer = Answered<UsageResponse>;

export interface SafetyClient {
  /**
   * `POST /v1/transaction/check` with one Idempotency-Key across every retry. A given key outside the
   * spec's 1 to 128 printable ASCII characters (or with a space at either end, which HTTP strips)
   * rejects with a TypeError, before anything is sent.
   */
  check(request: CheckRequest, options?: CheckOptions): Promise<Result<CheckAnswer, CheckFailure>>;
  /** `GET /v1/usage?days=…` (1 to 90; the API's default 30 when absent). */
  usage(options?: CallOptions & { days?: number }): Promise<Result<UsageAnswer, ClientFailure>>;
  /** Ends the client's own connections (not a dispatcher you passed in). */
  close(): Promise<void>;
}

export function createSafetyClient(options: SafetyClientOptions): SafetyClient {
  const base = baseUrlOf(options.baseUrl);
  const apiKey = sendableApiKey(options.apiKey);
  const prefix = base.pathname.replace(/\/+$/, '');
  const settings = {
    deadlineMs: durationOf('deadlineMs', options.deadlineMs ?? 30_000),
    attemptTimeoutMs: durationOf('attemptTimeoutMs', options.attemptTimeoutMs ?? 15_000),
    policy: retryPolicyOf(options.retry),
  };
  // Opened once every setting is known to be usable.
  const owned = options.dispatcher ? null : new Agent({ keepAliveTimeout: 10_000 });
  const dispatcher = options.dispatcher ?? owned!;
  const spec = (method: 'GET' | 'POST', path: string, extra: Record<string, string | undefined>): AttemptSpec => ({
    dispatcher,
    origin: base.origin,
    method,
    path: prefix + path,
    headers: definedOnly({
      'x-api-key': apiKey,
      accept: 'application/json',
      'user-agent': `tron-safety-client/${CLIENT_VERSION}`,
      ...extra,
    }),
  });

  return {
    async check(request, callOptions = {}) {
      const idempotencyKey = callOptions.idempotencyKey ?? randomUUID();
      // Such a key cannot be sent: every attempt would fail before a byte left, and look like an unknown outcome.
      if (!isIdempotencyKey(idempotencyKey)) {
        throw new TypeError(
          'idempotencyKey must be 1 to 128 printable ASCII characters, without a space at either end',
        );
      }
      const identity = { request, idempotencyKey };
      const send = {
        ...spec('POST', '/v1/transaction/check', {
          'content-type': 'application/json',
          'idempotency-key': idempotencyKey,
          'x-request-id': callOptions.requestId,
        }),
        // The same bytes on every attempt: the key is bound to this body.
        body: JSON.stringify(request),
      };
      const outcome = await callWithRetries(CheckResponse, send, { ...settings, ...definedOnly(callOptions) });
      return outcome.isOk() ? ok({ ...outcome.value, ...identity }) : err({ ...outcome.error, ...identity });
    },
    usage({ days, ...callOptions } = {}) {
      const query = days === undefined ? '' : `?days=${encodeURIComponent(String(days))}`;
      const send = spec('GET', `/v1/usage${query}`, { 'x-request-id': callOptions.requestId });
      return callWithRetries(UsageResponse, send, { ...settings, ...definedOnly(callOptions) });
    },
    close: async () => {
      await owned?.close();
    },
  };
}

/** The API's base URL; anything but http: or https: (`localhost:8080` parses with protocol `localhost:`) throws. */
function baseUrlOf(baseUrl: string): URL {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http: or https: URL, not ${url.protocol}`);
  }
  return url;
}

function sendableApiKey(apiKey: string): string {
  // Every attempt would fail before a byte left, and look like an unknown outcome.
  if (isHeaderValue(apiKey)) return apiKey;
  throw new TypeError(
    'apiKey cannot be sent as an HTTP header (a line break, a character beyond Latin-1, or a space at an end)',
  );
}

const isDuration = (ms: unknown): ms is number => typeof ms === 'number' && ms > 0 && !Number.isNaN(ms);

/** A time limit of the client's settings: NaN, 0 or a negative limit would end every call at once, or never. */
function durationOf(name: string, ms: number): number {
  if (!isDuration(ms)) throw new RangeError(`${name} must be a number of ms above 0, got ${String(ms)}`);
  return ms;
}

/** Why a call's own options cannot be used (they may come from outside, e.g. a forwarded request id); null when they can. */
function callOptionsProblem(options: CallOptions): string | null {
  if (options.requestId !== undefined && !isHeaderValue(options.requestId)) {
    return 'requestId cannot be sent as an HTTP header (a line break, a character beyond Latin-1, or a space at an end)';
  }
  if (options.deadlineMs !== undefined && !isDuration(options.deadlineMs)) {
    return `deadlineMs must be a number of ms above 0, got ${String(options.deadlineMs)}`;
  }
  return null;
}

interface CallSettings extends CallOptions {
  deadlineMs: number;
  attemptTimeoutMs: number;
  policy: RetryPolicy;
}

/**
 * Sends until an answer is final: success, an error that is not retryable (or a replayed one), the
 * attempts used up, a caller's abort, or a wait that would pass the deadline or a timer's limit (then
 * the last outcome stands, with its Retry-After for the caller to act on).
 */
async function callWithRetries<C extends t.Mixed>(
  codec: C,
  send: AttemptSpec,
  settings: CallSettings,
): Promise<Result<Answered<t.TypeOf<C>>, ClientFailure>> {
  const problem = callOptionsProblem(settings);
  if (problem !== null) return err({ kind: 'not_sent', message: problem, attempts: 0, retryAfterMs: null });
  const deadline = Date.now() + settings.deadlineMs;
  for (let attempt = 1; ; attempt++) {
    const left = deadline - Date.now();
    const answer = readAttempt(
      codec,
      await sendOnce(send, Math.min(settings.attemptTimeoutMs, left), settings.signal),
      attempt,
    );
    if (answer.isOk() || !mayRetry(answer.error) || attempt >= settings.policy.maxAttempts) return answer;
    const wait = retryDelayMs(settings.policy, attempt, answer.error.retryAfterMs);
    // A quota's Retry-After can be weeks: no timer keeps that, and no call waits past its deadline.
    if (wait > MAX_TIMER_MS || !(Date.now() + wait < deadline - 1)) return answer;
    await sleep(wait, settings.signal);
    if (settings.signal?.aborted) return readAttempt(codec, ABORTED, attempt);
  }
}

function definedOnly<T extends object>(fields: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as never;
}
