import assert from "node:assert/strict";
import { parseFile } from "./parser.ts";
import { resolveFile } from "./resolver.ts";

function errors(src: string, predeclared: string[] = []): string[] {
  const f = parseFile(src, "<program>");
  return resolveFile(f, {
    isPredeclared: (n) => predeclared.includes(n),
    isUniversal: (n) => n === "len",
  })
    .map((e) => e.message);
}

Deno.test("resolver reports undefined names with spelling hints", () => {
  assert.deepEqual(errors("def main():\n    counter = 1\n    return countr\n"), [
    "<program>:3:12: undefined: countr (did you mean counter?)",
  ]);
});

Deno.test("resolver rejects global reassignment and top-level control flow", () => {
  assert.deepEqual(errors("x = 1\nx = 2\n"), [
    "<program>:2:1: cannot reassign global x declared at <program>:1:1",
  ]);
  assert.deepEqual(errors("for x in []:\n  pass\n"), [
    "<program>:1:1: for loop not within a function",
  ]);
  assert.deepEqual(errors("if len:\n  pass\n"), [
    "<program>:1:1: if statement not within a function",
  ]);
  assert.deepEqual(errors("def f():\n  while 1:\n    pass\n"), [
    "<program>:2:3: this Starlark dialect does not support while loops",
  ]);
});

Deno.test("resolver accepts predeclared names and reports non-local uses in starlark-go order", () => {
  assert.deepEqual(errors("x = host()\n", ["host"]), []);
  assert.deepEqual(errors("x = a\ndef main():\n    return b\n").map((e) => e.split(": ")[1]), [
    "undefined",
    "undefined",
  ]);
  assert.equal(errors("x = a\ndef main():\n    return b\n")[0], "<program>:3:12: undefined: b");
});

Deno.test("resolver turns captured locals into cells", () => {
  const f = parseFile("def f():\n  x = 1\n  return lambda: x\n", "t");
  assert.deepEqual(resolveFile(f, { isPredeclared: () => false, isUniversal: () => false }), []);
  const def = f.stmts[0] as { function: { locals: { name: string; scope: string }[] } };
  assert.equal(def.function.locals.find((b) => b.name === "x")?.scope, "cell");
});
