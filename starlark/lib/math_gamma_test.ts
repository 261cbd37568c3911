import assert from "node:assert/strict";
import { gamma } from "./math_gamma.ts";

// Expected values printed by Go 1.19's math.Gamma on amd64 (with FMA), compared bit for bit.
const GO_GAMMA: [number, number][] = [
  [0.5, 1.7724538509055159],
  [0.1, 9.513507698668732],
  [170.5, 5.562092414560008e+305],
  [171.6, 1.585896909667251e+308],
  [-170.5, -3.3127395215386015e-308],
  [-33.5, 6.227609042535817e-38],
  [143.5, 3.2203704817308066e+246],
  [150.3, 1.711296999219583e+261],
  [1e-10, 9.999999999422785e+09],
  [-2.5, -0.9453087204829419],
  [33.7, 3.032162654739875e+36],
  [171.7, Infinity],
  [-180.5, -0],
  [-97.12683378661605, 4.70833381216191e-152],
  [142.02710873947862, 2.1708736616219002e+243],
];

Deno.test("gamma matches Go's math.Gamma bit for bit, Stirling and reflection ranges included", () => {
  for (const [x, want] of GO_GAMMA) {
    assert.ok(Object.is(gamma(x), want), `gamma(${x}) = ${gamma(x)}`);
  }
});

Deno.test("gamma has Go's special cases", () => {
  assert.equal(gamma(Infinity), Infinity);
  assert.equal(gamma(0), Infinity);
  assert.equal(gamma(-0), -Infinity);
  assert.ok(Number.isNaN(gamma(-1)));
  assert.ok(Number.isNaN(gamma(-1e300)));
  assert.ok(Number.isNaN(gamma(-Infinity)));
  assert.ok(Number.isNaN(gamma(NaN)));
  assert.equal(gamma(5), 24);
  assert.equal(gamma(999.9999999999984), Infinity);
});
