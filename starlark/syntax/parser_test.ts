import assert from "node:assert/strict";
import { StarlarkError } from "../errors.ts";
import { parseFile } from "./parser.ts";

function parseError(src: string): string {
  try {
    parseFile(src, "<program>");
  } catch (e) {
    if (e instanceof StarlarkError) return e.message;
    throw e;
  }
  return "ok";
}

Deno.test("parser builds statements with operator precedence", () => {
  const f = parseFile("x = 1 + 2 * 3\n", "t");
  const s = f.stmts[0] as {
    kind: string;
    rhs: { operator: string; right: { operator: string } };
  };
  assert.equal(s.kind, "assign");
  assert.equal(s.rhs.operator, "+");
  assert.equal(s.rhs.right.operator, "*");
});

Deno.test("parser reports errors at the end of the offending token, like starlark-go", () => {
  assert.equal(parseError("def main():\n    a **= 1\n"), "<program>:2:9: got '**', want newline");
  assert.equal(parseError("x = 1 +\n2\n"), "<program>:2:1: got newline, want primary expression");
  assert.equal(
    parseError("_ = 0 == 1 == 2\n"),
    "<program>:1:14: == does not associate with == (use parens)",
  );
  assert.equal(
    parseError("_ = a if b\n"),
    "<program>:1:7: conditional expression without else clause",
  );
  assert.equal(
    parseError("a, b, = 1, 2\n"),
    "<program>:1:5: unparenthesized tuple with trailing comma",
  );
});

Deno.test("parser raises the first error in source order (scanner errors are lazy)", () => {
  assert.equal(
    parseError("def main():\n    x = (1 if 2)\n    y = )\n"),
    "<program>:2:12: conditional expression without else clause",
  );
});

Deno.test("parser accepts lambdas, comprehensions, slices and keyword-only parameters", () => {
  assert.equal(
    parseError(
      "def f(a, b=1, *args, c, **kw):\n  return [x for x in a if x][::2]\ng = lambda x: {k: v for k, v in x}\n",
    ),
    "ok",
  );
});
