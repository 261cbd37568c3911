/**
 * Pow as Go's `math` package computes it (pure Go on amd64): IEEE's special cases, then
 * x**y = exp(yf log x) * x**yi for y = yi + yf, |yf| <= 0.5, the integer power by repeated
 * squaring of Frexp's mantissa with the binary exponent carried apart, scaled back by Ldexp.
 */
import { exp, log } from "./exp_log.ts";
import { frexp, ldexp, modf } from "./bits.ts";

function isOddInt(x: number): boolean {
  const [xi, xf] = modf(x);
  // int64(xi)&1 on amd64: out-of-range conversions give 0x8000000000000000, which is even
  return xf === 0 && Math.abs(xi) < 2 ** 63 && Math.abs(xi % 2) === 1;
}

/** Go's math.Pow. */
export function pow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (y === 1) return x;
  if (x !== x || y !== y) return NaN;
  if (x === 0) {
    if (y < 0) {
      if (isOddInt(y)) return 1 / x < 0 ? -Infinity : Infinity;
      return Infinity;
    }
    if (y > 0) return isOddInt(y) ? x : 0;
  }
  if (y === Infinity || y === -Infinity) {
    if (x === -1) return 1;
    if ((Math.abs(x) < 1) === (y === Infinity)) return 0;
    return Infinity;
  }
  if (x === Infinity || x === -Infinity) {
    if (x === -Infinity) return pow(1 / x, -y);
    if (y < 0) return 0;
    if (y > 0) return Infinity;
  }
  if (y === 0.5) return Math.sqrt(x);
  if (y === -0.5) return 1 / Math.sqrt(x);

  let [yi, yf] = modf(Math.abs(y));
  if (yf !== 0 && x < 0) return NaN;
  if (yi >= 2 ** 63) {
    if (x === -1) return 1;
    if ((Math.abs(x) < 1) === (y > 0)) return 0;
    return Infinity;
  }
  let a1 = 1.0;
  let ae = 0;
  if (yf !== 0) {
    if (yf > 0.5) {
      yf--;
      yi++;
    }
    a1 = exp(yf * log(x));
  }
  let [x1, xe] = frexp(x);
  // yi < 2**63 is an integer: walk its bits from the lowest; above 2**53 it has trailing zeros
  for (let i = yi; i !== 0; i = Math.floor(i / 2)) {
    if (xe < -(1 << 12) || (1 << 12) < xe) {
      ae += xe;
      break;
    }
    if (i % 2 === 1) {
      a1 *= x1;
      ae += xe;
    }
    x1 *= x1;
    xe *= 2;
    if (x1 < 0.5) {
      x1 += x1;
      xe--;
    }
  }
  if (y < 0) {
    a1 = 1 / a1;
    ae = -ae;
  }
  return ldexp(a1, ae);
}
