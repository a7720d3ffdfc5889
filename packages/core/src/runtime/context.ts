import { randomUUID } from 'node:crypto';
import { err, ok, type Result } from 'neverthrow';
import type { ChainFactsProvider, ProviderContext } from '../chain/facts.js';
import type { RiskProviders } from '../risk/signals.js';
import type { SafetyStores } from '../stores/index.js';
import { errorReply, type RuntimeError } from './errors.js';
import type { CoreHttpResponse } from './http.js';
import { withSignalOf } from './lazy-signal.js';
import { respond, type LimitState, type Reply } from './response.js';

export interface SafetyProviders {
  /** Null: no TRON provider configured; checks answer 503 `api_not_configured`. */
  chain: ChainFactsProvider | null;
  risk: RiskProviders;
}

export interface SafetyServiceOptions {
  /** Whole-request deadline in ms (spec: 12 s): every request is answered by then. */
  deadlineMs?: number;
  /** How long a completed idempotent result is replayed, in seconds (spec default: 24 h); at least the lease. */
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
  // A completed key free again sooner than an abandoned claim's lease: a retry would run, and bill, again.
  if (!(retentionSeconds * 1000 >= leaseMs) || !Number.isFinite(retentionSeconds))
    throw new Error('need an idempotencyRetentionSeconds of at least the lease (leaseMs)');
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

/** Why a request's providers were stopped: its deadline, or a shutdown that ran out of time. */
type StopReason = 'deadline' | 'shutdown';

/** What `race` answers when the deadline reached its instant before the work was done. */
export const STOPPED = Symbol('stopped by the deadline');

/** The instants of a request's deadline, in the order the one timer passes them. */
const Phase = {
  Working: 0,
  /** Providers are stopped (the signal aborts): the settle grace begins. */
  Settling: 1,
  /** Half the grace is gone: a store still settling is given up (the rest is for giving back). */
  GivingBack: 2,
  /** The deadline: the caller is answered whatever is still running. */
  HardStop: 3,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/**
 * One request's id, clock and deadline. The deadline is one timer, armed at the start and moved
 * from instant to instant (providers stop → settling given up → hard stop) only while the
 * request is still running; the steps between check `aborted` instead of racing the timer.
 * `shutdown` stops the providers early when a drain runs out of time.
 *
 * The providers' `AbortSignal` is made on first read (Node 20's cost about 6 % of a check's CPU):
 * an answer that needs no I/O (an instant in-process provider, a cache hit) never reads it. Read
 * after the providers were stopped, it is made already aborted, with the same reason.
 */
export class RequestScope {
  #controller: AbortController | null = null;
  #stopped: StopReason | null = null;
  readonly startedAt = performance.now();
  /** When providers must be done, in epoch ms (real time, like the timer), for providers that budget rounds. */
  readonly deadlineAt: number;
  #phase: Phase = Phase.Working;
  #timer: NodeJS.Timeout;
  /** Races waiting for an instant: each is answered `STOPPED` when the deadline reaches it. */
  #waiting: Array<{ phase: Phase; resolve: (stopped: typeof STOPPED) => void }> = [];

  constructor(
    readonly ctx: RuntimeContext,
    readonly requestId: string,
  ) {
    // Providers stop a settle grace before the deadline, so that what they decided can be settled by it.
    const { deadlineMs, settleGraceMs } = ctx.options;
    const workMs = deadlineMs - settleGraceMs;
    this.deadlineAt = Date.now() + workMs;
    this.#timer = setTimeout(() => this.#advance(), workMs);
  }

  #advance(): void {
    const { settleGraceMs } = this.ctx.options;
    this.#phase = (this.#phase + 1) as Phase;
    if (this.#phase === Phase.Settling) this.#stop('deadline');
    if (this.#phase < Phase.HardStop) this.#timer = setTimeout(() => this.#advance(), settleGraceMs / 2);
    this.#stopUpTo(this.#phase);
  }

  #stopUpTo(phase: Phase): void {
    const due = this.#waiting.filter((w) => w.phase <= phase);
    this.#waiting = this.#waiting.filter((w) => w.phase > phase);
    for (const waiter of due) waiter.resolve(STOPPED);
  }

  /**
   * `work`'s outcome, or `STOPPED` once the deadline reaches `phase`, whichever comes first; the
   * work itself goes on. One promise, no timer of its own: the request's timer answers the waiter.
   */
  #race<T>(work: Promise<T>, phase: Phase): Promise<T | typeof STOPPED> {
    // Already past: the work still wins if it has its answer now.
    if (this.#phase >= phase) return Promise.race([work, Promise.resolve().then((): typeof STOPPED => STOPPED)]);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ phase, resolve });
      work.then(resolve, reject);
    });
  }

