/**
 * A version number that grows on every change of the request log, and a non-destructive long
 * poll on it: the console learns that the log changed without taking (and so stealing) a request
 * from a test that waits on `POST /_mock/requests/take`.
 * @module
 */

/** Options of {@linkcode ChangeFeed.wait}. */
export interface ChangeWaitOptions {
  /** Longest wait; at 0 or below the current version is answered at once. */
  timeoutMs: number;
  /** Ends the wait early (client gone, request timeout, shutdown). */
  signal?: AbortSignal;
}

/**
 * Counts changes and wakes the waiters of each one.
 *
 * @example Usage
 * ```ts
 * import { ChangeFeed } from "./change_feed.ts";
 * const feed = new ChangeFeed();
 * const next = feed.wait(0, { timeoutMs: 1000 });
 * feed.bump();
 * if (await next !== 1) throw new Error("the change was missed");
 * ```
 */
export class ChangeFeed {
  #version = 0;
  #waiters = new Set<() => void>();

  /** The number of changes so far. */
  get version(): number {
    return this.#version;
  }

  /** Records one change and wakes every waiter. */
  bump(): void {
    this.#version++;
    this.release();
  }

  /** Wakes every waiter without a change (shutdown); they answer the current version. */
  release(): void {
    const waiters = this.#waiters;
    this.#waiters = new Set();
    for (const wake of waiters) wake();
  }

  /**
   * Resolves with the current version as soon as it differs from `after` (at once when it
   * already does, e.g. after a restart reset the count), or when the wait ends without a change.
   */
  wait(after: number, options: ChangeWaitOptions): Promise<number> {
    const { timeoutMs, signal } = options;
    if (this.#version !== after || timeoutMs <= 0 || signal?.aborted) {
      return Promise.resolve(this.#version);
    }
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.#waiters.delete(finish);
        resolve(this.#version);
      };
      const onAbort = () => finish();
      const timer = setTimeout(finish, timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.add(finish);
    });
  }
}
