/**
 * Mod and Remainder as Go's `math` package computes them. Go's Mod subtracts scaled copies of y
 * until r < |y|, each step exact, so it equals the exact fmod that JavaScript's `%` is specified
 * to compute; Remainder reduces with Mod(x, 2y) and then corrects toward the nearest multiple
 * (fdlibm's e_remainder.c).
 */

/** Go's math.Mod: x - n y for the n that truncates x / y, exactly, with the sign of x. */
export function mod(x: number, y: number): number {
  return x % y;
}

const TINY = 4.45014771701440276618e-308; // 2**-1021
const HALF_MAX = Number.MAX_VALUE / 2;

/** Go's math.Remainder: x - n y for the n nearest x / y (ties to even), exactly. */
export function remainder(x: number, y: number): number {
  if (x !== x || y !== y || !Number.isFinite(x) || y === 0) return NaN;
  if (!Number.isFinite(y)) return x;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  if (y < 0) y = -y;
  if (x === y) return sign ? -0 : 0;
  if (y <= HALF_MAX) x = mod(x, y + y); // now x < 2y
  if (y < TINY) {
    if (x + x > y) {
      x -= y;
      if (x + x >= y) x -= y;
    }
  } else {
    const yHalf = 0.5 * y;
    if (x > yHalf) {
      x -= y;
      if (x >= yHalf) x -= y;
    }
  }
  return sign ? -x : x;
}
