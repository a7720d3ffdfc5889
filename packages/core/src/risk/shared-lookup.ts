import type { ProviderContext } from '../chain/facts.js';
import { LruCache } from '../chain/lru.js';
import type { Unavailable } from './signals.js';

export interface SharedLookupOptions {
  /** How long an answered result is reused; 0 = no cache. Failures are never cached. */
  ttlMs: number;
  /** Each vendor call's own limit, inside the caller's deadline. */
  timeoutMs: number;
  /**
   * A caller with a deadline (`ctx.deadlineAt`) stops waiting this long before it, so the risk step
   * answers unavailable while the request can still answer (default 500 ms).
   */
  deadlineMarginMs?: number;
  /** Bound on cached keys (the least recently used is dropped first). */
  maxEntries?: number;
  now?: () => number;
}

/** Defaults: a few minutes of reuse; a call timeout well inside the spec's 12 s deadline. */
export const DEFAULT_RISK_CACHE_TTL_MS = 300_000;
export const DEFAULT_RISK_TIMEOUT_MS = 4_000;
export const DEFAULT_RISK_DEADLINE_MARGIN_MS = 500;
/**
 * Upper bounds (`createRiskProviders` refuses more): a call's timeout is within the request deadline, whose
 * longest setting in the host is 10 minutes (past 2^31 - 1 ms Node fires a timer after 1 ms, and from 2^32 ms
 * `AbortSignal.timeout` throws: every vendor call failed); a vendor answer is reused for a day at most.
 */
export const MAX_RISK_TIMEOUT_MS = 600_000;
export const MAX_RISK_CACHE_TTL_MS = 86_400_000;

export function lookupOptions(partial: Partial<SharedLookupOptions>): SharedLookupOptions {
  return {
    ...partial,
    ttlMs: partial.ttlMs ?? DEFAULT_RISK_CACHE_TTL_MS,
    timeoutMs: partial.timeoutMs ?? DEFAULT_RISK_TIMEOUT_MS,
  };
}

export type Lookup<A> = (key: string, ctx: ProviderContext) => Promise<A | Unavailable>;

interface InFlight<A> {
  promise: Promise<A | Unavailable>;
  controller: AbortController;
  waiters: number;
}

/**
 * Per-key vendor lookups. An answered result is kept for `ttlMs` with its `asOf` untouched (the
 * time the vendor answered), so freshness shows the cache age. Concurrent lookups of one key share
 * one call; a caller stops waiting when its signal fires or `deadlineMarginMs` before its `deadlineAt`,
 * and the call is aborted when no caller is left waiting or its own timeout passes.
 */
export function sharedLookup<A extends { status: string }>(
  load: (key: string, signal: AbortSignal) => Promise<A | Unavailable>,
  options: SharedLookupOptions,
): Lookup<A> {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 10_000;
  const marginMs = options.deadlineMarginMs ?? DEFAULT_RISK_DEADLINE_MARGIN_MS;
  const cache = new LruCache<string, { value: A; storedAt: number }>(maxEntries);
  const inFlight = new Map<string, InFlight<A>>();

  const start = (key: string): InFlight<A> => {
    const controller = new AbortController();
    const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(options.timeoutMs)]);
    const promise = load(key, signal)
      .catch((cause: unknown): Unavailable => ({ status: 'unavailable', reason: `internal error: ${String(cause)}` }))
      .then((value) => {
        if (inFlight.get(key) === entry) inFlight.delete(key);
        if (value.status === 'answered' && options.ttlMs > 0) cache.set(key, { value: value as A, storedAt: now() });
        return value;
      });
    const entry: InFlight<A> = { promise, controller, waiters: 0 };
    inFlight.set(key, entry);
    return entry;
  };

  return (key, ctx) => {
    const cached = cache.get(key);
    if (cached && now() - cached.storedAt < options.ttlMs) return Promise.resolve(cached.value);
    const signal = waitSignal(ctx, marginMs);
    if (signal.aborted) return Promise.resolve(deadlineReached());
    const entry = inFlight.get(key) ?? start(key);
    entry.waiters++;
    return new Promise((resolve) => {
      const abandon = () => {
        if (--entry.waiters === 0) {
          if (inFlight.get(key) === entry) inFlight.delete(key);
          entry.controller.abort(new DOMException('check deadline reached', 'AbortError'));
        }
        resolve(deadlineReached());
      };
      signal.addEventListener('abort', abandon, { once: true });
      void entry.promise.then((value) => {
        if (signal.aborted) return; // already answered by `abandon`
        signal.removeEventListener('abort', abandon);
        resolve(value);
      });
    });
  };
}

/** The caller's signal, firing `marginMs` before its deadline at the latest (`deadlineAt` is on the `Date.now()` clock). */
function waitSignal(ctx: ProviderContext, marginMs: number): AbortSignal {
  if (ctx.deadlineAt === undefined) return ctx.signal;
  const left = ctx.deadlineAt - marginMs - Date.now();
  return left <= 0 ? AbortSignal.abort() : AbortSignal.any([ctx.signal, AbortSignal.timeout(left)]);
}

const deadlineReached = (): Unavailable => ({ status: 'unavailable', reason: 'check deadline reached' });
