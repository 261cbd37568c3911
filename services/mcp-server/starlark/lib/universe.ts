/** The universe: built-in functions and modules of our dialect (no `set`; adds `sum`). */
import { EvalError } from "../errors.ts";
import { callValue } from "../eval/call.ts";
import type { Thread } from "../thread.ts";
import { decodeRune, encodeRune, runes, utf8Encode } from "../values/bytes_text.ts";
import {
  addInt,
  compare,
  floatToInt,
  hashKey,
  intToFloat,
  toBig,
  truth,
  typeName,
} from "../values/ops.ts";
import { repr, str } from "../values/repr.ts";
import { elements, len, mustElements } from "../values/seq.ts";
import {
  Builtin,
  Bytes,
  Dict,
  Float,
  Fn,
  List,
  type NativeFn,
  normInt,
  Range,
  Tuple,
  type Value,
} from "../values/value.ts";
import { intParam, paramLabel, positional, unpackArgs } from "./args.ts";
import { attrNames, getAttr, hasAttr } from "./attr.ts";
import { makeJsonModule } from "./json.ts";
import { makeMathModule } from "./math.ts";
import { stableSort } from "./go_sort.ts";
import { dictUpdate } from "./update.ts";
import { binary, MAX_ALLOC } from "../values/binary.ts";

function javaStringHash(bin: string): number {
  // starlark-go's javaStringHash: h = 31*h + rune over code points (int32 wrap-around);
  // its surrogate branch never fires for runes decoded from UTF-8
  let h = 0;
  for (let i = 0; i < bin.length;) {
    const [r, n] = decodeRune(bin, i);
    h = (Math.imul(h, 31) + r) | 0;
    i += n;
  }
  return h;
}

function parseIntString(s: string, base: number | undefined): Value {
  const orig = s;
  let b = base ?? 10;
  let neg = false;
  if (s[0] === "+") s = s.slice(1);
  else if (s[0] === "-") {
    neg = true;
    s = s.slice(1);
  }
  const invalid = () =>
    new EvalError(`int: invalid literal with base ${b} : ${orig}`.replace(" : ", ": "));
  let prefix = 0;
  if (s.length > 1 && s[0] === "0") {
    if (s.length > 2) {
      const c = s[1].toLowerCase();
      if (c === "o") prefix = 8;
      else if (c === "x") prefix = 16;
      else if (c === "b") prefix = 2;
      if (prefix) s = s.slice(2);
    }
    if (prefix === 0 && b === 0) {
      if (/^0+$/.test(s)) return 0;
      throw invalid();
    }
    if (b !== 0 && prefix !== 0 && prefix !== b) throw invalid();
  }
  if (b === 0) b = prefix || 10;
  const digits = "0123456789abcdefghijklmnopqrstuvwxyz".slice(0, b);
  if (s === "" || ![...s.toLowerCase()].every((c) => digits.includes(c) || c === "_")) {
    throw invalid();
  }
  if (s.includes("_")) {
    // Go's big.Int.SetString accepts underscores only with base 0 prefixes; reject here
    throw invalid();
  }
  let v = 0n;
  const B = BigInt(b);
  for (const c of s.toLowerCase()) v = v * B + BigInt(digits.indexOf(c));
  return normInt(neg ? -v : v);
}

