/** Built-ins over sequences: all any dict enumerate len list max min range reversed sorted sum tuple zip. */
import { EvalError, LimitError } from "../errors.ts";
import { callValue } from "../eval/call.ts";
import type { Thread } from "../thread.ts";
import { addInt, compare, truth, typeName } from "../values/ops.ts";
import { elements, len, mustElements } from "../values/seq.ts";
import {
  Builtin,
  Dict,
  Fn,
  List,
  type NativeFn,
  Range,
  Tuple,
  type Value,
} from "../values/value.ts";
import { intParam, paramLabel, positional, unpackArgs, wrap64 } from "./args.ts";
import { stableSort } from "./go_sort.ts";
import { dictUpdate } from "./update.ts";
import { binary } from "../values/binary.ts";

function toRangeInt(v: Value, fname: string, i: number): number | bigint {
  return intParam(fname, v, i);
}

function wantCallable(fname: string, v: Value, label: string): void {
  if (!(v instanceof Fn) && !(v instanceof Builtin)) {
    throw new EvalError(`${fname}: for parameter ${label}: got ${typeName(v)}, want callable`);
  }
}

function minmax(name: string, th: Thread, args: Value[], kwargs: [string, Value][] | null): Value {
  if (args.length === 0) throw new EvalError(`${name} requires at least one positional argument`);
  const [key] = unpackArgs(name, [], kwargs, ["key?"]);
  if (key !== undefined) wantCallable(name, key, paramLabel("key", kwargs));
  const it = args.length === 1 ? args[0] : new Tuple(args);
  const el = elements(it, th);
  if (el === null) throw new EvalError(`${name}: ${typeName(it)} value is not iterable`);
  if (el.length === 0) throw new EvalError(`${name}: argument is an empty sequence`);
  th.charge(el.length >> 3);
  const keyOf = (
    v: Value,
  ) => (key === undefined || key === null ? v : callValue(th, key, [v], null));
  let best = el[0], bestKey = keyOf(best);
  for (let i = 1; i < el.length; i++) {
    const k = keyOf(el[i]);
    let c: number;
    try {
      c = compare(name === "max" ? ">" : "<", k, bestKey);
    } catch (e) {
      throw new EvalError(`${name}: ${(e as Error).message}`);
    }
    if (name === "max" ? c > 0 : c < 0) {
      best = el[i];
      bestKey = k;
    }
  }
  return best;
}

