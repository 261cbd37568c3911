/**
 * Exact three-way ordering of ints and floats, shared by equality (hash.ts) and the ordering
 * operators (ops.ts). NaN sorts above every number and equals itself, as in starlark-go.
 */

/** Compare an int with a float exactly: returns -1, 0, 1 (NaN sorts above everything). */
export function cmpIntFloat(i: number | bigint, f: number): number {
  if (Number.isNaN(f)) return -1;
  if (typeof i === "number") return i < f ? -1 : i > f ? 1 : 0;
  if (f === Infinity) return -1;
  if (f === -Infinity) return 1;
  const ft = Math.trunc(f);
  const fb = BigInt(ft);
  if (i < fb) return -1;
  if (i > fb) return 1;
  return f > ft ? -1 : f < ft ? 1 : 0;
}

/** Compare two floats: -1, 0, 1 (NaN equals NaN and sorts above everything). */
export function cmpFloat(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  // NaN handling: NaN == NaN, NaN > everything
  const an = Number.isNaN(a), bn = Number.isNaN(b);
  if (an && bn) return 0;
  return an ? 1 : -1;
}
