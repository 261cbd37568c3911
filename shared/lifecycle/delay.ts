/**
 * Waiting that stops when asked: {@linkcode delay} and {@linkcode runEvery}, the two shapes a
 * background loop is made of (runner-ctl's reconcile loop, a readiness probe).
 *
 * @module
 */

/**
 * Resolves after `ms`, or rejects with `signal.reason` as soon as `signal` aborts (at once when it
 * already has). The timer never keeps the process alive past an abort.
 *
 * @example Usage
 * ```ts
 * import { delay } from "@svc/shared/lifecycle";
 * import assert from "node:assert/strict";
 * await delay(1);
 * const stop = new AbortController();
 * stop.abort(new Error("stopped"));
 * await assert.rejects(delay(60_000, { signal: stop.signal }), /stopped/);
 * ```
 * @throws {unknown} `signal.reason` when `signal` aborts first.
 */
export function delay(ms: number, options: { signal?: AbortSignal } = {}): Promise<void> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Options of {@linkcode runEvery}. */
export interface RunEveryOptions {
  /** Time from the start of one run to the start of the next; a longer run is followed at once. */
  intervalMs: number;
  /** Ends the loop: no run starts after it aborts, and the wait between runs is cut short. */
  signal: AbortSignal;
  /** Monotonic clock in ms. @default {performance.now} */
  now?: () => number;
}

/**
 * Runs `fn` at once and then every `intervalMs` until `signal` aborts, then resolves. `fn` gets
 * the signal to pass on to its own I/O. A run that throws ends the loop with that error (after an
 * abort, the abort is not an error): retry policy belongs to `fn`, failure reporting to whoever
 * awaits the loop (e.g. a background task).
 *
 * @example Usage
 * ```ts
 * import { runEvery } from "@svc/shared/lifecycle";
 * import assert from "node:assert/strict";
 * const stop = new AbortController();
 * let runs = 0;
 * await runEvery(() => {
 *   if (++runs === 3) stop.abort();
 * }, { intervalMs: 1, signal: stop.signal });
 * assert.equal(runs, 3);
 * ```
 * @throws {unknown} whatever `fn` throws before `signal` aborts.
 */
export async function runEvery(
  fn: (signal: AbortSignal) => Promise<void> | void,
  options: RunEveryOptions,
): Promise<void> {
  const { intervalMs, signal, now = () => performance.now() } = options;
  while (!signal.aborted) {
    const started = now();
    try {
      await fn(signal);
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
    const wait = Math.max(0, started + intervalMs - now());
    await delay(wait, { signal }).catch(() => {});
  }
}
