import assert from "node:assert/strict";
import { fromHost, toHost } from "./host.ts";
import { repr } from "./values/repr.ts";

const noLimits = { maxDepth: Infinity, maxBytes: Infinity };

Deno.test("host data converts to Starlark values and back", () => {
  const v = fromHost({ a: [1, 2.5, null, "é"], b: 2n ** 70n }, noLimits, "x");
  assert.equal(repr(v), '{"a": [1, 2.5, None, "\xc3\xa9"], "b": 1180591620717411303424}');
  assert.deepEqual(
    toHost(v, noLimits, "x", { int64: false, code: "host_argument_not_convertible" }),
    {
      a: [1, 2.5, null, "é"],
      b: 2n ** 70n,
    },
  );
});

Deno.test("value depth counts scalars as 1 and each container as one more", () => {
  const v = fromHost([[1]], noLimits, "x");
  assert.doesNotThrow(() =>
    toHost(v, { maxDepth: 3, maxBytes: Infinity }, "r", {
      int64: true,
      code: "result_not_convertible",
    })
  );
  assert.throws(
    () =>
      toHost(v, { maxDepth: 2, maxBytes: Infinity }, "r", {
        int64: true,
        code: "result_not_convertible",
      }),
    /depth/,
  );
});
