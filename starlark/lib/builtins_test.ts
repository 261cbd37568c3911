import assert from "node:assert/strict";
import { compileSource, execProgram } from "../eval/exec.ts";
import { Thread } from "../thread.ts";
import { utf8Decode } from "../values/bytes_text.ts";
import { repr } from "../values/repr.ts";

/** Evaluate `expr` as a module global and return its repr (as text). */
function ev(expr: string): string {
  const g = execProgram(compileSource(`x = ${expr}\n`), new Thread());
  return utf8Decode(repr(g.get("x")!));
}

function err(expr: string): string {
  try {
    ev(expr);
  } catch (e) {
    return utf8Decode((e as Error).message);
  }
  return "ok";
}

Deno.test("% interpolation and str.format follow starlark-go", () => {
  assert.equal(
    ev('"%d %s %r %x %o %e %g %%" % (42, "a", "a", 255, 8, 1.5, 1e-5)'),
    '"42 a \\"a\\" ff 10 1.500000e+00 1e-05 %"',
  );
  assert.equal(ev('"%(k)s" % {"k": 1}'), '"1"');
  assert.equal(err('"%d" % "x"'), "%d format requires integer: cannot convert string to int");
  assert.equal(ev('"{} {x} {!r}".format("a", "b", x=1)'), '"a 1 \\"b\\""');
  assert.equal(err('"{".format()'), "format: unmatched '{' in format");
});

Deno.test("string methods work on UTF-8 bytes", () => {
  assert.equal(ev('len("aΩb")'), "4");
  assert.equal(ev('"aΩb"[1]'), '"\\xce"');
  assert.equal(ev('"a,b,,c".split(",")'), '["a", "b", "", "c"]');
  assert.equal(ev('" a  b ".split()'), '["a", "b"]');
  assert.equal(ev('"x\\ny\\r\\nz".splitlines()'), '["x", "y\\r", "z"]');
  assert.equal(ev('"hello".replace("l", "L", 1)'), '"heLlo"');
  assert.equal(ev('"ǉubović".title()'), '"ǈubović"');
  assert.equal(err('"abc".index("z")'), "index: substring not found");
});

Deno.test("sorted is stable and reports the last failed comparison like starlark-go", () => {
  assert.equal(ev('sorted(["bb", "a", "cc", "d"], key=len)'), '["a", "d", "bb", "cc"]');
  assert.equal(ev("sorted([3, 1, 2], reverse=True)"), "[3, 2, 1]");
  assert.equal(err("sorted([1, 2, None, 3])"), "int < NoneType not implemented");
});

Deno.test("math uses Go's special cases", () => {
  assert.equal(ev("math.round(-0.5)"), "-1.0");
  assert.equal(ev("math.pow(1, float('nan'))"), "1.0");
  assert.equal(ev("math.floor(2.7)"), "2");
  assert.equal(ev("math.gamma(5)"), "24.0");
  assert.equal(err("math.log(1, 1)"), "division by zero");
  assert.equal(err('math.sqrt("x")'), "sqrt: for parameter 1: got string, want float or int");
});

Deno.test("sum adds with + and abs keeps ints exact", () => {
  assert.equal(ev("sum([1, 2, 3])"), "6");
  assert.equal(ev('sum(["a", "b"], "")'), '"ab"');
  assert.equal(ev("abs(-(1 << 70))"), "1180591620717411303424");
  assert.equal(err('sum([1, "a"])'), "sum: unknown binary op: int + string");
});
