/**
 * Waiting on an event in tests: {@linkcode waitUntil} polls a condition that checks the event
 * itself, bounded in time, instead of sleeping for a fixed time and hoping it happened.
 *
 * @module
 */

/** Options of {@linkcode waitUntil}. */
export interface WaitUntilOptions {
  /** What is awaited, for the error: `Cannot wait for <what>: …`. */
  what: string;
  /** Give up after this long. @default {30000} */
  timeoutMs?: number;
  /** Time between checks. @default {5} */
  intervalMs?: number;
}

/**
 * Resolves as soon as `check()` is true (checked at once, then every `intervalMs`); rejects with
 * `Cannot wait for <what>: still false after <timeoutMs> ms` when it stays false.
 *
 * @example Usage
 * ```ts
 * import { waitUntil } from "@svc/testing";
 * let done = false;
 * setTimeout(() => done = true, 1);
 * await waitUntil(() => done, { what: "the timer" });
 * ```
 * @throws {Error} when `check()` stays false for `timeoutMs`, or rethrows what `check()` throws.
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  options: WaitUntilOptions,
): Promise<void> {
  const { timeoutMs = 30_000, intervalMs = 5 } = options;
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() >= deadline) {
      throw new Error(`Cannot wait for ${options.what}: still false after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Resolves after the macrotasks already queued have run (one turn of the event loop), e.g. so
 * that a socket event or a timer of 0 ms is delivered. No time is waited for.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
