/**
 * Gamma function: a TypeScript port of the algorithm of Go's `math.Gamma` (go/src/math/gamma.go,
 * itself from the Cephes library by Stephen L. Moshier): Stirling's formula above 33 with the
 * result split in two factors so that 143 < x < 171.6 does not overflow, reflection for large
 * negative x, and a rational approximation on [2, 3] after argument reduction otherwise. Written
 * to match starlark-go results (Go's `math.Gamma`) to the last bit, hence Go's own `Exp`, `Pow` and
 * `Sin` from `go_math/`: with V8's the Stirling branch was off by several ulps.
 */
import { exp as goExp } from "./go_math/exp_log.ts";
import { pow as goPow } from "./go_math/pow.ts";
import { sin as goSin } from "./go_math/trig.ts";

const GAM_P = [
  1.60119522476751861407e-04,
  1.19135147006586384913e-03,
  1.04213797561761569935e-02,
  4.76367800457137231464e-02,
  2.07448227648435975150e-01,
  4.94214826801497100753e-01,
  9.99999999999999996796e-01,
];
const GAM_Q = [
  -2.31581873324120129819e-05,
  5.39605580493303397842e-04,
  -4.45641913851797240494e-03,
  1.18139785222060435552e-02,
  3.58236398605498653373e-02,
  -2.34591795718243348568e-01,
  7.14304917030273074085e-02,
  1.00000000000000000320e+00,
];
const GAM_S = [
  7.87311395793093628397e-04,
  -2.29549961613378126380e-04,
  -2.68132617805781232825e-03,
  3.47222221605458667310e-03,
  8.33333333333482257126e-02,
];
const SQRT_TWO_PI = 2.506628274631000502417;
const MAX_STIRLING = 143.01608;
const EULER = 0.57721566490153286060651209008240243104215933593992;

/**
 * Stirling's formula for x > 33 as two factors whose product is Gamma(x); the caller multiplies
 * (or divides by) them one at a time so that the intermediate results stay finite.
 */
function stirling(x: number): [number, number] {
  if (x > 200) return [Infinity, 1];
  let w = 1 / x;
  w = 1 + w * ((((GAM_S[0] * w + GAM_S[1]) * w + GAM_S[2]) * w + GAM_S[3]) * w + GAM_S[4]);
  let y1 = goExp(x);
  let y2 = 1;
  if (x > MAX_STIRLING) {
    // x^(x-0.5) alone would overflow: split it as x^(x/2-1/4) * (x^(x/2-1/4) / e^x).
    const v = goPow(x, 0.5 * x - 0.25);
    y2 = v / y1;
    y1 = v;
  } else {
    y1 = goPow(x, x - 0.5) / y1;
  }
  return [y1, SQRT_TWO_PI * w * y2];
}

/** Gamma(x) for x in (-1e-9, 1e-9) after reduction: z / ((1 + Euler x) x). */
function small(x: number, z: number): number {
  if (x === 0) return Infinity;
  return z / ((1 + EULER * x) * x);
}

/** Gamma for |x| > 33. */
function gammaLarge(x: number): number {
  if (x >= 0) {
    const [y1, y2] = stirling(x);
    return y1 * y2;
  }
  // Reflection: Gamma(x) = -pi / (|x| sin(pi |x|) Gamma(|x|)), with the sign from floor(|x|).
  const q = -x;
  let p = Math.floor(q);
  const signgam = p % 2 === 0 ? -1 : 1;
  let z = q - p;
  if (z > 0.5) {
    p = p + 1;
    z = q - p;
  }
  z = q * goSin(Math.PI * z);
  if (z === 0) return signgam * Infinity;
  const [sq1, sq2] = stirling(q);
  const absz = Math.abs(z);
  const d = absz * sq1 * sq2;
  z = Number.isFinite(d) ? Math.PI / d : Math.PI / absz / sq1 / sq2;
  return signgam * z;
}

/**
 * Gamma(x) with Go's special cases: +Inf for +Inf and +0, -Inf for -0, NaN for negative integers,
 * -Inf and NaN.
 */
export function gamma(x: number): number {
  if (Number.isNaN(x) || x === -Infinity || (x < 0 && Number.isInteger(x))) return NaN;
  if (x === Infinity) return Infinity;
  if (x === 0) return Object.is(x, -0) ? -Infinity : Infinity;
  if (Math.abs(x) > 33) return gammaLarge(x);

  // Reduce the argument into [2, 3), collecting the factors in z.
  let z = 1;
  while (x >= 3) {
    x = x - 1;
    z = z * x;
  }
  while (x < 0) {
    if (x > -1e-09) return small(x, z);
    z = z / x;
    x = x + 1;
  }
  while (x < 2) {
    if (x < 1e-09) return small(x, z);
    z = z / x;
    x = x + 1;
  }
  if (x === 2) return z;

  x = x - 2;
  const p = (((((x * GAM_P[0] + GAM_P[1]) * x + GAM_P[2]) * x + GAM_P[3]) * x + GAM_P[4]) * x +
        GAM_P[5]) * x + GAM_P[6];
  const q =
    ((((((x * GAM_Q[0] + GAM_Q[1]) * x + GAM_Q[2]) * x + GAM_Q[3]) * x + GAM_Q[4]) * x + GAM_Q[5]) *
          x + GAM_Q[6]) * x + GAM_Q[7];
  return z * p / q;
}
