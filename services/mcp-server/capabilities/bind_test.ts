import assert from "node:assert/strict";
import { bindArguments, BindError } from "./bind.ts";
import { t } from "./schema.ts";

const fails = (fn: () => unknown, message: string) =>
  assert.throws(fn, (e) => e instanceof BindError && e.message === message);

Deno.test("bindArguments: required, optional and unknown root arguments", () => {
  const fields = t.fields({ key: t.str(), limit: t.ptr(t.int()) });
  assert.deepEqual(bindArguments(fields, { key: "a" }), { key: "a" });
  assert.deepEqual(bindArguments(fields, { key: "a", limit: null }), { key: "a" });
  assert.deepEqual(bindArguments(fields, { key: "a", limit: 3 }), { key: "a", limit: 3 });
  fails(() => bindArguments(fields, {}), "missing argument key");
  fails(() => bindArguments(fields, { key: "a", nope: 1 }), "unexpected keyword argument nope");
  fails(() => bindArguments(fields, { key: null }), "key: got NoneType, want str");
});

Deno.test("bindArguments: scalar kinds", () => {
  const f = (type: ReturnType<typeof t.str>) => t.fields({ v: type });
  assert.deepEqual(bindArguments(f(t.bool()), { v: true }), { v: true });
  fails(() => bindArguments(f(t.bool()), { v: 1 }), "v: got int, want bool");
  fails(() => bindArguments(f(t.str()), { v: 1 }), "v: got int, want str");
  fails(() => bindArguments(f(t.int()), { v: 1.5 }), "v: got float, want int");
  fails(() => bindArguments(f(t.int()), { v: "1" }), "v: got string, want int");
});

Deno.test("bindArguments: signed integer ranges at, below and above each bound", () => {
  const f = (type: ReturnType<typeof t.str>) => t.fields({ v: type });
  assert.deepEqual(bindArguments(f(t.int8()), { v: 127 }), { v: 127 });
  assert.deepEqual(bindArguments(f(t.int8()), { v: -128 }), { v: -128 });
  fails(() => bindArguments(f(t.int8()), { v: 128 }), "v: 128 out of range (-128 to 127)");
  fails(() => bindArguments(f(t.int8()), { v: -129 }), "v: -129 out of range (-128 to 127)");
  assert.deepEqual(bindArguments(f(t.int32()), { v: 2147483647 }), { v: 2147483647 });
  fails(
    () => bindArguments(f(t.int32()), { v: 2147483648 }),
    "v: 2147483648 out of range (-2147483648 to 2147483647)",
  );
  const max = (1n << 63n) - 1n;
  assert.deepEqual(bindArguments(f(t.int64()), { v: max }), { v: max });
  assert.deepEqual(bindArguments(f(t.int64()), { v: -max - 1n }), { v: -max - 1n });
  assert.throws(() => bindArguments(f(t.int64()), { v: max + 1n }), /out of range/);
});

Deno.test("bindArguments: unsigned ranges cap at min(type max, int64 max)", () => {
  const f = (type: ReturnType<typeof t.str>) => t.fields({ v: type });
  assert.deepEqual(bindArguments(f(t.uint8()), { v: 255 }), { v: 255 });
  assert.deepEqual(bindArguments(f(t.uint8()), { v: 0 }), { v: 0 });
  assert.throws(() => bindArguments(f(t.uint8()), { v: 256 }), /256 out of range \(0 to 255\)/);
  assert.throws(() => bindArguments(f(t.uint8()), { v: -1 }), /-1 out of range/);
  const i64 = (1n << 63n) - 1n;
  assert.deepEqual(bindArguments(f(t.uint64()), { v: i64 }), { v: i64 });
  assert.throws(() => bindArguments(f(t.uint64()), { v: i64 + 1n }), /out of range/);
  assert.deepEqual(bindArguments(f(t.uint16()), { v: 65535 }), { v: 65535 });
  assert.throws(() => bindArguments(f(t.uint16()), { v: 65536 }), /out of range/);
});

Deno.test("bindArguments: floats accept ints, must be finite, float32 range and rounding", () => {
  const f64 = t.fields({ v: t.float64() });
  const f32 = t.fields({ v: t.float32() });
  assert.deepEqual(bindArguments(f64, { v: 2 }), { v: 2 });
  assert.deepEqual(bindArguments(f64, { v: 1n << 60n }), { v: 2 ** 60 });
  fails(() => bindArguments(f64, { v: Infinity }), "v: float must be finite");
  fails(() => bindArguments(f64, { v: NaN }), "v: float must be finite");
  assert.deepEqual(bindArguments(f32, { v: 0.1 }), { v: Math.fround(0.1) });
  assert.deepEqual(bindArguments(f32, { v: 3.4028234663852886e38 }), { v: 3.4028234663852886e38 });
  assert.throws(() => bindArguments(f32, { v: 3.5e38 }), /out of float32 range/);
  fails(() => bindArguments(f64, { v: true }), "v: got bool, want float");
});

