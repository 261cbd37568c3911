/** The universe: built-in functions and modules of our dialect (no `set`; adds `sum`). */
import { EvalError } from "../errors.ts";
import { typeName } from "../values/ops.ts";
import { str } from "../values/repr.ts";
import { Builtin, Float, List, type NativeFn, normInt, type Value } from "../values/value.ts";
import { positional } from "./args.ts";
import { attrNames, getAttr, hasAttr } from "./attr.ts";
import { CONVERT_BUILTINS } from "./convert_builtins.ts";
import { makeJsonModule } from "./json.ts";
import { makeMathModule } from "./math.ts";
import { SEQ_BUILTINS } from "./seq_builtins.ts";

const B: [string, NativeFn][] = [
  ["abs", (_th, a, k) => {
    const [x] = positional("abs", a, k, 1, 1);
    if (typeof x === "number") return Math.abs(x);
    if (typeof x === "bigint") return x < 0n ? normInt(-x) : x;
    if (x instanceof Float) return new Float(Math.abs(x.v));
    throw new EvalError(`abs: got ${typeName(x)}, want int or float`);
  }],
  ["dir", (_th, a, k) => {
    if (k !== null && k.length > 0) throw new EvalError("dir does not accept keyword arguments");
    if (a.length !== 1) throw new EvalError(`dir: got ${a.length} arguments, want 1`);
    return new List(attrNames(a[0]));
  }],
  ["fail", (_th, a, k) => {
    let sep = " ";
    for (const [name, v] of k ?? []) {
      if (name !== "sep") {
        throw new EvalError(`fail: unexpected keyword argument ${JSON.stringify(name)}`);
      }
      if (typeof v !== "string") {
        throw new EvalError(`fail: for parameter sep: got ${typeName(v)}, want string`);
      }
      sep = v;
    }
    throw new EvalError("fail: " + a.map((x) => str(x)).join(sep), "fail");
  }],
  ["getattr", (th, a, k) => {
    const [x, name, dflt] = positional("getattr", a, k, 2, 3);
    if (typeof name !== "string") {
      throw new EvalError(`getattr: for parameter 2: got ${typeName(name)}, want string`);
    }
    if (hasAttr(x, name)) return getAttr(th, x, name);
    if (dflt !== undefined) return dflt;
    try {
      return getAttr(th, x, name);
    } catch (e) {
      throw new EvalError(`getattr: ${(e as Error).message}`);
    }
  }],
  ["hasattr", (_th, a, k) => {
    const [x, name] = positional("hasattr", a, k, 2, 2);
    if (typeof name !== "string") {
      throw new EvalError(`hasattr: for parameter 2: got ${typeName(name)}, want string`);
    }
    return hasAttr(x, name);
  }],
  ["print", (th, a, k) => {
    let sep = " ";
    for (const [name, v] of k ?? []) {
      if (name !== "sep") {
        throw new EvalError(`print: unexpected keyword argument ${JSON.stringify(name)}`);
      }
      if (typeof v !== "string") {
        throw new EvalError(`print: for parameter sep: got ${typeName(v)}, want string`);
      }
      sep = v;
    }
    th.print(a.map((x) => str(x, th.maxBytes)).join(sep));
    return null;
  }],
];

/** Build a fresh universe (values are immutable/frozen, so one can be shared). */
export function makeUniverse(): Map<string, Value> {
  const u = new Map<string, Value>();
  u.set("None", null);
  u.set("True", true);
  u.set("False", false);
  for (const [name, fn] of [...B, ...CONVERT_BUILTINS, ...SEQ_BUILTINS]) {
    u.set(name, new Builtin(name, fn));
  }
  u.set("json", makeJsonModule());
  u.set("math", makeMathModule());
  return u;
}
