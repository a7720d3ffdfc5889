import { err, ok, type Result } from 'neverthrow';

/**
 * A call refused because `WorkLimit`'s queue was full: the process is busy, try again shortly. Shaped as the
 * admin API's `busy` error, which passes it on as it is.
 */
export interface WorkLimitBusy {
  code: 'busy';
  message: string;
}

/**
 * Runs at most `concurrency` tasks at once; up to `queue` more wait their turn (first come, first
 * served) and any beyond are refused at once (`WorkLimitBusy`), so a flood costs a bounded wait
 * and memory rather than an ever longer queue. A task's own failure rejects, as it would unlimited.
 */
export class WorkLimit {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(
    private readonly what: string,
    private readonly concurrency: number,
    private readonly queue: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<Result<T, WorkLimitBusy>> {
    if (this.#running >= this.concurrency) {
      if (this.#waiting.length >= this.queue)
        return err({ code: 'busy', message: `too many ${this.what} at once: try again in a moment` });
      // The finishing task hands its place over: #running stays as it is.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else this.#running++;
    try {
      return ok(await task());
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
