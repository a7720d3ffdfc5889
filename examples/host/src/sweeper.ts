/** The host's periodic store sweep. */
export interface Sweeper {
  /** Stops starting sweeps (one still running finishes by itself). */
  stop(): void;
}

/**
 * Runs `sweep` every `intervalMs`, never two at once: a tick that comes while the previous sweep
 * still runs (a backlog worked off up to its time budget, a slow database) is skipped, so slow
 * sweeps never pile up on the database.
 */
export function startSweeper(
  sweep: () => Promise<void>,
  intervalMs: number,
  onError: (error: unknown) => void,
): Sweeper {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweep()
      .catch(onError)
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