function floatFromString(s: string): number {
  if (s === "") throw new EvalError("float: empty string");
  const l = s.toLowerCase();
  if (l === "inf" || l === "+inf" || l === "infinity" || l === "+infinity") return Infinity;
  if (l === "-inf" || l === "-infinity") return -Infinity;
  if (l === "nan" || l === "+nan" || l === "-nan") return NaN;
  // strconv.ParseFloat syntax: underscores between digits, hexadecimal mantissa with p exponent
  const D = "\\d+(?:_\\d+)*", H = "[0-9a-fA-F]+(?:_[0-9a-fA-F]+)*";
  const dec = new RegExp(`^[+-]?(?:${D}(?:\\.(?:${D})?)?|\\.${D})(?:[eE][+-]?${D})?$`);
  const hex = new RegExp(`^([+-]?)0[xX]_?((?:${H})?(?:\\.(?:${H})?)?)[pP]([+-]?${D})$`);
  let f: number;
  const hm = hex.exec(s);
  if (dec.test(s)) f = Number(s.replace(/_/g, ""));
  else if (hm && /[0-9a-fA-F]/.test(hm[2])) {
    const [ip, fp = ""] = hm[2].replace(/_/g, "").split(".");
    const mant = parseInt((ip || "0") + fp, 16);
    f = mant * Math.pow(2, Number(hm[3].replace(/_/g, "")) - 4 * fp.length);
    if (hm[1] === "-") f = -f;
  } else throw new EvalError(`invalid float literal: ${s}`);
  if (!Number.isFinite(f)) throw new EvalError("floating-point number too large");
  return f;
}

