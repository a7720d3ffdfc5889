import type { Unavailable } from './signals.js';

/**
 * Calls a provider that promised never to reject and to answer in its type (`isAnswer`); if it breaks
 * the promise (a host's own provider, a bug), the rejection or the odd answer becomes that provider's
 * `unavailable`, never a clean answer and never everyone's failure.
 */
export function settle<A>(call: () => Promise<unknown>, isAnswer: (u: unknown) => u is A): Promise<A | Unavailable> {
  const checked = (answer: unknown): A | Unavailable =>
    isAnswer(answer) ? answer : { status: 'unavailable', reason: 'provider answered in an unknown shape' };
  try {
    return Promise.resolve(call()).then(checked, failed);
  } catch (cause) {
    return Promise.resolve(failed(cause));
  }
}

const failed = (cause: unknown): Unavailable => ({
  status: 'unavailable',
  reason: `provider failed: ${String(cause)}`,
});
