/**
 * Payne–Hanek argument reduction for |x| >= 2**29, as Go's trigReduce does it: x times the bits
 * of 4/pi that matter for its exponent (three 64-bit words of a 1216-bit expansion), keeping the
 * integer part mod 8 (the octant j) and the fraction as a float64, then mapped back to radians.
 * The arithmetic is 64-bit unsigned with wrap-around, so it runs on BigInt; such arguments are
 * rare and the other paths stay BigInt-free.
 */
import { float64Bits, float64FromBits } from "./bits.ts";

/** Arguments at or above this take this reduction. */
export const REDUCE_THRESHOLD = 2 ** 29;

const MASK64 = (1n << 64n) - 1n;

/** The binary expansion of 4/pi, 64 bits a word, the integer part (1) first. */
const FOUR_OVER_PI = [
  0x0000000000000001n,
  0x45f306dc9c882a53n,
  0xf84eafa3ea69bb81n,
  0xb6c52b3278872083n,
  0xfca2c757bd778ac3n,
  0x6e48dc74849ba5c0n,
  0x0c925dd413a32439n,
  0xfc3bd63962534e7dn,
  0xd1046bea5d768909n,
  0xd338e04d68befc82n,
  0x7323ac7306a673e9n,
  0x3908bf177bf25076n,
  0x3ff12fffbc0b301fn,
  0xde5e2316b414da3en,
  0xda6cfd9e4f96136en,
  0x9e8c7ecd3cbfd45an,
  0xea4f758fd7cbe2f6n,
  0x7a0e73ef14a525d4n,
  0xd7f6bf623f1aba10n,
  0xac06608df8f6d757n,
];

/** 64 bits of 4/pi starting `shift` bits into word `digit`. */
function window(digit: number, shift: bigint): bigint {
  if (shift === 0n) return FOUR_OVER_PI[digit];
  return ((FOUR_OVER_PI[digit] << shift) & MASK64) | (FOUR_OVER_PI[digit + 1] >> (64n - shift));
}

/** [octant j (even, 0..6), z] with x = j pi/4 + z (mod 2 pi), for finite x >= 2**29. */
export function trigReduce(x: number): [number, number] {
  if (x < Math.PI / 4) return [0, x];
  let ix = float64Bits(x);
  const exp = Number((ix >> 52n) & 0x7ffn) - 1023 - 52;
  ix = (ix & 0xfffffffffffffn) | (1n << 52n);
  const digit = Math.floor((exp + 61) / 64);
  const bitshift = BigInt((exp + 61) % 64);
  const z0 = window(digit, bitshift);
  const z1 = window(digit + 1, bitshift);
  const z2 = window(digit + 2, bitshift);
  const z2hi = (z2 * ix) >> 64n;
  const p1 = z1 * ix;
  const z1hi = p1 >> 64n, z1lo = p1 & MASK64;
  const z0lo = (z0 * ix) & MASK64;
  const lo = (z1lo + z2hi) & MASK64;
  const carry = (z1lo + z2hi) >> 64n;
  let hi = (z0lo + z1hi + carry) & MASK64;
  let j = Number(hi >> 61n);
  hi = ((hi << 3n) & MASK64) | (lo >> 61n);
  const lz = hi === 0n ? 64 : 64 - hi.toString(2).length;
  const e = BigInt(1023 - (lz + 1));
  // Shifts of 64 bits or more give 0, as in Go.
  const s = BigInt(lz + 1);
  hi = s >= 64n ? (s === 64n ? lo : 0n) : ((hi << s) & MASK64) | (lo >> (64n - s));
  hi >>= 12n;
  hi |= e << 52n;
  let z = float64FromBits(hi);
  if ((j & 1) === 1) {
    j = (j + 1) & 7;
    z--;
  }
  return [j, z * (Math.PI / 4)];
}
