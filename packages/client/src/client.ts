import { randomUUID } from 'node:crypto';
import type * as t from 'io-ts';
import { err, ok, type Result } from 'neverthrow';
import { Agent, type Dispatcher } from 'undici';
import { mayRetry, readAttempt, type Answered, type ClientFailure } from './answers.js';
import { CheckResponse, UsageResponse, type CheckRequest } from './codecs.js';
import { sendOnce, type AttemptSpec } from './http.js';
import { isIdempotencyKey } from './idempotency-key.js';
import { retryDelayMs, retryPolicyOf, sleep, type RetryPolicy } from './retry.js';
import { CLIENT_VERSION } from './version.js';

export interface SafetyClientOptions {
  /** e.g. `https://safety.example.com` (the `/v1/…` paths are appended). */
  baseUrl: string;
  /** Sent as `X-API-Key`; never logged or put in an error. */
  apiKey: string;
  /** One logical call, retries and waits included, ends by then; default 30 000 ms. */
  deadlineMs?: number;
  /** One attempt's own limit; default 15 000 ms (the server answers within its 12 s deadline). */
  attemptTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Your own undici dispatcher (proxy, TLS settings); by default the client opens an Agent that `close()` ends. */
  dispatcher?: Dispatcher;
}

export interface CallOptions {
  /** Stops the call (and its retries); the outcome is then unresolved. */
  signal?: AbortSignal;
  /** Correlation id sent as `X-Request-ID` (the service keeps a valid one as `request_id`). */
  requestId?: string;
  /** Overrides the client's `deadlineMs` for this call. */
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
   * spec's 1 to 128 printable ASCII characters rejects with a TypeError, before anything is sent.
   */
  check(request: CheckRequest, options?: CheckOptions): Promise<Result<CheckAnswer, CheckFailure>>;
  /** `GET /v1/usage?days=…` (1 to 90; the API's default 30 when absent). */
  usage(options?: CallOptions & { days?: number }): Promise<Result<UsageAnswer, ClientFailure>>;
  /** Ends the client's own connections (not a dispatcher you passed in). */
  close(): Promise<void>;
}

export function createSafetyClient(options: SafetyClientOptions): SafetyClient {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const owned = options.dispatcher ? null : new Agent({ keepAliveTimeout: 10_000 });
  const dispatcher = options.dispatcher ?? owned!;
  const policy = retryPolicyOf(options.retry);
  const settings = {
    deadlineMs: options.deadlineMs ?? 30_000,
    attemptTimeoutMs: options.attemptTimeoutMs ?? 15_000,
    policy,
  };
  const spec = (method: 'GET' | 'POST', path: string, extra: Record<string, string | undefined>): AttemptSpec => ({
    dispatcher,
    origin: base.origin,
    method,
    path: prefix + path,
    headers: definedOnly({
      'x-api-key': options.apiKey,
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
        throw new TypeError('idempotencyKey must be 1 to 128 printable ASCII characters');
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

interface CallSettings {
  deadlineMs: number;
  attemptTimeoutMs: number;
  policy: RetryPolicy;
  signal?: AbortSignal;
}

/**
 * Sends until an answer is final: success, an error that is not retryable (or a replayed one), the
 * attempts used up, or a wait that would pass the deadline (then the last outcome stands).
 */
async function callWithRetries<C extends t.Mixed>(
  codec: C,
  send: AttemptSpec,
  settings: CallSettings,
): Promise<Result<Answered<t.TypeOf<C>>, ClientFailure>> {
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
    // Never past the deadline: the last outcome (with its Retry-After) is the caller's to act on.
    if (!(Date.now() + wait < deadline - 1)) return answer;
    await sleep(wait, settings.signal);
    if (settings.signal?.aborted) return answer;
  }
}

function definedOnly<T extends object>(fields: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as never;
}
