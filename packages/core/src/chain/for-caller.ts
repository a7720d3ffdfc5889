/**
 * Shared work (one read that several checks wait on) as one caller sees it: its answer, `aborted()`
 * once the caller's signal fires, or `late()` once the caller's deadline (`performance.now()`) passes.
 * The work goes on for the others. Rejects when the work rejects (a bug: failures are answers).
 */
export function forCaller<T, A, L>(
  work: Promise<T>,
  { signal, deadline }: { signal: AbortSignal; deadline: number },
  aborted: () => A,
  late: () => L,
): Promise<T | A | L> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return resolve(aborted());
    const stop = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    const finish = (value: T | A | L) => {
      stop();
      resolve(value);
    };
    const onAbort = () => finish(aborted());
    const left = deadline - performance.now();
    // An infinite deadline sets no timer (setTimeout would read it as 1 ms).
    const timer = Number.isFinite(left) ? setTimeout(() => finish(late()), Math.max(0, left)) : undefined;
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(finish, (error: unknown) => {
      stop();
      reject(error);
    });
  });
}