export const SEQ_BUILTINS: [string, NativeFn][] = [
  ["all", (th, a, k) => {
    const [x] = positional("all", a, k, 1, 1);
    const el = mustElements(x, "all", th);
    th.charge(el.length >> 3);
    return el.every(truth);
  }],
  ["any", (th, a, k) => {
    const [x] = positional("any", a, k, 1, 1);
    const el = mustElements(x, "any", th);
    th.charge(el.length >> 3);
    return el.some(truth);
  }],
  ["dict", (th, a, k) => {
    if (a.length > 1) throw new EvalError(`dict: got ${a.length} arguments, want at most 1`);
    const d = new Dict();
    try {
      dictUpdate(th, d, a, k);
    } catch (e) {
      if (e instanceof EvalError && e.kind === "runtime") throw new EvalError(`dict: ${e.message}`);
      throw e;
    }
    return d;
  }],
  ["enumerate", (th, a, k) => {
    const [it, start] = positional("enumerate", a, k, 1, 2);
    const el = elements(it, th);
    if (el === null) {
      throw new EvalError(`enumerate: for parameter 1: got ${typeName(it)}, want iterable`);
    }
    const s: number | bigint = start === undefined ? 0 : intParam("enumerate", start, 2);
    th.charge(el.length >> 3);
    // starlark-go adds in Go's int64, wrapping past 2^63 - 1
    if (typeof s === "number" && s + el.length <= Number.MAX_SAFE_INTEGER) {
      return new List(el.map((v, i) => new Tuple([addInt(s, i), v])));
    }
    const b = BigInt(s);
    return new List(el.map((v, i) => new Tuple([wrap64(b + BigInt(i)), v])));
  }],
  ["len", (_th, a, k) => {
    const [x] = positional("len", a, k, 1, 1);
    const n = x instanceof Range ? x.lenValue() : len(x);
    if (n < 0) throw new EvalError(`len: value of type ${typeName(x)} has no len`);
    return n;
  }],
  ["list", (th, a, k) => {
    const [x] = positional("list", a, k, 0, 1);
    if (x === undefined) return new List([]);
    const el = mustElements(x, "list", th);
    th.charge(el.length >> 3);
    th.checkAlloc(el.length * 8);
    return new List(el.slice());
  }],
  ["max", (th, a, k) => minmax("max", th, a, k)],
  ["min", (th, a, k) => minmax("min", th, a, k)],
  ["range", (_th, a, k) => {
    positional("range", a, k, 1, 3);
    let start: number | bigint = 0, stop: number | bigint, step: number | bigint = 1;
    if (a.length === 1) stop = toRangeInt(a[0], "range", 1);
    else {
      start = toRangeInt(a[0], "range", 1);
      stop = toRangeInt(a[1], "range", 2);
      if (a.length === 3) step = toRangeInt(a[2], "range", 3);
    }
    if (step === 0) throw new EvalError("range: step argument must not be zero");
    return new Range(start, stop, step);
  }],
  ["reversed", (th, a, k) => {
    const [x] = positional("reversed", a, k, 1, 1);
    const el = mustElements(x, "reversed", th);
    th.charge(el.length >> 3);
    return new List(el.slice().reverse());
  }],
  ["sorted", (th, a, k) => {
    const [it, key, rev] = unpackArgs("sorted", a, k, ["iterable", "key?", "reverse?"], {
      check: (name, v) => {
        if (name === "iterable" && !(v instanceof Range) && elements(v) === null) {
          return `got ${typeName(v)}, want iterable`;
        }
        if (name === "key" && !(v instanceof Fn) && !(v instanceof Builtin)) {
          return `got ${typeName(v)}, want callable`;
        }
        if (name === "reverse" && typeof v !== "boolean") return `got ${typeName(v)}, want bool`;
        return undefined;
      },
    });
    const el = elements(it!, th)!;
    const n = el.length;
    th.charge(n * Math.ceil(Math.log2(n + 1)) >> 2);
    const values = el.slice();
    const keys = key === undefined ? values : values.map((v) => callValue(th, key, [v], null));
    const reverse = rev === true;
    let err: unknown = null;
    let compares = 0;
    const less = (i: number, j: number): boolean => {
      if ((++compares & 0xfff) === 0) th.checkTime(); // (the comparisons are charged above)
      try {
        return compare("<", keys[i], keys[j]) < 0;
      } catch (e) {
        if (e instanceof LimitError) throw e;
        err = e;
        return false;
      }
    };
    stableSort({
      less: reverse ? (i, j) => less(j, i) : less,
      swap: (i, j) => {
        const v = values[i];
        values[i] = values[j];
        values[j] = v;
        if (keys !== values) {
          const k = keys[i];
          keys[i] = keys[j];
          keys[j] = k;
        }
      },
    }, n);
    if (err !== null) throw err;
    return new List(values);
  }],
  ["sum", (th, a, k) => {
    // The Go runner's sum unpacks into a starlark.Iterable, as sorted does.
    const [it, start] = unpackArgs("sum", a, k, ["iterable", "start?"], {
      check: (name, v) =>
        name === "iterable" && !(v instanceof Range) && elements(v) === null
          ? `got ${typeName(v)}, want iterable`
          : undefined,
    });
    const el = elements(it!, th)!;
    th.charge(el.length >> 3);
    let acc: Value = start === undefined ? 0 : start;
    // like Python's sum: repeated `+` (so strings and lists work too)
    for (const v of el) {
      try {
        acc = binary("+", acc, v, th);
      } catch (e) {
        if (e instanceof EvalError && e.kind === "runtime") {
          throw new EvalError(`sum: ${e.message}`);
        }
        throw e;
      }
    }
    return acc;
  }],
  ["tuple", (th, a, k) => {
    const [x] = positional("tuple", a, k, 0, 1);
    if (x === undefined) return new Tuple([]);
    if (x instanceof Tuple) return x;
    const el = mustElements(x, "tuple", th);
    th.charge(el.length >> 3);
    return new Tuple(el.slice());
  }],
  ["zip", (th, a, k) => {
    if (k !== null && k.length > 0) throw new EvalError("zip does not accept keyword arguments");
    const cols = a.map((x, i) => {
      const el = elements(x, th);
      if (el === null || typeof x === "string") {
        throw new EvalError(`zip: argument #${i + 1} is not iterable: ${typeName(x)}`);
      }
      return el;
    });
    if (cols.length === 0) return new List([]);
    let n = Infinity;
    for (const c of cols) if (c.length < n) n = c.length;
    th.charge((n * cols.length) >> 3);
    th.checkAlloc(n * cols.length * 8);
    const out: Value[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = new Tuple(cols.map((c) => c[i]));
    return new List(out);
  }],
];
