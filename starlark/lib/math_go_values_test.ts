import assert from "node:assert/strict";
import { compileSource, execProgram } from "../eval/exec.ts";
import { Thread } from "../thread.ts";
import { utf8Decode } from "../values/bytes_text.ts";
import { repr } from "../values/repr.ts";

/** Evaluate `expr` with the math module and return its repr. */
function ev(expr: string): string {
  const g = execProgram(compileSource(`x = ${expr}\n`), new Thread());
  return utf8Decode(repr(g.get("x")!));
}

// Printed by Go 1.19's math package on amd64 (with FMA), strconv.FormatFloat(v, 'g', -1, 64);
// V8's Math functions give the value after the comment.
const GO_VALUES: [string, string][] = [
  ["math.sinh(0.1)", "0.10016675001984404"], // 0.10016675001984403
  ["math.cos(1e16)", "-0.6261681981330861"], // -0.6261681981330862
  ["math.tan(1e22)", "-1.6287782256068992"], // -1.6287782256068988
  ["math.atan(100.0)", "1.5607966601082313"], // 1.5607966601082315
  ["math.log(1.5, 3)", "0.36907024642854264"], // 0.3690702464285425
  ["math.sin(1e300)", "-0.8178819121159087"],
  ["math.log(5e-324)", "-709.0895657128241"], // the amd64 assembly's subnormal quirk; -744.44…
  ["math.cosh(710)", "+inf"], // 1.1169973830808557e+308
  ["math.pow(1.0000001, 1e9)", "2.688103843211962e+43"], // 2.6881038582144647e+43
  ["math.hypot(3e-320, 4e-320)", "5e-320"],
  ["math.exp(1)", "2.718281828459045"],
  ['math.copysign(1, -float("nan"))', "-1.0"], // the sign bit of a NaN counts
  ['math.copysign(1, float("nan"))', "1.0"],
];

Deno.test("math functions give the bits Go's math package gives", () => {
  for (const [expr, want] of GO_VALUES) assert.equal(ev(expr), want, expr);
});
