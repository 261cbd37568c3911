/**
 * Substring search over long strings in bounded chunks: each chunk charges its steps first, so
 * the step budget and the deadline are checked between chunks (one V8 search over 16 MiB can
 * take hundreds of milliseconds).
 */
import { current } from "../thread.ts";

/** Haystack bytes searched per chunk. */
const CHUNK = 1 << 16;

/** Index of `needle` in hay[from:to], or -1; charges a step per 16 bytes scanned. */
export function indexOfFrom(hay: string, needle: string, from = 0, to = hay.length): number {
  const m = needle.length;
  const step = Math.max(CHUNK, m);
  for (let a = from; a + m <= to; a += step) {
    const b = Math.min(to, a + step + m - 1);
    const i = a === 0 && b === hay.length ? hay.indexOf(needle) : hay.slice(a, b).indexOf(needle);
    current.charge(1 + ((i < 0 ? b - a : i + m) >> 4)); // a step a search, one per 16 bytes
    if (i >= 0) return a + i;
  }
  return -1;
}

/** Index of the last `needle` in hay[from:to], or -1; charged like indexOfFrom. */
export function lastIndexIn(hay: string, needle: string, from = 0, to = hay.length): number {
  const m = needle.length;
  const step = Math.max(CHUNK, m);
  for (let b = to; b - m >= from; b -= step) {
    const a = Math.max(from, b - step - m + 1);
    const i = a === 0 && b === hay.length
      ? hay.lastIndexOf(needle)
      : hay.slice(a, b).lastIndexOf(needle);
    current.charge(1 + ((i < 0 ? b - a : b - a - i) >> 4));
    if (i >= 0) return a + i;
  }
  return -1;
}

/** Non-overlapping occurrences of a non-empty `needle` in hay[from:to]. */
export function countIn(hay: string, needle: string, from = 0, to = hay.length): number {
  let n = 0;
  for (let i = indexOfFrom(hay, needle, from, to); i >= 0;) {
    n++;
    i = indexOfFrom(hay, needle, i + needle.length, to);
  }
  return n;
}

/** Charge a linear pass of JS code over `n` bytes (a step per 8 bytes, checked every 64 KiB). */
export function chargeScan(n: number): void {
  if (n > 256) current.charge(n >> 3);
}
