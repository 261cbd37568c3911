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
  fire: () => void;
}

const slots = new Map<number, Set<Entry>>();
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
    for (const entry of due) {
      due.delete(entry); // a late cancel() then finds nothing to undo
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
  const now = performance.now();
  if (interval === undefined) {
    done = slotAt(now);
    interval = setInterval(tick, COARSE_RESOLUTION_MS);
  } else if (live === 0) Deno.refTimer(interval);
  // The first tick at or after the due time fires it, and never one before.
  const slot = Math.max(slotAt(now + Math.max(0, ms)) + 1, done + 1);
  let due = slots.get(slot);
  if (!due) slots.set(slot, due = new Set());
  const entry: Entry = { fire };
  due.add(entry);
  live++;
  return () => {
    if (!due.delete(entry)) return;
    if (due.size === 0 && slots.get(slot) === due) slots.delete(slot);
    if (--live === 0 && interval !== undefined) Deno.unrefTimer(interval);
  };
}
