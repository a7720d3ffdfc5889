import type { Unavailable } from './signals.js';

/**
 * Calls a provider that promised never to reject; if it breaks the promise (a host's own provider, a bug),
 * the rejection becomes that provider's `unavailable`, never a clean answer and never everyone's failure.
 */
export async function settle<A>(call: () => Promise<A>): Promise<A | Unavailable> {
  try {
    return await call();
  } catch (cause) {
    return { status: 'unavailable', reason: `provider failed: ${String(cause)}` };
  }
}
