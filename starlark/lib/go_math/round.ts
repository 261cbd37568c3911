/** Round as Go's `math.Round`: to the nearest integer, halves away from zero, exactly. */

/** Go's math.Round. */
export function round(x: number): number {
  if (!Number.isFinite(x)) return x;
  const a = Math.abs(x);
  const f = Math.floor(a);
  const r = a - f >= 0.5 ? f + 1 : f; // a - f is exact for every float64
  return x < 0 || (x === 0 && 1 / x < 0) ? -r : r;
}