  /** `work`'s outcome, or `STOPPED` when providers must stop (the deadline's first instant, or `abort`). */
  untilProvidersStop<T>(work: Promise<T>): Promise<T | typeof STOPPED> {
    return this.aborted ? this.#race(work, Phase.Working) : this.#race(work, Phase.Settling);
  }

  /** Stops the providers now (a shutdown that ran out of time): the request gives back what it holds. */
  abort(reason: 'shutdown'): void {
    this.#stop(reason);
    this.#stopUpTo(Phase.Settling);
  }

  /** The first reason stands, as an `AbortSignal`'s does. */
  #stop(reason: StopReason): void {
    if (this.#stopped !== null) return;
    this.#stopped = reason;
    this.#controller?.abort(reason);
  }

  /** `work`'s outcome, or `STOPPED` at the hard deadline: the caller is answered then, whatever is still running. */
  untilHardStop<T>(work: Promise<T>): Promise<T | typeof STOPPED> {
    return this.#race(work, Phase.HardStop);
  }

  /** Aborted when the providers must stop (`reason` 'deadline' or 'shutdown'): every provider call honors it. */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#stopped !== null) this.#controller.abort(this.#stopped);
    }
    return this.#controller.signal;
  }

  /** The providers were stopped (what `signal.aborted` says, without making the signal). */
  get aborted(): boolean {
    return this.#stopped !== null;
  }

  now(): Date {
    return this.ctx.options.now();
  }

  elapsedMs(): number {
    return Math.round(performance.now() - this.startedAt);
  }

  /** The error an aborted request answers with: 503 while shutting down, else its deadline's 504. */
  abortError(): RuntimeError {
    return this.#stopped === 'shutdown' ? { kind: 'api_disabled', shuttingDown: true } : { kind: 'request_timeout' };
  }

  /**
   * Awaits `work` past the providers' stop (billing and recording a decided result must not be cut
   * in half), but only into the first half of the settle grace: a store that hangs longer becomes
   * `settle_timeout`, leaving the other half for giving back what the request holds. A rejection
   * becomes `internal_error`; both are reported.
   */
  async settle<T>(name: string, work: Promise<T>): Promise<Result<T, RuntimeError | { kind: 'settle_timeout' }>> {
    try {
      const outcome = await this.#race(work, Phase.GivingBack);
      if (outcome !== STOPPED) return ok(outcome);
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

  /** The answer to `reply`, with this request's id and the limit headers it earned. */
  respond(reply: Reply, limits: LimitState | null = null): CoreHttpResponse {
    return respond(this.requestId, reply, limits);
  }

  /** The error answer, with the limit headers the request earned. */
  fail(error: RuntimeError, limits: LimitState | null = null): CoreHttpResponse {
    return respond(this.requestId, errorReply(this.requestId, error), limits);
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#waiting = [];
  }
}

/**
 * What providers are handed: a plain object, not the scope, whose signal is an own getter (made on
 * first read), so a provider that spreads it into a context of its own (`{ ...ctx, deadlineAt }`)
 * keeps the signal.
 */
export function providerContextOf(scope: RequestScope): ProviderContext {
  return withSignalOf(scope, { deadlineAt: scope.deadlineAt });
}
