/** Marks a `WorkLimitBusy` in every copy of this module (one per entry in the CommonJS build). */
const BUSY = Symbol.for('tron-safety.WorkLimitBusy');

/**
 * A call refused because `WorkLimit`'s queue was full: the process is busy, try again shortly. Test for it
 * with `isWorkLimitBusy`, not `instanceof`: the CommonJS build defines the class once per entry, so the one
 * the root's passwords throw is not the one `@tron-safety/core/internal` exports.
 */
export class WorkLimitBusy extends Error {
  constructor(what: string) {
    super(`too many ${what} at once: try again in a moment`);
    this.name = 'WorkLimitBusy';
    Object.defineProperty(this, BUSY, { value: true });
  }
}

/** Whether `error` is a `WorkLimitBusy` of any copy of this module. */
export function isWorkLimitBusy(error: unknown): error is WorkLimitBusy {
  return typeof error === 'object' && error !== null && BUSY in error;
}

/**
 * Runs at most `concurrency` tasks at once; up to `queue` more wait their turn (first come, first
 * served) and any beyond are refused at once with `WorkLimitBusy`, so a flood costs a bounded wait
 * and memory rather than an ever longer queue.
 */
export class WorkLimit {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(
    private readonly what: string,
    private readonly concurrency: number,
    private readonly queue: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.concurrency) {
      if (this.#waiting.length >= this.queue) throw new WorkLimitBusy(this.what);
      // The finishing task hands its place over: #running stays as it is.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else this.#running++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
