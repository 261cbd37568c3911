/** The `math` module (starlark-go lib/math semantics). */
import { EvalError } from "../errors.ts";
import { floatToInt, intToFloat, typeName } from "../values/ops.ts";
import { Builtin, Float, Module, type NativeFn, type Value } from "../values/value.ts";
import { positional } from "./args.ts";
import { gamma } from "./math_gamma.ts";

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

/** Go math.Pow special cases that differ from JS `**`. */
function pow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if ((x === -1) && !Number.isFinite(y) && !Number.isNaN(y)) return 1;
  return Math.pow(x, y);
}

/** IEEE 754 remainder, computed exactly as Go's math.Remainder (fmod-based, no rounding). */
function remainder(x: number, y: number): number {
  const TINY = 4.45014771701440276618e-308, HALF_MAX = Number.MAX_VALUE / 2;
  if (Number.isNaN(x) || Number.isNaN(y) || !Number.isFinite(x) || y === 0) return NaN;
  if (!Number.isFinite(y)) return x;
  let sign = false;
  if (x < 0 || Object.is(x, -0)) {
    x = -x;
    sign = true;
  }
  if (y < 0) y = -y;
  if (x === y) return sign ? -0 : 0;
  if (y <= HALF_MAX) x = x % (y + y); // now x < 2y
  if (y < TINY) {
    if (x + x > y) {
      x -= y;
      if (x + x >= y) x -= y;
    }
  } else {
    const yHalf = 0.5 * y;
    if (x > yHalf) {
      x -= y;
      if (x >= yHalf) x -= y;
    }
  }
  return sign ? -x : x;
}

function roundHalfAway(x: number): number {
  if (!Number.isFinite(x)) return x;
  const r = Math.round(Math.abs(x));
  const v = Math.abs(x) - Math.floor(Math.abs(x)) === 0.5 ? Math.floor(Math.abs(x)) + 1 : r;
  return x < 0 || Object.is(x, -0) ? -v : v;
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
  binary("copysign", (x, y) => (Math.sign(y) < 0 || Object.is(y, -0) ? -Math.abs(x) : Math.abs(x))),
  unary("fabs", Math.abs),
  binary("mod", (x, y) => x % y),
  binary("pow", pow),
  binary("remainder", remainder),
  unary("round", roundHalfAway),
  unary("exp", Math.exp),
  unary("sqrt", Math.sqrt),
  unary("acos", Math.acos),
  unary("asin", Math.asin),
  unary("atan", Math.atan),
  binary("atan2", Math.atan2),
  unary("cos", Math.cos),
  binary("hypot", Math.hypot),
  unary("sin", Math.sin),
  unary("tan", Math.tan),
  unary("degrees", (x) => (360 * x) / (2 * Math.PI)),
  unary("radians", (x) => (2 * Math.PI * x) / 360),
  unary("acosh", Math.acosh),
  unary("asinh", Math.asinh),
  unary("atanh", Math.atanh),
  // Go's Cosh: exp-based, so it overflows to +Inf where Math.cosh is still finite
  unary("cosh", (x) => {
    x = Math.abs(x);
    if (x > 21) return Math.exp(x) * 0.5;
    const ex = Math.exp(x);
    return (ex + 1 / ex) * 0.5;
  }),
  unary("sinh", Math.sinh),
  unary("tanh", Math.tanh),
  ["log", (_th, a, k) => {
    const [x, base] = positional("log", a, k, 1, 2);
    const xv = num("log", x, 1);
    if (base === undefined) return new Float(Math.log(xv));
    const b = num("log", base, 2);
    if (b === 1) throw new EvalError("division by zero");
    return new Float(Math.log(xv) / Math.log(b));
  }],
  unary("gamma", gamma),
];

export function makeMathModule(): Module {
  const m = new Map<string, Value>(fns.map(([n, f]) => [n, new Builtin(n, f)]));
  m.set("e", new Float(Math.E));
  m.set("pi", new Float(Math.PI));
  return new Module("math", m);
}
