/**
 * The `math` module (starlark-go lib/math semantics). starlark-go calls Go's `math` package, so
 * every function here is Go's algorithm on amd64, bit for bit (`go_math/`), not V8's libm.
 */
import { EvalError } from "../errors.ts";
import { floatToInt, intToFloat, typeName } from "../values/ops.ts";
import { Builtin, Float, Module, type NativeFn, type Value } from "../values/value.ts";
import { positional } from "./args.ts";
import { gamma } from "./math_gamma.ts";
import { exp, log } from "./go_math/exp_log.ts";
import { hypot } from "./go_math/hypot.ts";
import { acos, asin, atan, atan2 } from "./go_math/inverse_trig.ts";
import { acosh, asinh, atanh, cosh, sinh, tanh } from "./go_math/hyperbolic.ts";
import { mod, remainder } from "./go_math/mod.ts";
import { pow } from "./go_math/pow.ts";
import { round } from "./go_math/round.ts";
import { cos, sin, tan } from "./go_math/trig.ts";
import { signbit } from "./go_math/bits.ts";

function num(fname: string, v: Value, param = 0): number {
  if (v instanceof Float) return v.v;
  const where = param === 0 ? `${fname}: ` : `${fname}: for parameter ${param}: `;
  if (typeof v === "number" || typeof v === "bigint") {
    try {
      return intToFloat(v);
    } catch (e) {
      throw new EvalError(where + (e as Error).message);
    }
  }
  throw new EvalError(`${where}got ${typeName(v)}, want float or int`);
}

function unary(name: string, f: (x: number) => number): [string, NativeFn] {
  return [name, (_th, a, k) => {
    const [x] = positional(name, a, k, 1, 1);
    return new Float(f(num(name, x, 1)));
  }];
}

function binary(name: string, f: (x: number, y: number) => number): [string, NativeFn] {
  return [name, (_th, a, k) => {
    const [x, y] = positional(name, a, k, 2, 2);
    return new Float(f(num(name, x, 1), num(name, y, 2)));
  }];
}

const fns: [string, NativeFn][] = [
  ["ceil", (_th, a, k) => {
    const [x] = positional("ceil", a, k, 1, 1);
    if (typeof x === "number" || typeof x === "bigint") return x;
    return floatToInt(Math.ceil(num("ceil", x)));
  }],
  ["floor", (_th, a, k) => {
    const [x] = positional("floor", a, k, 1, 1);
    if (typeof x === "number" || typeof x === "bigint") return x;
    return floatToInt(Math.floor(num("floor", x)));
  }],
  binary("copysign", (x, y) => (signbit(y) ? -Math.abs(x) : Math.abs(x))),
  unary("fabs", Math.abs),
  binary("mod", mod),
  binary("pow", pow),
  binary("remainder", remainder),
  unary("round", round),
  unary("exp", exp),
  unary("sqrt", Math.sqrt), // correctly rounded on both sides (SQRTSD)
  unary("acos", acos),
  unary("asin", asin),
  unary("atan", atan),
  binary("atan2", atan2),
  unary("cos", cos),
  binary("hypot", hypot),
  unary("sin", sin),
  unary("tan", tan),
  unary("degrees", (x) => (360 * x) / (2 * Math.PI)),
  unary("radians", (x) => (2 * Math.PI * x) / 360),
  unary("acosh", acosh),
  unary("asinh", asinh),
  unary("atanh", atanh),
  unary("cosh", cosh),
  unary("sinh", sinh),
  unary("tanh", tanh),
  ["log", (_th, a, k) => {
    const [x, base] = positional("log", a, k, 1, 2);
    const xv = num("log", x, 1);
    if (base === undefined) return new Float(log(xv));
    const b = num("log", base, 2);
    if (b === 1) throw new EvalError("division by zero");
    return new Float(log(xv) / log(b));
  }],
  unary("gamma", gamma),
];

export function makeMathModule(): Module {
  const m = new Map<string, Value>(fns.map(([n, f]) => [n, new Builtin(n, f)]));
  m.set("e", new Float(Math.E));
  m.set("pi", new Float(Math.PI));
  return new Module("math", m);
}
