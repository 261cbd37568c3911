/**
 * Atan, Asin, Acos and Atan2 as Go's `math` package computes them (pure Go on amd64, after
 * Cephes' atan.c): atan by a rational function on [0, 0.66], with the identities
 * atan(x) = pi/2 - atan(1/x) above tan(3 pi/8) and pi/4 + atan((x-1)/(x+1)) between, the low bits
 * of pi/2 added back separately; asin and acos through atan; atan2 from atan(y/x) by quadrant.
 */
import { signbit } from "./bits.ts";

const P0 = -8.750608600031904122785e-01;
const P1 = -1.615753718733365076637e+01;
const P2 = -7.500855792314704667340e+01;
const P3 = -1.228866684490136173410e+02;
const P4 = -6.485021904942025371773e+01;
const Q0 = +2.485846490142306297962e+01;
const Q1 = +1.650270098316988542046e+02;
const Q2 = +4.328810604912902668951e+02;
const Q3 = +4.853903996359136964868e+02;
const Q4 = +1.945506571482613964425e+02;
const MOREBITS = 6.123233995736765886130e-17; // pi/2 minus its float64
const HALF_MOREBITS = 0.5 * MOREBITS;
const TAN3PIO8 = 2.41421356237309504880;
const PI_2 = Math.PI / 2;
const PI_4 = Math.PI / 4;

/** atan on [0, 0.66]. */
function xatan(x: number): number {
  let z = x * x;
  z = z * ((((P0 * z + P1) * z + P2) * z + P3) * z + P4) /
    (((((z + Q0) * z + Q1) * z + Q2) * z + Q3) * z + Q4);
  return x * z + x;
}

/** atan for x >= 0. */
function satan(x: number): number {
  if (x <= 0.66) return xatan(x);
  if (x > TAN3PIO8) return PI_2 - xatan(1 / x) + MOREBITS;
  return PI_4 + xatan((x - 1) / (x + 1)) + HALF_MOREBITS;
}

/** Go's math.Atan. */
export function atan(x: number): number {
  if (x === 0) return x;
  if (x > 0) return satan(x);
  return -satan(-x); // NaN too: -satan(NaN) is NaN
}

/** Go's math.Asin. */
export function asin(x: number): number {
  if (x === 0) return x;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  if (x > 1) return NaN;
  let temp = Math.sqrt(1 - x * x);
  temp = x > 0.7 ? PI_2 - satan(temp / x) : satan(x / temp);
  return sign ? -temp : temp;
}

/** Go's math.Acos. */
export function acos(x: number): number {
  return PI_2 - asin(x);
}

function copysign(x: number, y: number): number {
  return signbit(y) ? -Math.abs(x) : Math.abs(x);
}

/** Go's math.Atan2. */
export function atan2(y: number, x: number): number {
  if (y !== y || x !== x) return NaN;
  if (y === 0) return x >= 0 && !signbit(x) ? copysign(0, y) : copysign(Math.PI, y);
  if (x === 0) return copysign(PI_2, y);
  if (x === Infinity) return y === Infinity || y === -Infinity ? copysign(PI_4, y) : copysign(0, y);
  if (x === -Infinity) {
    return y === Infinity || y === -Infinity ? copysign(3 * Math.PI / 4, y) : copysign(Math.PI, y);
  }
  if (y === Infinity || y === -Infinity) return copysign(PI_2, y);
  const q = atan(y / x);
  if (x < 0) return q <= 0 ? q + Math.PI : q - Math.PI;
  return q;
}
