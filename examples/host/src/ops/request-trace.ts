import { AsyncLocalStorage } from 'node:async_hooks';
import type { ProviderCall, ProviderCallEnd } from '@tron-safety/core';

/** A provider call as a request's log line shows it: what, how it ended, how long it took. */
export interface TracedCall extends ProviderCall {
  outcome: ProviderCallEnd['outcome'] | 'no answer yet';
  duration_ms: number;
  status?: number;
}

/** Calls kept per request: enough to say what failed, bounded whatever a check does. */
const MAX_TRACED = 20;

interface Trace {
  failed: TracedCall[];
  pending: Map<object, { call: ProviderCall; started: number }>;
}

/**
 * Which provider calls a request made that failed or had not ended when it answered, for the
 * log line of a 503 or 504. A call belongs to the request whose handling started it (Node's
 * async context); one shared by several checks is traced by the first.
 */
export class RequestTraces {
  readonly #storage = new AsyncLocalStorage<Trace>();

  /** Runs one request's handling in its own trace. */
  run<T>(work: () => Promise<T>): { result: Promise<T>; calls: () => TracedCall[] } {
    const trace: Trace = { failed: [], pending: new Map() };
    const result = this.#storage.run(trace, work);
    return { result, calls: () => [...trace.failed, ...pendingOf(trace)] };
  }

  /** The provider-call observer's part: notes a call's start and, if it failed, its end. */
  started(call: ProviderCall): ((end: ProviderCallEnd) => void) | undefined {
    const trace = this.#storage.getStore();
    if (!trace) return undefined;
    const token = {};
    if (trace.pending.size < MAX_TRACED) trace.pending.set(token, { call, started: performance.now() });
    return (end) => {
      trace.pending.delete(token);
      if (end.outcome === 'ok' || trace.failed.length >= MAX_TRACED) return;
      trace.failed.push({
        ...call,
        outcome: end.outcome,
        duration_ms: Math.round(end.durationMs),
        ...(end.status === undefined ? {} : { status: end.status }),
      });
    };
  }
}

function pendingOf(trace: Trace): TracedCall[] {
  const now = performance.now();
  return [...trace.pending.values()].map(({ call, started }) => ({
    ...call,
    outcome: 'no answer yet',
    duration_ms: Math.round(now - started),
  }));
}
