/** How a client retries (docs/SPEC.md, Errors rule 1): capped attempts, full-jitter backoff, one deadline. */
export interface RetryPolicy {
  /** Attempts in all, the first included; default 5. */
  maxAttempts: number;
  /** Full jitter: a random wait in [0, min(maxDelayMs, baseDelayMs · 2^(attempt − 1))]; defaults 250 and 5000 ms. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 5_000 };

/** The longest wait one Node timer keeps: a longer one fires after 1 ms (with a TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The policy from the caller's settings, a default for each one left out (or `undefined`, as an
 * optional config field gives). A value that would turn off the attempt cap or the backoff (NaN, a
 * negative number, a fractional attempt count) is a programmer error: it throws.
 */
export function retryPolicyOf(given: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = {
    maxAttempts: given.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
    baseDelayMs: given.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: given.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
  };
  if (!(Number.isInteger(policy.maxAttempts) && policy.maxAttempts >= 1)) {
    throw new RangeError(`retry.maxAttempts must be a whole number of at least 1, got ${policy.maxAttempts}`);
  }
  for (const name of ['baseDelayMs', 'maxDelayMs'] as const) {
    if (!(Number.isFinite(policy[name]) && policy[name] >= 0)) {
      throw new RangeError(`retry.${name} must be a finite number of at least 0, got ${policy[name]}`);
    }
  }
  return policy;
}

/** The wait before attempt `attempt + 1`: at least the server's `Retry-After`, else the jittered backoff. */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const backoff = random() * cap;
  return retryAfterMs === null ? backoff : Math.max(retryAfterMs, backoff);
}

/**
 * `Retry-After` in ms: delta-seconds or an HTTP date (RFC 9110), null when absent or unreadable.
 * A date in the past is 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return null;
  const trimmed = raw.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Resolves after `ms`, or at once when `signal` fires. A wait no timer can keep (see MAX_TIMER_MS) throws. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (!(ms >= 0 && ms <= MAX_TIMER_MS)) throw new RangeError(`sleep takes 0 to ${MAX_TIMER_MS} ms, got ${ms}`);
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
