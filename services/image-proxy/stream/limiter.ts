/**
 * The concurrent-download limit (`proxy.max_streams`): a download takes a slot or is refused at
 * once; nothing queues. A slot is held from admission until its body ends, whether it completes,
 * the client goes away or storage fails.
 *
 * @module
 */

/** A held slot; `release` is idempotent. */
export interface StreamSlot {
  release(): void;
}

/** See the module documentation. */
export interface StreamLimiter {
  readonly max: number;
  /** Slots in use. */
  readonly active: number;
  /** A slot, or `null` when all `max` are taken. */
  tryAcquire(): StreamSlot | null;
  /** Resolves once no slot is held (immediately when none is). */
  idle(): Promise<void>;
}

/**
 * Creates a limiter of `max` slots.
 *
 * @example Usage
 * ```ts
 * import { createStreamLimiter } from "./limiter.ts";
 * const limiter = createStreamLimiter(1);
 * const slot = limiter.tryAcquire()!;
 * limiter.tryAcquire(); // null
 * slot.release();
 * limiter.active; // 0
 * ```
 * @throws {RangeError} when `max` is not a positive integer.
 */
export function createStreamLimiter(max: number): StreamLimiter {
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new RangeError("Cannot create stream limiter: max must be a positive integer");
  }
  let active = 0;
  let waiters: (() => void)[] = [];
  return {
    max,
    get active() {
      return active;
    },
    tryAcquire() {
      if (active >= max) return null;
      active++;
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          if (--active === 0) {
            const ws = waiters;
            waiters = [];
            for (const w of ws) w();
          }
        },
      };
    },
    idle() {
      return active === 0 ? Promise.resolve() : new Promise((r) => waiters.push(r));
    },
  };
}
