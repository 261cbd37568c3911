/**
 * Fused multiply-add, a * b + c rounded once (to nearest, ties to even), as the x86 VFMADD
 * instructions compute it: Go's amd64 Exp uses them on CPUs with FMA.
 *
 * The fast path is Boldo and Melquiond's emulation ("Emulation of FMA and correctly rounded sums:
 * proved algorithms using rounding to odd", IEEE TC 2008): the product split exactly into
 * uh + ul (Dekker's product with Veltkamp's split), c + uh split exactly into th + tl (Knuth's
 * TwoSum), then RN(th + RO(tl + ul)), where RO rounds to odd. Its proof needs no overflow or
 * underflow, so operands with extreme exponents take the exact BigInt path instead.
 */
import { fromWords, highWord, lowWord } from "./bits.ts";

const SPLIT = 134217729; // 2**27 + 1

function exponentOf(x: number): number {
  return ((highWord(x) >>> 20) & 0x7ff) - 1023;
}

/** a * b + c with one rounding. */
export function fma(a: number, b: number, c: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a * b + c;
  if (!Number.isFinite(c)) return c;
  if (a === 0 || b === 0) return a * b + c;
  if (c === 0) return a * b;
  const ea = exponentOf(a), eb = exponentOf(b), ec = exponentOf(c);
  // |a b| < 2**(ea + eb + 2) lies below a quarter ulp of c: the sum rounds to c.
  if (ea + eb + 2 <= ec - 56) return c;
  if (
    ea < -900 || ea > 900 || eb < -900 || eb > 900 || ec < -900 || ec > 900 ||
    ea + eb < -900 || ea + eb > 900
  ) {
    return exactFma(a, b, c);
  }
  // uh + ul = a * b exactly.
  const uh = a * b;
  let t = SPLIT * a;
  const ahi = t - (t - a), alo = a - ahi;
  t = SPLIT * b;
  const bhi = t - (t - b), blo = b - bhi;
  const ul = ((ahi * bhi - uh) + ahi * blo + alo * bhi) + alo * blo;
  // th + tl = c + uh exactly.
  const th = c + uh;
  const bv = th - c;
  const tl = (c - (th - bv)) + (uh - bv);
  return th + addRoundToOdd(tl, ul);
}

/** x + y rounded to odd: exact sums stay, others take the neighbour with an odd last bit. */
function addRoundToOdd(x: number, y: number): number {
  const v = x + y;
  const bv = v - x;
  const err = (x - (v - bv)) + (y - bv);
  if (err === 0) return v;
  const hi = highWord(v), lo = lowWord(v);
  if ((lo & 1) === 1) return v;
  if ((err > 0) === (v > 0)) return fromWords(hi, lo | 1); // one ulp away from zero
  return lo === 0 ? fromWords(hi - 1, 0xffffffff) : fromWords(hi, lo - 1); // one ulp toward zero
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** [integer significand with sign, exponent] with x = m * 2**e exactly, for finite x. */
function decompose(x: number): [bigint, number] {
  f64[0] = x;
  const bits = u64[0];
  const biased = Number((bits >> 52n) & 0x7ffn);
  let m = bits & 0xfffffffffffffn;
  if (biased !== 0) m |= 1n << 52n;
  const e = (biased === 0 ? 1 : biased) - 1075;
  return [bits >> 63n ? -m : m, e];
}

/** m * 2**e for an integer m of at most 53 bits whose product is representable (or overflows). */
function scaleExact(m: number, e: number): number {
  if (e > 1000) return m * 2 ** 1000 * 2 ** (e - 1000);
  if (e < -1000) return m * 2 ** -1000 * 2 ** (e + 1000);
  return m * 2 ** e;
}

/**
 * a * b + c for finite nonzero a, b, c: the exact sum in BigInt, rounded once to the precision the
 * result has (subnormals too). Slow; the reference the fast path is tested against.
 */
export function exactFma(a: number, b: number, c: number): number {
  const [ma, ea] = decompose(a);
  const [mb, eb] = decompose(b);
  const [mc, ec] = decompose(c);
  const ep = ea + eb;
  const e = Math.min(ep, ec);
  let n = ((ma * mb) << BigInt(ep - e)) + (mc << BigInt(ec - e));
  if (n === 0n) return 0; // exact cancellation rounds to +0
  const neg = n < 0n;
  if (neg) n = -n;
  const len = n.toString(2).length;
  const top = e + len - 1; // exponent of the leading bit
  const precision = top < -1022 ? top + 1075 : 53;
  let shift = len - precision;
  if (shift > 0) {
    const s = BigInt(shift);
    const rest = n & ((1n << s) - 1n);
    const half = 1n << (s - 1n);
    n >>= s;
    if (rest > half || (rest === half && (n & 1n) === 1n)) n += 1n;
  } else {
    shift = 0;
  }
  const r = scaleExact(Number(n), e + shift);
  return neg ? -r : r;
}
