/**
 * Bit-exact ports of the Go 1.19 amd64 `math.Exp`, `math.Log` and `math.Pow` that starlark-go's
 * `math.gamma` is built on (Go's `Gamma` calls them, and V8's `Math.exp`/`Math.log`/`Math.pow`
 * round differently, which Go's `Pow` magnifies by many ulps). Exp is the SLEEF-based assembly of
 * go/src/math/exp_amd64.s on its FMA path (CPUs with AVX+FMA; without FMA Go may differ by an ulp),
 * Log the fdlibm-derived assembly of log_amd64.s, Pow the repeated squaring of pow.go.
 */

/** [integer mantissa, exponent] with x = m * 2**e exactly, for a finite x. */
function decompose(x: number): [bigint, number] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let m = bits & 0xfffffffffffffn;
  if (biased !== 0) m |= 1n << 52n;
  const e = (biased === 0 ? 1 : biased) - 1075;
  return [bits >> 63n ? -m : m, e];
}

/** x * 2**e, exact whenever the result is a normal number. */
function scale(x: number, e: number): number {
  const half = Math.trunc(e / 2);
  return x * 2 ** half * 2 ** (e - half);
}

/** a * b + c with a single rounding (the x86 VFMADD instructions), for finite arguments. */
export function fma(a: number, b: number, c: number): number {
  if (a === 0 || b === 0 || c === 0) return a * b + c;
  const [ma, ea] = decompose(a);
  const [mb, eb] = decompose(b);
  const [mc, ec] = decompose(c);
  const ep = ea + eb;
  const e = Math.min(ep, ec);
  let n = (ma * mb << BigInt(ep - e)) + (mc << BigInt(ec - e));
  if (n === 0n) return 0;
  // Keep 60 significant bits plus a sticky bit so that Number() rounds once, correctly.
  const neg = n < 0n;
  if (neg) n = -n;
  const extra = n.toString(2).length - 60;
  let shift = 0;
  if (extra > 0) {
    const sticky = (n & ((1n << BigInt(extra)) - 1n)) !== 0n ? 1n : 0n;
    n = (n >> BigInt(extra)) | sticky;
    shift = extra;
  }
  const r = scale(Number(n), e + shift);
  return neg ? -r : r;
}

/** Round half to even to an integer (x86 CVTSD2SL in the default rounding mode). */
function roundEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

const LOG2E = 1.442695040888963407359924681001892;
const LN2U = 0.69314718055966295651160180568695068359375;
const LN2L = 0.28235290563031577122588448175013436025525412068e-12;
const EXP_TAYLOR = [
  2.4801587301587301587e-5,
  1.9841269841269841270e-4,
  1.3888888888888888889e-3,
  8.3333333333333333333e-3,
  4.1666666666666666667e-2,
  1.6666666666666666667e-1,
  0.5,
  1.0,
];

/** Go's amd64 `math.Exp` (FMA path). */
export function goExp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === -Infinity) return 0;
  if (x > 7.09782712893384e+02) return Infinity;
  const k = roundEven(LOG2E * x);
  let r = fma(-k, LN2U, x);
  r = fma(-k, LN2L, r);
  r *= 0.0625;
  let p = EXP_TAYLOR[0];
  for (let i = 1; i < EXP_TAYLOR.length; i++) p = fma(p, r, EXP_TAYLOR[i]);
  r *= p;
  for (let i = 0; i < 3; i++) r *= r + 2;
  r = fma(r, r + 2, 1);
  const biased = k + 0x3ff;
  if (biased >= 0x7ff) return Infinity;
  if (biased > 0) return r * 2 ** (biased - 0x3ff);
  if (biased < -52) return 0;
  return r * 2 ** (biased - 1) * 2 ** -1022;
}

const LN2_HI = 6.93147180369123816490e-01;
const LN2_LO = 1.90821492927058770002e-10;
const LOG_L = [
  6.666666666666735130e-01,
  3.999999999940941908e-01,
  2.857142874366239149e-01,
  2.222219843214978396e-01,
  1.818357216161805012e-01,
  1.531383769920937332e-01,
  1.479819860511658591e-01,
];

