/**
 * IEEE 754 binary64 bit access for the Go-exact math functions: one shared 8-byte buffer seen as
 * a float64 and as two uint32 words (high word: sign, 11 exponent bits, top 20 mantissa bits), so
 * that the hot paths touch no BigInt. The word order follows the platform's endianness.
 */

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const LO = 1 - HI;

/** The high 32 bits of x. */
export function highWord(x: number): number {
  f64[0] = x;
  return u32[HI];
}

/** The low 32 bits of x. */
export function lowWord(x: number): number {
  f64[0] = x;
  return u32[LO];
}

/** The float64 with these high and low words. */
export function fromWords(hi: number, lo: number): number {
  u32[HI] = hi >>> 0;
  u32[LO] = lo >>> 0;
  return f64[0];
}

/** The 64 bits of x (Go's math.Float64bits). */
export function float64Bits(x: number): bigint {
  f64[0] = x;
  return (BigInt(u32[HI]) << 32n) | BigInt(u32[LO]);
}

/** The float64 with these 64 bits (Go's math.Float64frombits). */
export function float64FromBits(b: bigint): number {
  u32[HI] = Number((b >> 32n) & 0xffffffffn);
  u32[LO] = Number(b & 0xffffffffn);
  return f64[0];
}

/** Whether the sign bit of x is set (-0 and NaNs with the bit set included, as in Go). */
export function signbit(x: number): boolean {
  f64[0] = x;
  return u32[HI] >>> 31 === 1;
}

const TWO52 = 2 ** 52;

/**
 * Go's Frexp: [frac, exp] with x = frac * 2**exp and 0.5 <= |frac| < 1; ±0, ±Inf and NaN give
 * [x, 0]. Subnormals are normalized first.
 */
export function frexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  let e = 0;
  if (Math.abs(x) < 2.2250738585072014e-308) {
    x *= TWO52;
    e = -52;
  }
  const hi = highWord(x);
  e += ((hi >>> 20) & 0x7ff) - 1022;
  return [fromWords((hi & 0x800fffff) | 0x3fe00000, lowWord(x)), e];
}

/** Go's Ldexp: frac * 2**exp, rounding once when the result is subnormal. */
export function ldexp(frac: number, exp: number): number {
  if (frac === 0 || !Number.isFinite(frac)) return frac;
  if (Math.abs(frac) < 2.2250738585072014e-308) {
    frac *= TWO52;
    exp -= 52;
  }
  const hi = highWord(frac);
  exp += ((hi >>> 20) & 0x7ff) - 1023;
  if (exp < -1075) return frac < 0 ? -0 : 0;
  if (exp > 1023) return frac < 0 ? -Infinity : Infinity;
  let m = 1;
  if (exp < -1022) {
    exp += 53;
    m = 2 ** -53;
  }
  return m * fromWords((hi & 0x800fffff) | ((exp + 1023) << 20), lowWord(frac));
}

/** Go's Modf: [integer part, fractional part], both with the sign of x. */
export function modf(x: number): [number, number] {
  if (x < 1) {
    if (x < 0) {
      const [i, f] = modf(-x);
      return [-i, -f];
    }
    if (x === 0) return [x, x];
    return [0, x];
  }
  const i = Math.trunc(x);
  return [i, x - i];
}
