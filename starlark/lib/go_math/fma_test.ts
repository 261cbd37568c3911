import assert from "node:assert/strict";
import { exactFma, fma } from "./fma.ts";
import { randomValues, seededRandom, ulpsAway } from "../../test_support/math_corpus.ts";

function same(a: number, b: number): boolean {
  return Object.is(a, b) || (a !== a && b !== b);
}

Deno.test("fma rounds once: the fast path agrees with the exact BigInt sum", () => {
  const rand = seededRandom(7);
  const xs = randomValues(11, 3000).filter((x) => Number.isFinite(x) && x !== 0);
  let checked = 0;
  for (let i = 0; i + 2 < xs.length; i += 3) {
    // Mostly operands of moderate size, where the fast path runs, with a cancelling c half the time.
    const a = xs[i] % 1e6 || 1.5, b = xs[i + 1] % 1e6 || 0.75;
    const c = rand() < 0.5 ? -(a * b) : ulpsAway(a * b * (rand() - 0.5), 1);
    if (!Number.isFinite(c) || c === 0) continue;
    assert.ok(same(fma(a, b, c), exactFma(a, b, c)), `fma(${a}, ${b}, ${c})`);
    checked++;
  }
  assert.ok(checked > 900, `only ${checked} cases`);
});

Deno.test("fma differs from a * b + c where the product's rounding matters", () => {
  const a = 1 + 2 ** -30, b = 1 - 2 ** -30;
  // a * b = 1 - 2**-60 exactly: the separate product rounds to 1, the fused one keeps the bits.
  assert.equal(a * b - 1, 0);
  assert.equal(fma(a, b, -1), -(2 ** -60));
  assert.equal(fma(2, 3, 4), 10);
});

Deno.test("fma handles zeros, infinities, NaN and extreme exponents", () => {
  assert.ok(Object.is(fma(-0, 5, 0), 0));
  assert.ok(Object.is(fma(-1e-200, 1e-200, 0), -0));
  assert.ok(Object.is(fma(1, 1, -1), 0));
  assert.equal(fma(Infinity, 2, 1), Infinity);
  assert.ok(Number.isNaN(fma(Infinity, 0, 1)));
  assert.equal(fma(1, 2, -Infinity), -Infinity);
  assert.ok(Number.isNaN(fma(NaN, 1, 1)));
  assert.equal(fma(1e300, 1e300, 1), Infinity);
  assert.equal(fma(1e-200, 1e-200, 5e-324), 5e-324);
  assert.equal(fma(2 ** -537, 2 ** -537, 0.5), 0.5);
  assert.equal(fma(2 ** -1074, 0.5, 2 ** -1074), 2 ** -1073); // 1.5 ulp ties to even
  assert.equal(fma(2 ** 512, 2 ** 512, -(2 ** 971)), Number.MAX_VALUE); // 2**1024 never exists
  assert.equal(fma(2 ** 512, 2 ** 512, -(2 ** 969)), Infinity); // nearer 2**1024: overflows
});

Deno.test("fma: a product far below c's last bit leaves c, at powers of two too", () => {
  for (const c of [1, -1, 0.75, 2 ** 100, -(2 ** -900), 5e-324, 2.2250738585072014e-308]) {
    for (let shift = 40; shift <= 70; shift++) {
      for (const sign of [1, -1]) {
        const a = sign * Math.abs(c) * 2 ** -shift * 1.75, b = 1.25;
        if (a === 0) continue;
        assert.ok(same(fma(a, b, c), exactFma(a, b, c)), `fma(${a}, ${b}, ${c})`);
      }
    }
  }
});
