/**
 * Deadlines that need not be exact, on one shared interval: a per-request `setTimeout` and
 * `clearTimeout` cost ≈ 3 µs in Deno 2.9 (more than reading a small body), while adding and
 * removing an entry here costs a `Map` lookup and an array push. A deadline never fires early,
 * and fires at most two {@linkcode COARSE_RESOLUTION_MS} after it is due (plus event-loop delay).
 *
 * The interval runs only while deadlines exist, and keeps the process alive only while one is
 * pending (it is unref'd the moment the last one is cancelled, and cleared at the next tick).
 * @module
 */

/** The interval's period: a deadline fires at most twice this late (plus event-loop delay). */
export const COARSE_RESOLUTION_MS = 10;

/**
 * The deadlines due at one tick, in the first `used` places of an array that only grows: a cancel
 * leaves its entry and counts it off (a `Set` per slot, rehashed as entries came and went, made
 * ≈ 0.4 KB of garbage per deadline under load). Cancelled entries are dropped when they are most
 * of a large slot, and all of them once none is left (the places are cleared and used again, so a
 * slot whose deadlines come and go one at a time makes no new array each time), so a slot held by
 * one slow request keeps no more than it must; the slot itself leaves the map at its tick.
 */
interface Slot {
  readonly at: number;
  entries: (CoarseDeadline | undefined)[];
  used: number;
  live: number;
}

const slots = new Map<number, Slot>();
let live = 0;
let done = 0; // every slot up to this one has fired
let interval: ReturnType<typeof setInterval> | undefined;

function slotAt(ms: number): number {
  return Math.floor(ms / COARSE_RESOLUTION_MS);
}

/** A slot's array is compacted only from this length on (and when three quarters are cancelled). */
const COMPACT_MIN = 64;

/**
 * A deadline on the coarse timer, as a record of its own: a per-request object that extends it
 * (say, a body read) is its own timer entry, so arming and cancelling make no closure.
 * {@linkcode CoarseDeadline.fire} runs once the armed time has passed, at most
 * 2 × {@linkcode COARSE_RESOLUTION_MS} later, unless {@linkcode CoarseDeadline.cancel} came first.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { CoarseDeadline } from "./coarse_timer.ts";
 * class Flag extends CoarseDeadline {
 *   fired = false;
 *   fire(): void {
 *     this.fired = true;
 *   }
 * }
 * const flag = new Flag();
 * flag.arm(5000);
 * flag.cancel(); // the usual case: the work finished in time
 * assert.equal(flag.fired, false);
 * ```
 */
export abstract class CoarseDeadline {
  /** The slot it waits in; unset once cancelled or fired. */
  #slot: Slot | undefined = undefined;

  /** What happens when the deadline passes; a throw is reported after the others fired. */
  abstract fire(): void;

  /** Arms it to fire once `ms` have passed (a pending one is cancelled first). */
  arm(ms: number): void {
    if (this.#slot !== undefined) this.cancel();
    const now = performance.now();
    if (interval === undefined) {
      done = slotAt(now);
      interval = setInterval(CoarseDeadline.#tick, COARSE_RESOLUTION_MS);
    } else if (live === 0) Deno.refTimer(interval);
    // The first tick at or after the due time fires it, and never one before.
    const at = Math.max(slotAt(now + Math.max(0, ms)) + 1, done + 1);
    let slot = slots.get(at);
    if (!slot) slots.set(at, slot = { at, entries: [], used: 0, live: 0 });
    this.#slot = slot;
    if (slot.used < slot.entries.length) slot.entries[slot.used] = this;
    else slot.entries.push(this);
    slot.used++;
    slot.live++;
    live++;
  }

  /** Disarms it; harmless when already cancelled or fired. */
  cancel(): void {
    const slot = this.#slot;
    if (slot === undefined) return;
    this.#slot = undefined;
    // An emptied slot stays in the map until its tick (one insert and one delete per tick, not
    // per deadline: a map that shrank and grew again with every request made garbage each time).
    if (--slot.live === 0) {
      slot.entries.fill(undefined, 0, slot.used);
      slot.used = 0;
    } else if (slot.used >= COMPACT_MIN && slot.live * 4 < slot.used) {
      slot.entries = slot.entries.slice(0, slot.used).filter((e) => e!.#slot === slot);
      slot.used = slot.entries.length;
    }
    if (--live === 0 && interval !== undefined) Deno.unrefTimer(interval);
  }

  /** The interval's work: fires the deadlines whose slots are due. */
  static #tick(this: void): void {
    const now = slotAt(performance.now());
    for (; done < now; done++) {
      const due = slots.get(done + 1);
      if (!due) continue;
      slots.delete(done + 1);
      // The array and count as they were: a cancel from a firing deadline may compact the slot
      // into a new array (this one stays as it was) or clear this one (its places read undefined).
      const { entries, used } = due;
      for (let i = 0; i < used; i++) {
        const entry = entries[i];
        if (entry === undefined || entry.#slot !== due) continue; // cancelled (or armed again)
        entry.#slot = undefined; // a late cancel() then finds nothing to undo
        due.live--;
        live--;
        try {
          entry.fire();
        } catch (err) {
          queueMicrotask(() => {
            throw err; // reported as any uncaught error would be, after the others fired
          });
        }
      }
    }
    if (live === 0) {
      clearInterval(interval);
      interval = undefined;
      slots.clear(); // emptied slots not yet due: the next start skips past them
    }
  }
}

/** {@linkcode coarseTimeout}'s entry: a deadline that calls a function. */
class CallbackDeadline extends CoarseDeadline {
  readonly #fn: () => void;
  constructor(fn: () => void) {
    super();
    this.#fn = fn;
  }
  fire(): void {
    this.#fn();
  }
}

/**
 * Calls `fire` once `ms` have passed (at most 2 × {@linkcode COARSE_RESOLUTION_MS} later),
 * unless the returned function is called first.
 *
 * @example Usage
 * ```ts
 * import { coarseTimeout } from "./coarse_timer.ts";
 * let fired = false;
 * const cancel = coarseTimeout(5000, () => fired = true);
 * cancel(); // the usual case: the work finished in time
 * if (fired) throw new Error("a cancelled deadline fired");
 * ```
 */
export function coarseTimeout(ms: number, fire: () => void): () => void {
  const deadline = new CallbackDeadline(fire);
  deadline.arm(ms);
  return () => deadline.cancel();
}
