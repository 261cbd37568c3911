/**
 * Deadlines that need not be exact, on one shared interval: a per-request `setTimeout` and
 * `clearTimeout` cost ≈ 3 µs in Deno 2.9 (more than reading a small body), while adding and
 * removing an entry here costs a `Map` lookup and a `Set` insert. A deadline never fires early,
 * and fires at most two {@linkcode COARSE_RESOLUTION_MS} after it is due (plus event-loop delay).
 *
 * The interval runs only while deadlines exist, and keeps the process alive only while one is
 * pending (it is unref'd the moment the last one is cancelled, and cleared at the next tick).
 * @module
 */

/** The interval's period: a deadline fires at most twice this late (plus event-loop delay). */
export const COARSE_RESOLUTION_MS = 10;

interface Entry {
  /** Unset once cancelled or fired. */
  fire: (() => void) | undefined;
  readonly slot: Slot;
}

/**
 * The deadlines due at one tick, in an array that only grows: a cancel unsets its entry and
 * counts it off (a `Set` per slot, rehashed as entries came and went, made ≈ 0.4 KB of garbage
 * per deadline under load). Cancelled entries are dropped when they are most of a large slot, and
 * all of them once none is left, so a slot held by one slow request keeps no more than it must; the
 * slot itself leaves the map at its tick.
 */
interface Slot {
  readonly at: number;
  entries: Entry[];
  live: number;
}

const slots = new Map<number, Slot>();
let live = 0;
let done = 0; // every slot up to this one has fired
let interval: ReturnType<typeof setInterval> | undefined;

function slotAt(ms: number): number {
  return Math.floor(ms / COARSE_RESOLUTION_MS);
}

function tick(): void {
  const now = slotAt(performance.now());
  for (; done < now; done++) {
    const due = slots.get(done + 1);
    if (!due) continue;
    slots.delete(done + 1);
    const { entries } = due;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      const fire = entry.fire;
      if (fire === undefined) continue;
      entry.fire = undefined; // a late cancel() then finds nothing to undo
      due.live--;
      live--;
      try {
        fire();
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

function cancel(entry: Entry): void {
  if (entry.fire === undefined) return;
  entry.fire = undefined;
  const slot = entry.slot;
  // An emptied slot stays in the map until its tick (one insert and one delete per tick, not per
  // deadline: a map that shrank and grew again with every request made garbage each time).
  if (--slot.live === 0) slot.entries.length = 0;
  else if (slot.entries.length >= COMPACT_MIN && slot.live * 4 < slot.entries.length) {
    slot.entries = slot.entries.filter((e) => e.fire !== undefined);
  }
  if (--live === 0 && interval !== undefined) Deno.unrefTimer(interval);
}

/** A slot's array is compacted only from this length on (and when three quarters are cancelled). */
const COMPACT_MIN = 64;

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
  const now = performance.now();
  if (interval === undefined) {
    done = slotAt(now);
    interval = setInterval(tick, COARSE_RESOLUTION_MS);
  } else if (live === 0) Deno.refTimer(interval);
  // The first tick at or after the due time fires it, and never one before.
  const at = Math.max(slotAt(now + Math.max(0, ms)) + 1, done + 1);
  let slot = slots.get(at);
  if (!slot) slots.set(at, slot = { at, entries: [], live: 0 });
  const entry: Entry = { fire, slot };
  slot.entries.push(entry);
  slot.live++;
  live++;
  return () => cancel(entry);
}
