import assert from "node:assert/strict";
import { EvalError } from "../errors.ts";
import { Thread } from "../thread.ts";
import { repr } from "../values/repr.ts";
import { callValue } from "./call.ts";
import { compileSource, execProgram } from "./exec.ts";

function evalGlobals(src: string, th = new Thread()): Map<string, string> {
  const g = execProgram(compileSource(src), th);
  return new Map([...g].map(([k, v]) => [k, repr(v)]));
}

function evalError(src: string): string {
  try {
    execProgram(compileSource(src), new Thread());
  } catch (e) {
    if (e instanceof EvalError) return e.message;
    throw e;
  }
  return "ok";
}

Deno.test("closures capture variables through cells", () => {
  const g = evalGlobals(
    "def mk():\n  n = [0]\n  def inc():\n    n[0] += 1\n    return n[0]\n  return inc\nf = mk()\nx = [f(), f(), f()]\n",
  );
  assert.equal(g.get("x"), "[1, 2, 3]");
});

Deno.test("arguments bind like starlark-go (defaults, *args, keyword-only, **kwargs)", () => {
  const g = evalGlobals(
    "def f(a, b=2, *args, c, d=4, **kw):\n  return (a, b, args, c, d, kw)\nx = f(1, 2, 3, c=5, e=6)\n",
  );
  assert.equal(g.get("x"), '(1, 2, (3,), 5, 4, {"e": 6})');
  assert.equal(evalError("def f(a):\n  pass\nf()\n"), "function f missing 1 argument (a)");
  assert.equal(
    evalError("def f(a):\n  pass\nf(1, a=2)\n"),
    'function f got multiple values for parameter "a"',
  );
  assert.equal(evalError("def f():\n  pass\nf(1)\n"), "function f accepts no arguments (1 given)");
});

Deno.test("ints are arbitrary precision with floored division and exact float comparison", () => {
  const g = evalGlobals(
    "a = (1 << 100) // 3\nb = -7 // 2\nc = -7 % 3\nd = (1 << 53) + 1 == float(1 << 53)\ne = 9007199254740993 > 9007199254740992.0\n",
  );
  assert.equal(g.get("a"), "422550200076076467165567735125");
  assert.equal(g.get("b"), "-4");
  assert.equal(g.get("c"), "2");
  assert.equal(g.get("d"), "False");
  assert.equal(g.get("e"), "True");
});

Deno.test("module globals are frozen after top-level execution; iteration blocks mutation", () => {
  const th = new Thread();
  const g = execProgram(compileSource("x = [1]\ndef f():\n  x.append(2)\n"), th);
  const f = g.get("f")!;
  assert.throws(() => callValue(th, f, [], null), /cannot append to frozen list/);
  assert.equal(
    evalError("def f():\n  l = [1, 2]\n  for x in l:\n    l.append(x)\nf()\n"),
    "append: cannot append to list during iteration",
  );
});

Deno.test("recursion is a dynamic error in this dialect", () => {
  assert.equal(
    evalError("def f(n):\n  return f(n - 1) if n else 0\nf(3)\n"),
    "function f called recursively",
  );
});

Deno.test("steps are deterministic and grow linearly with loop iterations", () => {
  const steps = (n: number) => {
    const th = new Thread();
    execProgram(compileSource(`def f():\n  return [x * x for x in range(${n})]\ny = f()\n`), th);
    return th.steps;
  };
  assert.equal(steps(1000), steps(1000));
  const ratio = steps(100000) / steps(1000);
  assert.ok(ratio > 90 && ratio < 110, `ratio ${ratio}`);
});

Deno.test("max steps and timeout stop a long loop", () => {
  const prog = compileSource("def f():\n  for x in range(1000000000):\n    pass\nf()\n");
  assert.throws(() => execProgram(prog, new Thread({ maxSteps: 1000 })), /too many steps/);
  let t = 0;
  const th = new Thread({ timeoutMs: 10, now: () => (t += 1) });
  assert.throws(() => execProgram(prog, th), /timeout/);
});

Deno.test("expressions compile without importing the statement compiler (no import cycle)", async () => {
  const runtimeImports = async (file: string) => {
    const src = await Deno.readTextFile(new URL(file, import.meta.url));
    return [...src.matchAll(/^import (?!type )[^;]*? from "([^"]+)";/gms)].map((m) => m[1]);
  };
  const fromExpr = await runtimeImports("./compile_expr.ts");
  assert.ok(fromExpr.includes("./compile_function.ts"), fromExpr.join(" ")); // the scan works
  assert.ok(!fromExpr.includes("./compile_stmt.ts"), fromExpr.join(" "));
  for (const helper of ["./compile_function.ts", "./iterate.ts", "./compile_types.ts"]) {
    const imports = await runtimeImports(helper);
    assert.ok(!imports.some((i) => /compile_(expr|stmt)\.ts$/.test(i)), `${helper}: ${imports}`);
  }
});
