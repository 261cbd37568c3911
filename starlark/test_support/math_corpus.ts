/**
 * Test support: a seeded corpus of float64 arguments for the Go-exact math functions, edge cases
 * first (signed zeros, subnormals, infinities, NaN, huge arguments, neighbours of multiples of
 * pi/2, of 1 and of every threshold the algorithms branch on), then random values drawn from the
 * whole bit space, log-uniform magnitudes and small ranges.
 */
import { float64FromBits } from "../lib/go_math/bits.ts";

/** A small seeded generator (xorshift128+ on BigInt would be slow; this is mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The float64 n representable steps above x (below for negative n). */
export function ulpsAway(x: number, n: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigInt64(0);
  const step = BigInt(n) * (x < 0 || Object.is(x, -0) ? -1n : 1n);
  view.setBigInt64(0, bits + step);
  return view.getFloat64(0);
}

const THRESHOLDS = [
  0.5,
  1,
  2,
  3,
  0.66,
  0.7,
  0.625,
  21,
  33,
  143.01608,
  170.5,
  171.6,
  200,
  2.41421356237309504880,
  2 ** 28,
  2 ** -28,
  2 ** -29,
  2 ** -54,
  2 ** 29,
  2 ** 53,
  2 ** 63,
  2 ** 64,
  0.4142135623730950488017,
  0.2928932188134524755992,
  0.7071067811865476,
  1.4142135623730951,
  44.014845965556525,
  88.02969193111305,
  709.782712893384,
  709.78,
  710,
  745.1332191019411,
  1e-9,
  Math.E,
  Math.PI,
  Math.PI / 4,
  1e16,
  1e22,
  1e300,
  Number.MAX_VALUE,
  2.2250738585072014e-308,
  4.45014771701440276618e-308,
  5e-324,
  2.225073858507201e-308,
  1e-310,
  1e-300,
  1e-20,
  1e-10,
];

/** Edge-case arguments: each threshold, its neighbours and its negation; multiples of pi/2. */
export function edgeValues(): number[] {
  const out = [0, -0, NaN, Infinity, -Infinity];
  for (const t of THRESHOLDS) {
    for (const d of [-2, -1, 0, 1, 2]) {
      const v = d === 0 ? t : ulpsAway(t, d);
      if (Number.isFinite(v)) out.push(v, -v);
    }
  }
  for (const k of [1, 2, 3, 4, 5, 7, 10, 100, 1000, 12345, 1e6, 1e8, 3e8, 1e10, 1e15]) {
    const m = k * Math.PI / 2;
    for (const d of [-1, 0, 1]) out.push(ulpsAway(m, d));
  }
  return out;
}

/** `count` random arguments from `seed`: a mix of whole-bit-space, log-uniform and small values. */
export function randomValues(seed: number, count: number): number[] {
  const rand = seededRandom(seed);
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 5;
    let v: number;
    if (kind === 0) {
      const hi = Math.floor(rand() * 2 ** 32), lo = Math.floor(rand() * 2 ** 32);
      v = float64FromBits((BigInt(hi) << 32n) | BigInt(lo));
    } else if (kind === 1) {
      v = 2 ** (rand() * 2100 - 1075) * (1 + rand());
    } else if (kind === 2) {
      v = 2 ** (rand() * 80 - 40);
    } else if (kind === 3) {
      v = rand() * 20 - 10;
    } else {
      v = rand() * 2 - 1;
    }
    out.push(kind !== 0 && rand() < 0.5 ? -v : v);
  }
  return out;
}
