/**
 * Calls held while the person decides (docs/mcp-gateway.md, "Held calls"). MCP clients time out
 * a call (often after 60 s), send `notifications/cancelled` and may try the same call again. So:
 *
 * - identical calls (same upstream, tool and arguments) share one piece of work: one prompt in
 *   Countersign and, once approved, one run of the tool, whose result every waiting caller gets;
 * - when the last caller goes away, the work is aborted after a short grace (the prompt is
 *   withdrawn), unless an identical call comes back within it;
 * - a result that finished while nobody waited (the person approved in the grace) is kept until
 *   the prompt's expiry and handed to the next identical call, so the tool never runs twice for
 *   one approval. A result that reached a caller is forgotten: calling again asks again.
 */

/** How long work outlives its last caller: enough for a client to retry after its time-out. */
export const DEFAULT_GRACE_MS = 5_000;

interface Work<T> {
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
  graceTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the work may no longer be joined (the prompt's expiry). */
  expiresAt: number;
  /** Settled while nobody waited: kept for the next identical call. */
  undelivered: boolean;
}

export class HeldCalls<T> {
  readonly #work = new Map<string, Work<T>>();

  constructor(
    private readonly graceMs = DEFAULT_GRACE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many pieces of work are held (for tests and diagnostics). */
  get size(): number {
    return this.#work.size;
  }

  /**
   * The result of the work for `key`: joined if identical work is held, else started with `start`.
   * Rejects with the signal's reason when this caller's `signal` aborts (the work may go on for others).
   */
  run(key: string, expiresAt: number, start: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T> {
    signal.throwIfAborted();
    let work = this.#work.get(key);
    if (work !== undefined && this.now() >= work.expiresAt) {
      this.#drop(key, work);
      work = undefined;
    }
    if (work === undefined) work = this.#start(key, expiresAt, start);
    return this.#join(key, work, signal);
  }

  #start(key: string, expiresAt: number, start: (signal: AbortSignal) => Promise<T>): Work<T> {
    const controller = new AbortController();
    const work: Work<T> = { promise: Promise.resolve().then(() => start(controller.signal)), controller, waiters: 0, graceTimer: undefined, expiresAt, undelivered: false };
    this.#work.set(key, work);
    void work.promise.then(
      () => {
        if (work.waiters === 0 && this.#work.get(key) === work) {
          // Finished with nobody waiting: keep it for a retry until the expiry, then forget it.
          work.undelivered = true;
          this.#clearGrace(work);
          const left = Math.max(0, work.expiresAt - this.now());
          setTimeout(() => this.#work.get(key) === work && this.#work.delete(key), left).unref?.();
        }
      },
      () => {
        if (this.#work.get(key) === work) this.#drop(key, work);
      },
    );
    return work;
  }

  #join(key: string, work: Work<T>, signal: AbortSignal): Promise<T> {
    work.waiters += 1;
    this.#clearGrace(work);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        work.waiters -= 1;
        if (work.waiters === 0 && !work.undelivered) this.#startGrace(key, work);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      work.promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          if (signal.aborted) return;
          work.waiters -= 1;
          // Delivered: the next identical call is new work (and asks again).
          if (this.#work.get(key) === work) this.#work.delete(key);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          if (signal.aborted) return;
          work.waiters -= 1;
          reject(error);
        },
      );
    });
  }

  #startGrace(key: string, work: Work<T>): void {
    this.#clearGrace(work);
    work.graceTimer = setTimeout(() => {
      if (work.waiters === 0 && this.#work.get(key) === work && !work.undelivered) this.#drop(key, work);
    }, this.graceMs);
    work.graceTimer.unref?.();
  }

  #clearGrace(work: Work<T>): void {
    if (work.graceTimer !== undefined) clearTimeout(work.graceTimer);
    work.graceTimer = undefined;
  }

  #drop(key: string, work: Work<T>): void {
    this.#clearGrace(work);
    if (this.#work.get(key) === work) this.#work.delete(key);
    work.controller.abort(new Error('every caller of this tool call went away'));
  }

  /** Aborts all held work (the gateway is shutting down). */
  close(): void {
    for (const [key, work] of [...this.#work]) this.#drop(key, work);
  }
}
