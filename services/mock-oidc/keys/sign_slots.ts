/**
 * A small async semaphore for off-thread signing. Why: each nonblocking FFI call runs on its
 * own worker thread; with 16 signatures in flight the event-loop thread would be one runnable
 * thread among 17 and get a fraction of a core. Capping in-flight signatures at the core count
 * keeps the event loop scheduled while every core still signs.
 *
 * @module
 */

/** Runs at most `limit` tasks at a time, in arrival order. */
export interface SignSlots {
  run<T>(task: () => Promise<T>): Promise<T>;
}

/** Create a semaphore admitting `limit` (≥ 1) concurrent tasks. */
export function createSignSlots(limit: number): SignSlots {
  const max = Math.max(1, Math.floor(limit));
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  return {
    async run(task) {
      if (active < max) active++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
