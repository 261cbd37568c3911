/**
 * A counting semaphore: at most `limit` tasks run at once, the others wait in arrival order
 * (runner-ctl's `concurrency.incus_operations`, mock-oidc's key generations).
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { Semaphore } from "@svc/shared/semaphore";
 * const one = new Semaphore(1);
 * const order: number[] = [];
 * await Promise.all([1, 2, 3].map((n) => one.run(async () => { order.push(n); })));
 * assert.deepEqual(order, [1, 2, 3]);
 * assert.equal(one.peak, 1);
 * ```
 * @module
 */

/** Runs tasks with at most `limit` in flight. */
export class Semaphore {
  #free: number;
  #queue: (() => void)[] = [];
  /** Highest number of tasks seen in flight at once (tests and benchmarks). */
  peak = 0;
  /** Tasks allowed in flight at once. */
  readonly limit: number;

  /** Creates a semaphore admitting `limit` tasks at once. */
  constructor(limit: number) {
    this.limit = limit;
    this.#free = limit;
  }

  /** Runs `fn` once a slot is free. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#free === 0) await new Promise<void>((r) => this.#queue.push(r));
    else this.#free--;
    this.peak = Math.max(this.peak, this.limit - this.#free);
    try {
      return await fn();
    } finally {
      const next = this.#queue.shift();
      if (next) next();
      else this.#free++;
    }
  }
}
