/**
 * The `Range` request header (RFC 9110 §14.2), limited to what the contract asks: one `bytes=`
 * range (docs/image-proxy.md#objects).
 * Multi-range and malformed values are ignored (the full object is served); a syntactically valid
 * single range the object cannot satisfy is reported so the caller answers 416.
 *
 * @module
 */

/** What a `Range` header asks of an object of a given size. */
export type RangeRequest =
  | { kind: "none" }
  | { kind: "unsatisfiable" }
  | { kind: "range"; start: number; end: number };

const SINGLE = /^bytes[ \t]*=[ \t]*(\d*)-(\d*)[ \t]*$/i;

/**
 * Evaluates a `Range` header against an object of `size` bytes. `end` is inclusive.
 *
 * - `a-b`, `a-` and suffix `-n` forms; `b` past the end is clamped, `-n` longer than the object
 *   means the whole object, still as a range (so `bytes=0-` is answered 206).
 * - Unsatisfiable: `a` at or past the end, `-0`, or any range of an empty object.
 * - Ignored (`none`): absent, another unit, several ranges, `a > b`, anything unparsable.
 *
 * @example Usage
 * ```ts
 * import { parseRange } from "./range.ts";
 * parseRange("bytes=-5", 100); // { kind: "range", start: 95, end: 99 }
 * parseRange("bytes=100-", 100); // { kind: "unsatisfiable" }
 * parseRange("bytes=0-1,5-6", 100); // { kind: "none" }
 * ```
 */
export function parseRange(header: string | null, size: number): RangeRequest {
  if (header === null) return { kind: "none" };
  const m = SINGLE.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return { kind: "none" };
  const total = BigInt(size);
  if (m[1] === "") {
    const suffix = BigInt(m[2]);
    if (suffix === 0n || total === 0n) return { kind: "unsatisfiable" };
    const start = suffix >= total ? 0n : total - suffix;
    return { kind: "range", start: Number(start), end: size - 1 };
  }
  const first = BigInt(m[1]);
  const last = m[2] === "" ? undefined : BigInt(m[2]);
  if (last !== undefined && last < first) return { kind: "none" };
  if (first >= total) return { kind: "unsatisfiable" };
  const end = last === undefined || last >= total ? total - 1n : last;
  return { kind: "range", start: Number(first), end: Number(end) };
}

/**
 * The `Content-Range` value of a served range, or of a 416 (`bytes *\/size`).
 *
 * @example Usage
 * ```ts
 * import { contentRange } from "./range.ts";
 * contentRange(100, { start: 0, end: 9 }); // "bytes 0-9/100"
 * contentRange(100); // "bytes *\/100"
 * ```
 */
export function contentRange(size: number, range?: { start: number; end: number }): string {
  return range ? `bytes ${range.start}-${range.end}/${size}` : `bytes */${size}`;
}
