/** What `withinMs` answers when the time ran out before the work did. */
export const TIMED_OUT = Symbol('timed out');

/**
 * `work`'s outcome, or `TIMED_OUT` once `ms` have passed; the timer never outlives the race.
 * The work itself goes on (nothing here can cancel it): a caller that gives up on it decides
 * what becomes of its outcome.
 */
export async function withinMs<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, ms));
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
