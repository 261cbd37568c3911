import assert from "node:assert/strict";
import { formatE, formatF, formatFloat } from "./float_format.ts";

Deno.test("floats print as Go's shortest %g with .0 for integral values", () => {
  const cases: [number, string][] = [
    [1e6, "1e+06"],
    [123456.0, "123456.0"],
    [12345678.0, "1.2345678e+07"],
    [100 / 7, "14.285714285714286"],
    [1.23e45, "1.23e+45"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [-0, "-0.0"],
    [Infinity, "+inf"],
    [NaN, "nan"],
  ];
  for (const [x, s] of cases) assert.equal(formatFloat(x), s);
});

Deno.test("%e and %f use exact decimal expansion with precision 6", () => {
  assert.equal(formatE(123), "1.230000e+02");
  assert.equal(formatF(1.23e45), "1229999999999999973814869011019624571608236032.000000");
  assert.equal(formatF(0.125, 2), "0.12"); // ties to even on the exact value
});
