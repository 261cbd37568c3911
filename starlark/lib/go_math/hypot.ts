/**
 * Hypot as Go's amd64 assembly computes it: max * sqrt(1 + (min/max)**2), with an infinite
 * argument giving +Inf even beside NaN. (The pure-Go fallback scales differently; amd64 never
 * uses it.)
 */

/** Go's amd64 math.Hypot. */
export function hypot(p: number, q: number): number {
  p = Math.abs(p);
  q = Math.abs(q);
  if (p === Infinity || q === Infinity) return Infinity;
  if (p !== p || q !== q) return NaN;
  if (p === 0 && q === 0) return 0;
  const big = p > q ? p : q;
  const small = p > q ? q : p;
  const r = small / big;
  return big * Math.sqrt(1 + r * r);
}
