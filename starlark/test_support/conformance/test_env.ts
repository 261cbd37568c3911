/**
 * Host values the starlark-go test files expect: the assert module's predeclared built-ins
 * (error, catch, matches, module, _freeze) plus hasfields, fibonacci and struct.
 */
import { EvalError, LimitError } from "../../errors.ts";
import { callValue } from "../../eval/call.ts";
import { compileSource, execProgram } from "../../eval/exec.ts";
import { freeze } from "../../eval/freeze.ts";
import { positional } from "../../lib/args.ts";
import type { HasAttrs } from "../../lib/attr.ts";
import { spell } from "../../syntax/spell.ts";
import type { Thread } from "../../thread.ts";
import { utf8Decode } from "../../values/bytes_text.ts";
import { typeName } from "../../values/ops.ts";
import { Builtin, List, Module, SObject, type Value } from "../../values/value.ts";

/** A failure reported by assert.* (non-fatal), with the test-file line. */
export interface Reported {
  line: number;
  msg: string;
}

/** Innermost frame of `th` belonging to `filename`. */
function callerLine(th: Thread, filename: string): number {
  // deno-lint-ignore no-explicit-any
  for (let f: any = th.fr; f !== null; f = f.parent) {
    if (f.filename === filename) return Math.floor(f.pos / 4096);
  }
  return 0;
}

class HasFields extends SObject implements HasAttrs {
  readonly type = "hasfields";
  attrs = new Map<string, Value>();
  frozen = false;
  attr(name: string): Value | undefined {
    return this.attrs.get(name);
  }
  attrNames(): string[] {
    return [...this.attrs.keys()].sort();
  }
  setField(name: string, v: Value): void {
    if (this.frozen) throw new EvalError("cannot set field on a frozen hasfields");
    if (name.startsWith("no")) {
      // as in eval_test.go: such names report "no such field", with a spelling hint
      const hint = spell(name, this.attrNames());
      throw new EvalError(`no .${name} field${hint ? ` (did you mean .${hint}?)` : ""}`);
    }
    this.attrs.set(name, v);
  }
  freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const v of this.attrs.values()) freeze(v);
  }
  repr(): string {
    return "hasfields";
  }
  hashKey(): unknown {
    return this;
  }
  binary(op: string, y: Value): Value | undefined {
    return op === "+" && y instanceof List ? 42 : undefined;
  }
}

class Struct extends SObject implements HasAttrs {
  readonly type = "struct";
  constructor(readonly fields: Map<string, Value>) {
    super();
  }
  attr(name: string): Value | undefined {
    return this.fields.get(name);
  }
  attrNames(): string[] {
    return [...this.fields.keys()].sort();
  }
}

/** Infinite Fibonacci iterable (only usable in `for` loops). */
class Fibonacci extends SObject {
  readonly type = "fib";
  *iter(): Generator<Value> {
    let a = 0, b = 1;
    for (;;) {
      yield a;
      [a, b] = [b, a + b];
    }
  }
}

const ASSERT_STAR = "/starlarktest/assert.star";

/** Loads assert.star (from the starlark-go tree) once per thread; returns its exports. */
export function makeLoader(
  root: string,
  th: Thread,
  testFile: string,
  reported: Reported[],
): (module: string, name: string) => Value {
  let assertExports: Map<string, Value> | null = null;
  const builtins = new Map<string, Value>([
    [
      "error",
      new Builtin("error", (t, a, k) => {
        positional("error", a, k, 1, 1);
        reported.push({
          line: callerLine(t, testFile),
          msg: utf8Decode(typeof a[0] === "string" ? a[0] : String(a[0])),
        });
        return null;
      }),
    ],
    [
      "catch",
      new Builtin("catch", (t, a, k) => {
        const [f] = positional("catch", a, k, 1, 1);
        try {
          callValue(t, f, [], null);
        } catch (e) {
          if (e instanceof LimitError) throw e;
          if (e instanceof EvalError) return e.message;
          throw e;
        }
        return null;
      }),
    ],
    [
      "matches",
      new Builtin("matches", (_t, a, k) => {
        const [pat, s] = positional("matches", a, k, 2, 2);
        if (typeof pat !== "string" || typeof s !== "string") {
          throw new EvalError("matches: want strings");
        }
        return new RegExp(utf8Decode(pat)).test(utf8Decode(s));
      }),
    ],
    [
      "module",
      new Builtin("module", (_t, a, k) => {
        const [name] = positional("module", a, null, 1, 1);
        if (typeof name !== "string") {
          throw new EvalError(`module: got ${typeName(name)}, want string`);
        }
        return new Module(name, new Map(k ?? []));
      }),
    ],
    [
      "_freeze",
      new Builtin("freeze", (_t, a, k) => {
        if (k !== null && k.length > 0) {
          throw new EvalError("freeze does not accept keyword arguments");
        }
        if (a.length !== 1) throw new EvalError(`freeze got ${a.length} arguments, wants 1`);
        freeze(a[0]);
        return a[0];
      }),
    ],
  ]);
  return (module, name) => {
    if (module === "assert.star") {
      if (assertExports === null) {
        const file = root + ASSERT_STAR;
        const prog = compileSource(Deno.readTextFileSync(file), {
          filename: file,
          predeclared: builtins.keys(),
        });
        // assert.star's functions look these up at call time, so they stay predeclared
        for (const [k, v] of builtins) th.predeclared.set(k, v);
        assertExports = execProgram(prog, th);
      }
      const v = assertExports.get(name);
      if (v === undefined) {
        const near = spell(name, [...assertExports.keys()]);
        throw new EvalError(
          `load: name ${name} not found in module ${module}${
            near ? ` (did you mean ${near}?)` : ""
          }`,
        );
      }
      return v;
    }
    if (module === "json.star" && name === "json") return th.predeclared.get("json") ?? null;
    throw new EvalError(`cannot load ${module}`);
  };
}

export function testPredeclared(universeJson: Value): Map<string, Value> {
  return new Map<string, Value>([
    [
      "hasfields",
      new Builtin(
        "hasfields",
        (_t, a, k) => (positional("hasfields", a, k, 0, 0), new HasFields()),
      ),
    ],
    ["fibonacci", new Fibonacci()],
    [
      "struct",
      new Builtin("struct", (_t, a, k) => {
        if (a.length > 0) throw new EvalError("struct: unexpected positional arguments");
        return new Struct(new Map(k ?? []));
      }),
    ],
    ["json", universeJson],
  ]);
}
