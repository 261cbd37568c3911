/**
 * Exp, Log and Log1p as Go's `math` package computes them on amd64.
 *
 * Exp is Go's amd64 assembly (after Shibata's SLEEF method): k = round(x / ln 2), the remainder
 * r = x - k ln 2 in two steps, then a Taylor polynomial at r / 16 squared back four times as
 * (1 + u)^2 - 1 = u (u + 2), and the result scaled by 2**k. On CPUs with FMA (which Go detects at
 * start-up and which the reference machines have) every multiply-add there is fused; so it is here.
 *
 * Log is Go's amd64 assembly of fdlibm's e_log.c: x = 2**k (1 + f) with sqrt(2)/2 < 1 + f <=
 * sqrt(2), s = f / (2 + f), log(1 + f) = f - s (f - R(s)) with a minimax R. The assembly reads the
 * exponent field directly, so subnormals are taken as if they had the hidden bit (a Go quirk
 * starlark-go shows, kept here).
 *
 * Log1p is fdlibm's s_log1p.c as Go writes it (pure Go on amd64): the same series, with a
 * correction term c for the rounding of 1 + x.
 */
import { fma } from "./fma.ts";
import { fromWords, highWord, lowWord } from "./bits.ts";

const LOG2E = 1.442695040888963407359924681001892;
const LN2U = 0.69314718055966295651160180568695068359375;
const LN2L = 0.28235290563031577122588448175013436025525412068e-12;
const EXP_OVERFLOW = 7.09782712893384e+02;
// 1/n! for n = 8 down to 2, then 1/1!
const T8 = 2.4801587301587301587e-5;
const T7 = 1.9841269841269841270e-4;
const T6 = 1.3888888888888888889e-3;
const T5 = 8.3333333333333333333e-3;
const T4 = 4.1666666666666666667e-2;
const T3 = 1.6666666666666666667e-1;

/** Round half to even to an integer, as CVTSD2SL does in the default rounding mode. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Go's amd64 math.Exp. */
export function exp(x: number): number {
  if (x !== x || x === Infinity) return x;
  if (x === -Infinity) return 0;
  if (x > EXP_OVERFLOW) return Infinity;
  // CVTSD2SL gives -2**31 for anything below the int32 range; such k underflow to 0 below.
  const k = Math.max(roundHalfEven(LOG2E * x), -2147483648);
  const biased = k + 0x3ff;
  if (biased < -52) return 0;
  if (biased >= 0x7ff) return Infinity;
  let r = fma(-k, LN2U, x);
  r = fma(-k, LN2L, r);
  r *= 0.0625;
  let p = fma(T8, r, T7);
  p = fma(p, r, T6);
  p = fma(p, r, T5);
  p = fma(p, r, T4);
  p = fma(p, r, T3);
  p = fma(p, r, 0.5);
  p = fma(p, r, 1);
  r *= p;
  r *= r + 2;
  r *= r + 2;
  r *= r + 2;
  r = fma(r, r + 2, 1);
  if (biased > 0) return r * fromWords(biased << 20, 0);
  return r * fromWords((biased + 0x3fe) << 20, 0) * 2.2250738585072014e-308;
}

const HALF_SQRT2 = 7.07106781186547524401e-01;
const LN2_HI = 6.93147180369123816490e-01;
const LN2_LO = 1.90821492927058770002e-10;
const L1 = 6.666666666666735130e-01;
const L2 = 3.999999999940941908e-01;
const L3 = 2.857142874366239149e-01;
const L4 = 2.222219843214978396e-01;
const L5 = 1.818357216161805012e-01;
const L6 = 1.531383769920937332e-01;
const L7 = 1.479819860511658591e-01;

/** Go's amd64 math.Log. */
export function log(x: number): number {
  if (x !== x || x === Infinity) return x;
  if (x === 0) return -Infinity;
  if (x < 0) return NaN;
  const hi = highWord(x);
  let k = ((hi >>> 20) & 0x7ff) - 0x3fe;
  let f1 = fromWords((hi & 0x000fffff) | 0x3fe00000, lowWord(x));
  if (f1 <= HALF_SQRT2) {
    k -= 1;
    f1 *= 2;
  }
  const f = f1 - 1;
  const s = f / (2 + f);
  const s2 = s * s;
  const s4 = s2 * s2;
  const t1 = s2 * (L1 + s4 * (L3 + s4 * (L5 + s4 * L7)));
  const t2 = s4 * (L2 + s4 * (L4 + s4 * L6));
  const R = t1 + t2;
  const hfsq = 0.5 * f * f;
  return k * LN2_HI - ((hfsq - (s * (hfsq + R) + k * LN2_LO)) - f);
}

const SQRT2_M1 = 4.142135623730950488017e-01;
const SQRT2_HALF_M1 = -2.928932188134524755992e-01;
const TWO_M29 = 2 ** -29;
const TWO_M54 = 2 ** -54;
const TWO_53 = 2 ** 53;

/** Go's math.Log1p. */
export function log1p(x: number): number {
  if (x < -1 || x !== x) return NaN;
  if (x === -1) return -Infinity;
  if (x === Infinity) return Infinity;
  const absx = Math.abs(x);
  let f = 0;
  let iuHi = 0, iuLo = 0; // the 64-bit iu of the fdlibm code, as two words
  let k = 1;
  if (absx < SQRT2_M1) {
    if (absx < TWO_M29) {
      if (absx < TWO_M54) return x;
      return x - x * x * 0.5;
    }
    if (x > SQRT2_HALF_M1) {
      k = 0;
      f = x;
      iuLo = 1;
    }
  }
  let c = 0;
  if (k !== 0) {
    let u: number;
    if (absx < TWO_53) {
      u = 1.0 + x;
      k = ((highWord(u) >>> 20) & 0x7ff) - 1023;
      c = k > 0 ? 1.0 - (u - x) : x - (u - 1.0);
      c /= u;
    } else {
      u = x;
      k = ((highWord(u) >>> 20) & 0x7ff) - 1023;
      c = 0;
    }
    iuHi = highWord(u) & 0x000fffff;
    iuLo = lowWord(u);
    // 0x0006a09e667f3bcd: the mantissa of sqrt(2)
    if (iuHi < 0x0006a09e || (iuHi === 0x0006a09e && iuLo < 0x667f3bcd)) {
      u = fromWords(iuHi | 0x3ff00000, iuLo);
    } else {
      k++;
      u = fromWords(iuHi | 0x3fe00000, iuLo);
      // (2**52 - iu) >> 2, only ever compared with zero below
      const rest = 2 ** 52 - (iuHi * 2 ** 32 + iuLo);
      iuHi = 0;
      iuLo = Math.floor(rest / 4);
    }
    f = u - 1.0;
  }
  const hfsq = 0.5 * f * f;
  if (iuHi === 0 && iuLo === 0) {
    if (f === 0) {
      if (k === 0) return 0;
      c += k * LN2_LO;
      return k * LN2_HI + c;
    }
    const R = hfsq * (1.0 - 0.66666666666666666 * f);
    if (k === 0) return f - R;
    return k * LN2_HI - ((R - (k * LN2_LO + c)) - f);
  }
  const s = f / (2.0 + f);
  const z = s * s;
  const R = z * (L1 + z * (L2 + z * (L3 + z * (L4 + z * (L5 + z * (L6 + z * L7))))));
  if (k === 0) return f - (hfsq - s * (hfsq + R));
  return k * LN2_HI - ((hfsq - (s * (hfsq + R) + (k * LN2_LO + c))) - f);
}
