import assert from "node:assert/strict";
import { ProjectionError, projectResult } from "./project.ts";
import { t } from "./schema.ts";

Deno.test("projectResult keeps declaration order and drops undeclared keys", () => {
  const fields = t.fields({ b: t.int(), a: t.str() });
  const out = projectResult(fields, { a: "x", extra: 1, b: 2 });
  assert.deepEqual(Object.keys(out), ["b", "a"]);
  assert.deepEqual(out, { b: 2, a: "x" });
});

Deno.test("projectResult: pointers, omit-when-empty and nil containers", () => {
  const fields = [
    t.field("p", t.ptr(t.str())),
    t.field("o", t.ptr(t.str()), { omitEmpty: true }),
    t.field("l", t.list(t.int())),
    t.field("m", t.dict(t.int())),
    t.field("b", t.bytes()),
    t.field("s", t.struct([t.field("q", t.ptr(t.int()), { omitEmpty: true })])),
  ];
  assert.deepEqual(projectResult(fields, { s: {} }), { p: null, l: null, m: null, b: null, s: {} });
  assert.deepEqual(
    projectResult(fields, {
      p: "x",
      o: "y",
      l: [],
      m: {},
      b: new Uint8Array([1, 255]),
      s: { q: 1 },
    }),
    { p: "x", o: "y", l: [], m: {}, b: [1, 255], s: { q: 1 } },
  );
  assert.deepEqual(projectResult(fields, { m: new Map([["k", 1]]), s: {} }).m, { k: 1 });
});

Deno.test("projectResult rejects invalid values", async (t2) => {
  const cases: Array<[string, ReturnType<typeof t.str>, unknown]> = [
    ["non-finite float", t.float64(), Infinity],
    ["NaN", t.float64(), NaN],
    ["uint64 above int64 max", t.uint64(), 1n << 63n],
    ["negative unsigned", t.uint64(), -1],
    ["int8 overflow", t.int8(), 128],
    ["unsafe number int", t.int(), 2 ** 60],
    ["string for int", t.int(), "1"],
    ["missing required", t.str(), undefined],
    ["byte above 255", t.bytes(), [256]],
    ["list of wrong type", t.list(t.str()), [1]],
  ];
  for (const [what, type, value] of cases) {
    await t2.step(
      what,
      () =>
        assert.throws(() => projectResult(t.fields({ v: type }), { v: value }), ProjectionError),
    );
  }
  assert.throws(() => projectResult(t.fields({ v: t.int() }), "x"), ProjectionError);
});

Deno.test("projectResult accepts the int64 edge and exact bigints", () => {
  const max = (1n << 63n) - 1n;
  assert.deepEqual(projectResult(t.fields({ v: t.uint64() }), { v: max }), { v: max });
  assert.deepEqual(projectResult(t.fields({ v: t.int64() }), { v: -max - 1n }), { v: -max - 1n });
  assert.deepEqual(projectResult(t.fields({ v: t.int() }), { v: 5n }), { v: 5 });
  assert.deepEqual(projectResult([], undefined), {});
});
