import { randomUUID } from 'node:crypto';
import { err, ok, type Result } from 'neverthrow';
import type { ChainFactsProvider } from '../chain/facts.js';
import type { RiskProviders } from '../risk/signals.js';
import type { SafetyStores } from '../stores/index.js';
import type { ErrorCode } from '../contract/enums.js';
import { describeError, errorBody, type RuntimeError } from './errors.js';
import type { CoreHttpResponse } from './http.js';
import { TIMED_OUT, withinMs } from './timeout.js';

const ABORTED = Symbol('aborted');

export interface SafetyProviders {
  /** Null: no TRON provider configured; checks answer 503 `api_not_configured`. */
  chain: ChainFactsProvider | null;
  risk: RiskProviders;
}

export interface SafetyServiceOptions {
  /** Whole-request deadline in ms (spec: 12 s): every request is answered by then. */
  deadlineMs?: number;
  /** How long a completed idempotent result is replayed, in seconds (spec default: 24 h). */
  idempotencyRetentionSeconds?: number;
  /**
   * Lease of an in-progress idempotency record, a quota reservation and a concurrency slot, in
   * ms: how long a crashed request can hold them. Must exceed the deadline; default deadline + 30 s.
   */
  leaseMs?: number;
  /**
   * The last part of the deadline, kept for settling what a request decided (bill or release,
   * store the result, record usage), in ms; default 1000 (at most a quarter of the deadline).
   * Providers are stopped this long before the deadline; a store that has not settled by the
   * deadline gets the caller a 504 while its work ends in the background (leases bound what it holds).
   */
  settleGraceMs?: number;
  /** Start with business checks paused (503 `api_disabled`); see `setApiDisabled`. */
  apiDisabled?: boolean;
  /** Clock for every time decision (tests inject one). Timers of the deadline use real time. */
  now?: () => Date;
  /** Request ids when the caller sent no valid X-Request-ID. */
  generateRequestId?: () => string;
  /** Called with unexpected exceptions and store failures (the response is already decided). */
  onError?: (error: unknown, context: { requestId: string; step: string }) => void;
}

export interface ResolvedOptions {
  deadlineMs: number;
  idempotencyRetentionMs: number;
  leaseMs: number;
  settleGraceMs: number;
  now: () => Date;
  generateRequestId: () => string;
  onError: (error: unknown, context: { requestId: string; step: string }) => void;
}

export function resolveOptions(options: SafetyServiceOptions): ResolvedOptions {
  const deadlineMs = options.deadlineMs ?? 12_000;
  const settleGraceMs = options.settleGraceMs ?? Math.min(1000, Math.floor(deadlineMs / 4));
  const leaseMs = options.leaseMs ?? deadlineMs + 30_000;
  const retentionSeconds = options.idempotencyRetentionSeconds ?? 86_400;
  // Programmer errors: a NaN or negative value here would silently turn a control off.
  if (!(deadlineMs > 0) || !(settleGraceMs >= 0 && settleGraceMs < deadlineMs) || !(leaseMs > deadlineMs)) {
    throw new Error('need 0 <= settleGraceMs < deadlineMs < leaseMs');
  }
  if (!(retentionSeconds > 0) || !Number.isFinite(retentionSeconds))
    throw new Error('need a positive idempotencyRetentionSeconds');
  return {
    deadlineMs,
    idempotencyRetentionMs: retentionSeconds * 1000,
    leaseMs,
    settleGraceMs,
    now: options.now ?? (() => new Date()),
    generateRequestId: options.generateRequestId ?? randomUUID,
    onError: options.onError ?? (() => {}),
  };
}

export interface RuntimeContext {
  stores: SafetyStores;
  providers: SafetyProviders;
  options: ResolvedOptions;
}

/**
 * One request's id, deadline and accumulated control headers. The deadline is one
 * AbortController armed at the start; `shutdown` aborts it early when a drain runs out of time.
 */
export class RequestScope {
  readonly controller = new AbortController();
  readonly startedAt = performance.now();
  /** When providers must be done, in epoch ms (real time, like the timer), for providers that budget rounds. */
  readonly deadlineAt: number;
  /** Rate and quota headers, added to whatever response leaves. */
  readonly headers: Record<string, string> = {};
  #timer: NodeJS.Timeout;

  constructor(
    readonly ctx: RuntimeContext,
    readonly requestId: string,
  ) {
    // Providers stop a settle grace before the deadline, so that what they decided can be settled by it.
    const workMs = ctx.options.deadlineMs - ctx.options.settleGraceMs;
    this.deadlineAt = Date.now() + workMs;
    this.#timer = setTimeout(() => this.controller.abort('deadline'), workMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  now(): Date {
    return this.ctx.options.now();
  }

  elapsedMs(): number {
    return Math.round(performance.now() - this.startedAt);
  }

  /** The error an aborted request answers with. */
  abortError(): RuntimeError {
    return this.signal.reason === 'shutdown'
      ? { kind: 'api_disabled', shuttingDown: true }
      : { kind: 'request_timeout' };
  }

  /**
   * Awaits `work` unless the deadline fires first. A rejection (a store or provider failing
   * outside its contract) becomes `onFailure` and is reported.
   */
  async step<T>(
    name: string,
    work: Promise<T>,
    onFailure: RuntimeError = { kind: 'internal_error' },
  ): Promise<Result<T, RuntimeError>> {
    if (this.signal.aborted) {
      work.catch(() => {});
      return err(this.abortError());
    }
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<typeof ABORTED>((resolve) => {
      onAbort = () => resolve(ABORTED);
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const outcome = await Promise.race([work, aborted]);
      if (outcome === ABORTED) {
        work.catch(() => {});
        return err(this.abortError());
      }
      return ok(outcome);
    } catch (error) {
      this.report(error, name);
      return err(onFailure);
    } finally {
      this.signal.removeEventListener('abort', onAbort!);
    }
  }

  /**
   * Awaits `work` past the providers' stop (billing and recording a decided result must not be cut
   * in half), but only into the first half of the settle grace: a store that hangs longer becomes
   * `settle_timeout`, leaving the other half for giving back what the request holds. A rejection
   * becomes `internal_error`; both are reported.
   */
  async settle<T>(name: string, work: Promise<T>): Promise<Result<T, RuntimeError | { kind: 'settle_timeout' }>> {
    const { deadlineMs, settleGraceMs } = this.ctx.options;
    try {
      const outcome = await withinMs(work, deadlineMs - settleGraceMs / 2 - this.elapsedMs());
      if (outcome !== TIMED_OUT) return ok(outcome);
      work.catch((error: unknown) => this.report(error, name));
      this.report(new Error(`${name}: no answer within the settle grace`), name);
      return err({ kind: 'settle_timeout' });
    } catch (error) {
      this.report(error, name);
      return err({ kind: 'internal_error' });
    }
  }

  report(error: unknown, step: string): void {
    try {
      this.ctx.options.onError(error, { requestId: this.requestId, step });
    } catch {
      // A failing error hook must not turn a decided response into another failure.
    }
  }

  /** The code of the last error answered, for the usage record. */
  errorCode: ErrorCode | null = null;

  /** The error response, recorded as this request's outcome. */
  error(error: RuntimeError): CoreHttpResponse {
    this.errorCode = describeError(error).code;
    return this.errorResponse(error);
  }

  /** The error response alone: the recorded outcome stays what the request's own work decides. */
  errorResponse(error: RuntimeError): CoreHttpResponse {
    const response = errorBody(this.requestId, error);
    return { ...response, headers: { ...this.headers, ...response.headers } };
  }

  dispose(): void {
    clearTimeout(this.#timer);
  }
}
