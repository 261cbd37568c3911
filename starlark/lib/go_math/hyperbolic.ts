/**
 * Sinh, Cosh, Tanh, Asinh, Acosh and Atanh as Go's `math` package computes them (pure Go on
 * amd64): sinh and tanh by Cephes' rational functions near 0 and from exp elsewhere (cosh from exp
 * everywhere, so both overflow where exp(|x|) does); the inverses from log and log1p after
 * fdlibm's case split.
 */
import { exp, log, log1p } from "./exp_log.ts";

const SP0 = -0.6307673640497716991184787251e+6;
const SP1 = -0.8991272022039509355398013511e+5;
const SP2 = -0.2894211355989563807284660366e+4;
const SP3 = -0.2630563213397497062819489e+2;
const SQ0 = -0.6307673640497716991212077277e+6;
const SQ1 = 0.1521517378790019070696485176e+5;
const SQ2 = -0.173678953558233699533450911e+3;

/** Go's math.Sinh. */
export function sinh(x: number): number {
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let temp: number;
  if (x > 21) {
    temp = exp(x) * 0.5;
  } else if (x > 0.5) {
    const ex = exp(x);
    temp = (ex - 1 / ex) * 0.5;
  } else {
    const sq = x * x;
    temp = (((SP3 * sq + SP2) * sq + SP1) * sq + SP0) * x;
    temp = temp / (((sq + SQ2) * sq + SQ1) * sq + SQ0);
  }
  return sign ? -temp : temp;
}

/** Go's math.Cosh. */
export function cosh(x: number): number {
  x = Math.abs(x);
  if (x > 21) return exp(x) * 0.5;
  const ex = exp(x);
  return (ex + 1 / ex) * 0.5;
}

const TP0 = -9.64399179425052238628e-1;
const TP1 = -9.92877231001918586564e1;
const TP2 = -1.61468768441708447952e3;
const TQ0 = 1.12811678491632931402e2;
const TQ1 = 2.23548839060100448583e3;
const TQ2 = 4.84406305325125486048e3;
const MAXLOG = 8.8029691931113054295988e+01; // log(2**127)

/** Go's math.Tanh. */
export function tanh(x: number): number {
  let z = Math.abs(x);
  if (z > 0.5 * MAXLOG) return x < 0 ? -1 : 1;
  if (z >= 0.625) {
    const s = exp(2 * z);
    z = 1 - 2 / (s + 1);
    return x < 0 ? -z : z;
  }
  if (x === 0) return x;
  const s = x * x;
  return x + x * s * ((TP0 * s + TP1) * s + TP2) / (((s + TQ0) * s + TQ1) * s + TQ2);
}

const LN2 = Math.LN2;
const TWO_28 = 2 ** 28;
const TWO_M28 = 2 ** -28;

/** Go's math.Asinh. */
export function asinh(x: number): number {
  if (x !== x || !Number.isFinite(x)) return x;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let temp: number;
  if (x > TWO_28) temp = log(x) + LN2;
  else if (x > 2) temp = log(2 * x + 1 / (Math.sqrt(x * x + 1) + x));
  else if (x < TWO_M28) temp = x;
  else temp = log1p(x + x * x / (1 + Math.sqrt(1 + x * x)));
  return sign ? -temp : temp;
}

/** Go's math.Acosh. */
export function acosh(x: number): number {
  if (x < 1 || x !== x) return NaN;
  if (x === 1) return 0;
  if (x >= TWO_28) return log(x) + LN2;
  if (x > 2) return log(2 * x - 1 / (x + Math.sqrt(x * x - 1)));
  const t = x - 1;
  return log1p(t + Math.sqrt(2 * t + t * t));
}

/** Go's math.Atanh. */
export function atanh(x: number): number {
  if (x < -1 || x > 1 || x !== x) return NaN;
  if (x === 1) return Infinity;
  if (x === -1) return -Infinity;
  let sign = false;
  if (x < 0) {
    x = -x;
    sign = true;
  }
  let temp: number;
  if (x < TWO_M28) {
    temp = x;
  } else if (x < 0.5) {
    temp = x + x;
    temp = 0.5 * log1p(temp + temp * x / (1 - x));
  } else {
    temp = 0.5 * log1p((x + x) / (1 - x));
  }
  return sign ? -temp : temp;
}