function toRangeInt(v: Value, fname: string, i: number): number {
  if (typeof v === "number") {
    if (v > 2147483647 || v < -2147483648) {
      throw new EvalError(
        `${fname}: for parameter ${i}: ${v} out of range (want value in signed 32-bit range)`,
      );
    }
    return v;
  }
  if (typeof v === "bigint") {
    throw new EvalError(
      `${fname}: for parameter ${i}: ${v} out of range (want value in signed 32-bit range)`,
    );
  }
  throw new EvalError(`${fname}: for parameter ${i}: got ${typeName(v)}, want int`);
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

const B: [string, NativeFn][] = [
  ["abs", (_th, a, k) => {
    const [x] = positional("abs", a, k, 1, 1);
    if (typeof x === "number") return Math.abs(x);
    if (typeof x === "bigint") return x < 0n ? normInt(-x) : x;
    if (x instanceof Float) return new Float(Math.abs(x.v));
    throw new EvalError(`abs: got ${typeName(x)}, want int or float`);
  }],
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
  ["bool", (_th, a, k) => {
    const [x] = positional("bool", a, k, 0, 1);
    return x === undefined ? false : truth(x);
  }],
  ["bytes", (th, a, k) => {
    const [x] = positional("bytes", a, k, 1, 1);
    if (typeof x === "string") {
      // transcode, replacing invalid UTF-8 with U+FFFD
      let out = "";
      for (let i = 0; i < x.length;) {
        const [r, n] = decodeRune(x, i);
        out += r === 0xfffd && n === 1 ? encodeRune(0xfffd) : x.slice(i, i + n);
        i += n;
      }
      return new Bytes(out);
    }
    if (x instanceof Bytes) return x;
    const el = elements(x, th);
    if (el === null) {
      throw new EvalError(`bytes: got ${typeName(x)}, want string, bytes, or iterable of ints`);
    }
    th.charge(el.length >> 3);
    let out = "";
    for (const v of el) {
      if (typeof v !== "number" || v < 0 || v > 255) {
        throw new EvalError(
          `bytes: at index ${out.length}, ${
            typeof v === "number"
              ? `${v} out of range (want value in unsigned 8-bit range)`
              : `got ${typeName(v)}, want int`
          }`,
        );
      }
      out += String.fromCharCode(v);
    }
    return new Bytes(out);
  }],
  ["chr", (_th, a, k) => {
    if (k !== null && k.length > 0) throw new EvalError("chr does not accept keyword arguments");
    if (a.length !== 1) throw new EvalError(`chr: got ${a.length} arguments, want 1`);
    const x = a[0];
    if (typeof x !== "number") {
      if (typeof x === "bigint") throw new EvalError(`chr: ${x} out of range`);
      throw new EvalError(`chr: got ${typeName(x)}, want int`);
    }
    if (x < 0) throw new EvalError(`chr: Unicode code point ${x} out of range (<0)`);
    if (x > 0x10ffff) {
      throw new EvalError(
        `chr: Unicode code point U+${x.toString(16).toUpperCase()} out of range (>0x10FFFF)`,
      );
    }
    return encodeRune(x);
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
  ["dir", (_th, a, k) => {
    if (k !== null && k.length > 0) throw new EvalError("dir does not accept keyword arguments");
    if (a.length !== 1) throw new EvalError(`dir: got ${a.length} arguments, want 1`);
    return new List(attrNames(a[0]));
  }],
  ["enumerate", (th, a, k) => {
    const [it, start] = positional("enumerate", a, k, 1, 2);
    const el = elements(it, th);
    if (el === null) {
      throw new EvalError(`enumerate: for parameter 1: got ${typeName(it)}, want iterable`);
    }
    const s: number | bigint = start === undefined ? 0 : intParam("enumerate", start, 2);
    th.charge(el.length >> 3);
    return new List(el.map((v, i) => new Tuple([addInt(s, i), v])));
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
  ["float", (_th, a, k) => {
    if (k !== null && k.length > 0) throw new EvalError("float does not accept keyword arguments");
    if (a.length === 0) return new Float(0);
    if (a.length !== 1) throw new EvalError(`float got ${a.length} arguments, wants 1`);
    const x = a[0];
    if (typeof x === "boolean") return new Float(x ? 1 : 0);
    if (typeof x === "number" || typeof x === "bigint") return new Float(intToFloat(x));
    if (x instanceof Float) return x;
    if (typeof x === "string") return new Float(floatFromString(x));
    throw new EvalError(`float got ${typeName(x)}, want number or string`);
  }],
  ["getattr", (th, a, k) => {
    const [x, name, dflt] = positional("getattr", a, k, 2, 3);
    if (typeof name !== "string") {
      throw new EvalError(`getattr: for parameter name: got ${typeName(name)}, want string`);
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
      throw new EvalError(`hasattr: for parameter name: got ${typeName(name)}, want string`);
    }
    return hasAttr(x, name);
  }],
  ["hash", (_th, a, k) => {
    const [x] = positional("hash", a, k, 1, 1);
    if (typeof x === "string") return javaStringHash(x);
    if (x instanceof Bytes) {
      let h = 0x811c9dc5;
      for (let i = 0; i < x.s.length; i++) h = Math.imul(h ^ x.s.charCodeAt(i), 0x01000193) >>> 0;
      return h | 0;
    }
    hashKey(x);
    throw new EvalError(`hash: for parameter 1: got ${typeName(x)}, want string`);
  }],
  ["int", (_th, a, k) => {
    const [x, base] = unpackArgs("int", a, k, ["x", "base?"]);
    if (x === undefined) return 0;
    if (typeof x === "string") {
      let b: number | undefined;
      if (base !== undefined) {
        if (typeof base !== "number" || (base !== 0 && (base < 2 || base > 36))) {
          throw new EvalError("int: base must be an integer >= 2 && <= 36");
        }
        b = base;
      }
      return parseIntString(x, b);
    }
    if (base !== undefined) throw new EvalError("int: can't convert non-string with explicit base");
    if (typeof x === "boolean") return x ? 1 : 0;
    if (typeof x === "number" || typeof x === "bigint") return x;
    if (x instanceof Float) {
      try {
        return floatToInt(x.v);
      } catch (e) {
        throw new EvalError(`int: ${(e as Error).message}`);
      }
    }
    throw new EvalError(`int: cannot convert ${typeName(x)} to int`);
  }],
  ["len", (_th, a, k) => {
    const [x] = positional("len", a, k, 1, 1);
    const n = len(x);
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
  ["ord", (_th, a, k) => {
    if (k !== null && k.length > 0) throw new EvalError("ord does not accept keyword arguments");
    if (a.length !== 1) throw new EvalError(`ord: got ${a.length} arguments, want 1`);
    const x = a[0];
    if (x instanceof Bytes) {
      if (x.s.length !== 1) throw new EvalError(`ord: bytes has length ${x.s.length}, want 1`);
      return x.s.charCodeAt(0);
    }
    if (typeof x !== "string") throw new EvalError(`ord: got ${typeName(x)}, want string`);
    const rs = runes(x);
    const [r, n] = x.length ? decodeRune(x, 0) : [0, 0];
    if (rs.length !== 1 || n !== x.length) {
      throw new EvalError(`ord: string encodes ${rs.length} Unicode code points, want 1`);
    }
    return r;
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
  ["range", (_th, a, k) => {
    positional("range", a, k, 1, 3);
    let start = 0, stop: number, step = 1;
    if (a.length === 1) stop = toRangeInt(a[0], "range", 1);
    else {
      start = toRangeInt(a[0], "range", 1);
      stop = toRangeInt(a[1], "range", 2);
      if (a.length === 3) step = toRangeInt(a[2], "range", 3);
    }
    if (step === 0) throw new EvalError("range: step argument must not be zero");
    return new Range(start, stop, step);
  }],
  ["repr", (th, a, k) => {
    const [x] = positional("repr", a, k, 1, 1);
    const s = repr(x, th.maxBytes, th);
    th.charge(s.length >> 6);
    return s;
  }],
  ["reversed", (th, a, k) => {
    const [x] = positional("reversed", a, k, 1, 1);
    const el = mustElements(x, "reversed", th);
    th.charge(el.length >> 3);
    return new List(el.slice().reverse());
  }],
  ["sorted", (th, a, k) => {
    const [it, key, rev] = unpackArgs("sorted", a, k, ["iterable", "key?", "reverse?"]);
    const el = elements(it!, th);
    if (el === null) {
      throw new EvalError(`sorted: for parameter iterable: got ${typeName(it!)}, want iterable`);
    }
    const n = el.length;
    th.charge(n * Math.ceil(Math.log2(n + 1)) >> 2);
    if (key !== undefined) wantCallable("sorted", key, paramLabel("key", k));
    if (rev !== undefined && typeof rev !== "boolean") {
      throw new EvalError(
        `sorted: for parameter ${paramLabel("reverse", k)}: got ${typeName(rev)}, want bool`,
      );
    }
    const values = el.slice();
    const keys = key === undefined ? values : values.map((v) => callValue(th, key, [v], null));
    const reverse = rev === true;
    let err: unknown = null;
    const less = (i: number, j: number): boolean => {
      try {
        return compare("<", keys[i], keys[j]) < 0;
      } catch (e) {
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
  ["str", (th, a, k) => {
    if (k !== null && k.length > 0) throw new EvalError("str does not accept keyword arguments");
    if (a.length !== 1) throw new EvalError(`str: got ${a.length} arguments, want exactly 1`);
    const x = a[0];
    if (x instanceof Bytes) {
      // decode bytes, replacing invalid UTF-8
      let out = "";
      for (let i = 0; i < x.s.length;) {
        const [r, n] = decodeRune(x.s, i);
        out += r === 0xfffd && n === 1 ? encodeRune(0xfffd) : x.s.slice(i, i + n);
        i += n;
      }
      return out;
    }
    const s = str(x, th.maxBytes, th);
    th.charge(s.length >> 6);
    return s;
  }],
  ["sum", (th, a, k) => {
    const [it, start] = unpackArgs("sum", a, k, ["iterable", "start?"]);
    const el = elements(it!, th);
    if (el === null) {
      throw new EvalError(`sum: for parameter iterable: got ${typeName(it!)}, want iterable`);
    }
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
  ["type", (_th, a, k) => {
    if (k !== null && k.length > 0) throw new EvalError("type does not accept keyword arguments");
    if (a.length !== 1) throw new EvalError(`type: got ${a.length} arguments, want exactly 1`);
    return typeName(a[0]);
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
    const n = Math.min(...cols.map((c) => c.length));
    th.charge((n * cols.length) >> 3);
    const out: Value[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = new Tuple(cols.map((c) => c[i]));
    return new List(out);
  }],
];

/** Build a fresh universe (values are immutable/frozen, so one can be shared). */
export function makeUniverse(): Map<string, Value> {
  const u = new Map<string, Value>();
  u.set("None", null);
  u.set("True", true);
  u.set("False", false);
  for (const [name, fn] of B) u.set(name, new Builtin(name, fn));
  u.set("json", makeJsonModule());
  u.set("math", makeMathModule());
  return u;
}

export { MAX_ALLOC, toBig, utf8Encode };