/** Go's amd64 `math.Log` for a positive normal x (the assembly treats subnormals as normals). */
export function goLog(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return -Infinity;
  if (x < 0) return NaN;
  let k = Math.floor(Math.log2(x)) + 1;
  let f1 = x / 2 ** k;
  if (f1 >= 1) {
    f1 /= 2;
    k++;
  } else if (f1 < 0.5) {
    f1 *= 2;
    k--;
  }
  if (f1 < Math.SQRT1_2) {
    k -= 1;
    f1 *= 2;
  }
  const f = f1 - 1;
  const s = f / (2 + f);
  const s2 = s * s;
  const s4 = s2 * s2;
  const t1 = s2 * (LOG_L[0] + s4 * (LOG_L[2] + s4 * (LOG_L[4] + s4 * LOG_L[6])));
  const t2 = s4 * (LOG_L[1] + s4 * (LOG_L[3] + s4 * LOG_L[5]));
  const hfsq = 0.5 * f * f;
  return k * LN2_HI - ((hfsq - (s * (hfsq + t1 + t2) + k * LN2_LO)) - f);
}

/** [f, e] with x = f * 2**e and 0.5 <= f < 1, for a positive normal x (Go's `Frexp`). */
function frexp(x: number): [number, number] {
  let e = Math.floor(Math.log2(x)) + 1;
  let f = x / 2 ** e;
  if (f >= 1) {
    f /= 2;
    e++;
  } else if (f < 0.5) {
    f *= 2;
    e--;
  }
  return [f, e];
}

/**
 * Go's `math.Pow` for x > 1 and y > 1, both finite (what Gamma's Stirling formula needs):
 * exp(yf log x) for the fractional part, repeated squaring with a separate binary exponent for
 * the integer part.
 */
export function goPow(x: number, y: number): number {
  let yi = Math.trunc(y);
  let yf = y - yi;
  let a1 = 1;
  let ae = 0;
  if (yf !== 0) {
    if (yf > 0.5) {
      yf--;
      yi++;
    }
    a1 = goExp(yf * goLog(x));
  }
  let [x1, xe] = frexp(x);
  for (let i = yi; i !== 0; i = Math.floor(i / 2)) {
    if (xe > 1 << 12) return Infinity; // overflows whatever the remaining bits
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
  return scale(a1, ae);
}

const SIN = [
  1.58962301576546568060e-10,
  -2.50507477628578072866e-8,
  2.75573136213857245213e-6,
  -1.98412698295895385996e-4,
  8.33333333332211858878e-3,
  -1.66666666666666307295e-1,
];
const COS = [
  -1.13585365213876817300e-11,
  2.08757008419747316778e-9,
  -2.75573141792967388112e-7,
  2.48015872888517045348e-5,
  -1.38888888888730564116e-3,
  4.16666666666665929218e-2,
];
const PI4A = 7.85398125648498535156e-1;
const PI4B = 3.77489470793079817668e-8;
const PI4C = 2.69515142907905952645e-15;

/**
 * Go's `math.Sin` (Cephes, go/src/math/sin.go) for |x| < 2**29; larger arguments need Go's
 * Payne-Hanek reduction, not ported, and fall back to V8's `Math.sin` (Gamma never passes one).
 */
export function goSin(x: number): number {
  if (x === 0 || Number.isNaN(x)) return x;
  if (!Number.isFinite(x)) return NaN;
  if (Math.abs(x) >= 2 ** 29) return Math.sin(x);
  let sign = x < 0;
  if (sign) x = -x;
  let j = Math.trunc(x * (4 / Math.PI));
  let y = j;
  if (j % 2 === 1) {
    j++;
    y++;
  }
  j %= 8;
  const z = ((x - y * PI4A) - y * PI4B) - y * PI4C;
  if (j > 3) {
    sign = !sign;
    j -= 4;
  }
  const zz = z * z;
  if (j === 1 || j === 2) {
    y = 1.0 - 0.5 * zz +
      zz * zz *
        (((((COS[0] * zz + COS[1]) * zz + COS[2]) * zz + COS[3]) * zz + COS[4]) * zz + COS[5]);
  } else {
    y = z +
      z * zz *
        (((((SIN[0] * zz + SIN[1]) * zz + SIN[2]) * zz + SIN[3]) * zz + SIN[4]) * zz + SIN[5]);
  }
  return sign ? -y : y;
}
