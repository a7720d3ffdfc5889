import type { Unavailable } from './signals.js';

/**
 * Calls a provider that promised never to reject; if it breaks the promise (a host's own provider, a bug),
 * the rejection becomes that provider's `unavailable`, never a clean answer and never everyone's failure.
 */
export function settle<A>(call: () => Promise<A>): Promise<A | Unavailable> {
  try {
    return Promise.resolve(call()).then(undefined, failed);
  } catch (cause) {
    return Promise.resolve(failed(cause));
  }
}

const failed = (cause: unknown): Unavailable => ({
  status: 'unavailable',
  reason: `provider failed: ${String(cause)}`,
});