Deno.test("bindArguments: lists, bytes, dicts and nested paths", () => {
  const fields = t.fields({
    tags: t.list(t.str()),
    data: t.bytes(),
    labels: t.dict(t.str()),
    maybe: t.list(t.ptr(t.int())),
    filter: t.struct({
      owner: t.str(),
      state: t.ptr(t.str()),
      deep: t.ptr(t.struct({ x: t.int() })),
    }),
  });
  const ok = {
    tags: ["a"],
    data: [0, 255],
    labels: { env: "prod" },
    maybe: [1, null],
    filter: { owner: "me", state: null },
  };
  assert.deepEqual(bindArguments(fields, ok), {
    tags: ["a"],
    data: [0, 255],
    labels: { env: "prod" },
    maybe: [1, null],
    filter: { owner: "me" },
  });
  fails(() => bindArguments(fields, { ...ok, tags: ["a", 1] }), "tags[1]: got int, want str");
  fails(
    () => bindArguments(fields, { ...ok, data: [0, 256] }),
    "data[1]: 256 out of range (0 to 255)",
  );
  fails(
    () => bindArguments(fields, { ...ok, labels: { env: 1 } }),
    "labels['env']: got int, want str",
  );
  fails(
    () => bindArguments(fields, { ...ok, filter: { state: "x" } }),
    "filter.owner: missing required field",
  );
  fails(
    () => bindArguments(fields, { ...ok, filter: { owner: 1 } }),
    "filter.owner: got int, want str",
  );
  fails(
    () => bindArguments(fields, { ...ok, filter: { owner: "a", x: 1 } }),
    "filter: unknown field 'x'",
  );
  fails(
    () => bindArguments(fields, { ...ok, filter: { owner: "a", deep: { x: "no" } } }),
    "filter.deep.x: got string, want int",
  );
  fails(() => bindArguments(fields, { ...ok, tags: "a" }), "tags: got string, want list");
  fails(() => bindArguments(fields, { ...ok, labels: [] }), "labels: got list, want dict");
  fails(() => bindArguments(fields, { ...ok, tags: [null] }), "tags[0]: got NoneType, want str");
});

Deno.test("bindArguments omits nil pointers at every level, keeps None in lists and dicts", () => {
  const fields = t.fields({
    outer: t.ptr(t.struct({ inner: t.ptr(t.struct({ leaf: t.ptr(t.str()) })) })),
    m: t.dict(t.ptr(t.int())),
  });
  assert.deepEqual(
    bindArguments(fields, { outer: { inner: { leaf: null } }, m: { a: null } }),
    { outer: { inner: {} }, m: { a: null } },
  );
  assert.deepEqual(bindArguments(fields, { outer: null, m: {} }), { m: {} });
});

Deno.test("bindArguments: a tagged float (Float64Array of one) is a float, never an int", () => {
  const float = (x: number) => new Float64Array([x]);
  const f = (type: ReturnType<typeof t.str>) => t.fields({ v: type });
  fails(() => bindArguments(f(t.int()), { v: float(2) }), "v: got float, want int");
  fails(() => bindArguments(f(t.uint8()), { v: float(0) }), "v: got float, want int");
  fails(() => bindArguments(f(t.bytes()), { v: [1, float(2)] }), "v[1]: got float, want int");
  fails(() => bindArguments(f(t.str()), { v: float(1) }), "v: got float, want str");
  fails(
    () => bindArguments(f(t.struct({ a: t.int() })), { v: float(1) }),
    "v: got float, want dict",
  );
  fails(() => bindArguments(f(t.dict(t.int())), { v: float(1) }), "v: got float, want dict");
  assert.deepEqual(bindArguments(f(t.float64()), { v: float(2) }), { v: 2 });
  assert.deepEqual(bindArguments(f(t.float32()), { v: float(0.1) }), { v: Math.fround(0.1) });
  fails(() => bindArguments(f(t.float64()), { v: float(Infinity) }), "v: float must be finite");
  assert.deepEqual(bindArguments(f(t.ptr(t.float64())), { v: float(-1) }), { v: -1 });
});
