/**
 * Sin, Cos and Tan as Go's `math` package computes them (pure Go on amd64, after Cephes): the
 * argument is reduced to the octant j of x / (pi/4), rounded up to even, and z = x - j pi/4 with
 * pi/4 split in three parts (Cody–Waite), or by Payne–Hanek from 2**29 up; then Cephes'
 * polynomials for sin and cos on [-pi/4, pi/4], and a rational function for tan.
 */
import { REDUCE_THRESHOLD, trigReduce } from "./trig_reduce.ts";

const S0 = 1.58962301576546568060e-10;
const S1 = -2.50507477628578072866e-8;
const S2 = 2.75573136213857245213e-6;
const S3 = -1.98412698295895385996e-4;
const S4 = 8.33333333332211858878e-3;
const S5 = -1.66666666666666307295e-1;
const C0 = -1.13585365213876817300e-11;
const C1 = 2.08757008419747316778e-9;
const C2 = -2.75573141792967388112e-7;
const C3 = 2.48015872888517045348e-5;
const C4 = -1.38888888888730564116e-3;
const C5 = 4.16666666666665929218e-2;
const TP0 = -1.30936939181383777646e4;
const TP1 = 1.15351664838587416140e6;
const TP2 = -1.79565251976484877988e7;
const TQ1 = 1.36812963470692954678e4;
const TQ2 = -1.32089234440210967447e6;
const TQ3 = 2.50083801823357915839e7;
const TQ4 = -5.38695755929454629881e7;
const PI4A = 7.85398125648498535156e-1;
const PI4B = 3.77489470793079817668e-8;
const PI4C = 2.69515142907905952645e-15;
const FOUR_OVER_PI = 4 / Math.PI; // the correctly rounded 4/pi, as Go's constant folding gives

// The reduction result, kept in module state so the hot path allocates nothing.
let octant = 0;
let reduced = 0;

/** Sets octant (even, before mod 8 for the Cody–Waite path) and reduced for x >= 0. */
function reduce(x: number, wrap: boolean): void {
  if (x >= REDUCE_THRESHOLD) {
    [octant, reduced] = trigReduce(x);
    return;
  }
  let j = Math.trunc(x * FOUR_OVER_PI);
  let y = j;
  if (j % 2 === 1) {
    j++;
    y++;
  }
  octant = wrap ? j % 8 : j;
  reduced = ((x - y * PI4A) - y * PI4B) - y * PI4C;
}

function sinPoly(z: number, zz: number): number {
  return z + z * zz * (((((S0 * zz + S1) * zz + S2) * zz + S3) * zz + S4) * zz + S5);
}

function cosPoly(zz: number): number {
  return 1.0 - 0.5 * zz +
    zz * zz * (((((C0 * zz + C1) * zz + C2) * zz + C3) * zz + C4) * zz + C5);
}

/** Go's math.Sin. */
export function sin(x: number): number {
  if (x === 0 || x !== x) return x;
  if (!Number.isFinite(x)) return NaN;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  reduce(x, true);
  let j = octant;
  const z = reduced;
  if (j > 3) {
    sign = !sign;
    j -= 4;
  }
  const zz = z * z;
  const y = j === 1 || j === 2 ? cosPoly(zz) : sinPoly(z, zz);
  return sign ? -y : y;
}

/** Go's math.Cos. */
export function cos(x: number): number {
  if (!Number.isFinite(x)) return NaN;
  x = Math.abs(x);
  reduce(x, true);
  let j = octant;
  const z = reduced;
  let sign = false;
  if (j > 3) {
    j -= 4;
    sign = !sign;
  }
  if (j > 1) sign = !sign;
  const zz = z * z;
  const y = j === 1 || j === 2 ? sinPoly(z, zz) : cosPoly(zz);
  return sign ? -y : y;
}

/** Go's math.Tan. */
export function tan(x: number): number {
  if (x === 0 || x !== x) return x;
  if (!Number.isFinite(x)) return NaN;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  reduce(x, false);
  const z = reduced;
  const zz = z * z;
  let y = z;
  if (zz > 1e-14) {
    y = z + z * (zz * ((TP0 * zz + TP1) * zz + TP2) /
          ((((zz + TQ1) * zz + TQ2) * zz + TQ3) * zz + TQ4));
  }
  // j mod 4 (the integer j can exceed 2**32 below the Payne–Hanek threshold)
  if (octant % 4 === 2) y = -1 / y;
  return sign ? -y : y;
}
