/**
 * Independent test steps run side by side: most end-to-end steps wait on a child process or a
 * socket, so running a few at once cuts a file's wall time without dropping a case. Each item is
 * still its own named step, so a failure names the case it belongs to.
 *
 * @module
 */

/** Options of {@linkcode concurrentSteps}. */
export interface ConcurrentStepsOptions<T> {
  /** Steps in flight at once (at least 1). */
  concurrency: number;
  /** The step's name for an item. */
  name: (item: T) => string;
}

/**
 * Runs `fn` as one step of `t` per item, at most `concurrency` at a time, in the items' order, and
 * resolves when every step has ended; a step that fails fails `t` (as `t.step` does). The steps
 * run without Deno's op, resource and exit sanitizers (sanitized steps cannot overlap).
 *
 * @example Usage
 * ```ts ignore
 * import { concurrentSteps } from "@svc/testing";
 * Deno.test("every route", async (t) => {
 *   await concurrentSteps(t, ["/a", "/b"], { concurrency: 2, name: (p) => p }, async (path) => {
 *     // ... one route's checks
 *   });
 * });
 * ```
 * @throws {RangeError} when `concurrency` is below 1.
 */
export async function concurrentSteps<T>(
  t: Deno.TestContext,
  items: readonly T[],
  options: ConcurrentStepsOptions<T>,
  fn: (item: T, t: Deno.TestContext) => void | Promise<void>,
): Promise<void> {
  const { concurrency, name } = options;
  if (!(concurrency >= 1)) {
    throw new RangeError(`Cannot run steps: concurrency ${concurrency} is below 1`);
  }
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++];
      await t.step({
        name: name(item),
        sanitizeOps: false,
        sanitizeResources: false,
        sanitizeExit: false,
        fn: (st) => fn(item, st),
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}
