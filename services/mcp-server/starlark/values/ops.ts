/** Core value operations: type names, truth, equality, ordering, hashing, arithmetic. */
import { EvalError, LimitError } from "../errors.ts";
import { current } from "../thread.ts";
import { dictEntry } from "./hash.ts";
import { Builtin, Bytes, Dict, Float, List, normInt, Range, Tuple, type Value } from "./value.ts";

export function typeName(v: Value): string {
  switch (typeof v) {
    case "number":
    case "bigint":
      return "int";
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "object":
      return v === null ? "NoneType" : v.type;
  }
  return "?";
}

export function truth(v: Value): boolean {
  switch (typeof v) {
    case "boolean":
      return v;
    case "number":
      return v !== 0;
    case "string":
      return v.length > 0;
    case "bigint":
      return true; // never zero once normalised
  }
  if (v === null) return false;
  if (v instanceof Float) return v.v !== 0;
  if (v instanceof List || v instanceof Tuple) return v.elems.length > 0;
  if (v instanceof Dict) return v.map.size > 0;
  if (v instanceof Bytes) return v.s.length > 0;
  if (v instanceof Range) return v.length > 0;
  return true;
}

// ---- ints ----------------------------------------------------------------

export function toBig(v: number | bigint): bigint {
  return typeof v === "bigint" ? v : BigInt(v);
}

/** Int → float, exact rounding; fails when too large. */
export function intToFloat(v: number | bigint): number {
  if (typeof v === "number") return v;
  const f = Number(v); // correctly rounded (ties to even) in V8
  if (!Number.isFinite(f)) throw new EvalError("int too large to convert to float");
  return f;
}

/** Float → int (truncating), failing for NaN/inf. */
export function floatToInt(f: number): number | bigint {
  if (Number.isNaN(f)) throw new EvalError("cannot convert float NaN to integer");
  if (!Number.isFinite(f)) throw new EvalError("cannot convert float infinity to integer");
  const t = Math.trunc(f);
  return Number.isSafeInteger(t) ? (t === 0 ? 0 : t) : BigInt(t);
}

// ---- equality / comparison -------------------------------------------------

const MAX_DEPTH = 10;

/** Compare an int with a float exactly: returns -1, 0, 1 (NaN sorts above everything). */
function cmpIntFloat(i: number | bigint, f: number): number {
  if (Number.isNaN(f)) return -1;
  if (typeof i === "number") return i < f ? -1 : i > f ? 1 : 0;
  if (f === Infinity) return -1;
  if (f === -Infinity) return 1;
  const ft = Math.trunc(f);
  const fb = BigInt(ft);
  if (i < fb) return -1;
  if (i > fb) return 1;
  return f > ft ? -1 : f < ft ? 1 : 0;
}

function cmpFloat(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  // NaN handling: NaN == NaN, NaN > everything
  const an = Number.isNaN(a), bn = Number.isNaN(b);
  if (an && bn) return 0;
  return an ? 1 : -1;
}

export function equals(x: Value, y: Value, depth = 0): boolean {
  if (typeof x === "string") return typeof y === "string" && strEq(x, y);
  // identity, except containers (a cyclic list fails with the depth limit, as in starlark-go)
  if (x === y && !(x instanceof List || x instanceof Tuple || x instanceof Dict)) return true;
  const tx = typeof x, ty = typeof y;
  if (tx === "string" || ty === "string" || tx === "boolean" || ty === "boolean") return false;
  if (tx === "number" || tx === "bigint") {
    if (ty === "number" || ty === "bigint") return false; // normalised ints differ
    if (y instanceof Float) return cmpIntFloat(x as number | bigint, y.v) === 0;
    return false;
  }
  if (x === null || y === null) return false;
  if (x instanceof Float) {
    if (ty === "number" || ty === "bigint") return cmpIntFloat(y as number | bigint, x.v) === 0;
    if (y instanceof Float) return cmpFloat(x.v, y.v) === 0;
    return false;
  }
  if (depth > MAX_DEPTH) throw new EvalError("comparison exceeded maximum recursion depth");
  if (x instanceof List) {
    if (!(y instanceof List)) return false;
    return seqEqual(x.elems, y.elems, depth);
  }
  if (x instanceof Tuple) {
    if (!(y instanceof Tuple)) return false;
    return seqEqual(x.elems, y.elems, depth);
  }
  if (x instanceof Dict) {
    if (!(y instanceof Dict) || x.map.size !== y.map.size) return false;
    current.charge(x.map.size * 4);
    for (const [k, v] of x.map.values()) {
      const e = dictEntry(y, k);
      if (e === undefined || !equals(v, e[1], depth + 1)) return false;
    }
    return true;
  }
  if (x instanceof Bytes) return y instanceof Bytes && strEq(x.s, y.s);
  if (x instanceof Range) {
    if (!(y instanceof Range)) return false;
    if (x.big !== null || y.big !== null) {
      const a = x.big ?? { start: BigInt(x.start), step: BigInt(x.step), len: BigInt(x.length) };
      const b = y.big ?? { start: BigInt(y.start), step: BigInt(y.step), len: BigInt(y.length) };
      if (a.len !== b.len) return false;
      if (a.len === 0n) return true;
      return a.start === b.start && (a.len === 1n || a.step === b.step);
    }
    const n = x.length;
    if (n !== y.length) return false;
    if (n === 0) return true;
    return x.start === y.start && (n === 1 || x.step === y.step);
  }
  if (x instanceof Builtin && y instanceof Builtin) {
    return x.name === y.name && x.fn === y.fn && x.recv === y.recv;
  }
  return false;
}

function seqEqual(a: Value[], b: Value[], depth: number): boolean {
  if (a.length !== b.length) return false;
  if (a.length > 2) current.charge(a.length >> 1);
  else current.step();
  for (let i = 0; i < a.length; i++) if (!equals(a[i], b[i], depth + 1)) return false;
  return true;
}

/** String equality with its work charged (one step per 64 bytes compared). */
export function strEq(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  if (a.length > 1024) current.charge(a.length >> 6);
  return a === b;
}

/** String ordering with its work charged. */
function strCmp(a: string, b: string): number {
  if (a.length > 1024 && b.length > 1024) current.charge(Math.min(a.length, b.length) >> 6);
  return a < b ? -1 : a === b ? 0 : 1;
}

/** Three-way comparison for <, <=, >, >=; throws for unordered types. */
export function compare(op: string, x: Value, y: Value, depth = 0): number {
  const tx = typeof x, ty = typeof y;
  if (tx === "number" && ty === "number") return (x as number) - (y as number);
  if (tx === "string" && ty === "string") return strCmp(x as string, y as string);
  if ((tx === "number" || tx === "bigint") && (ty === "number" || ty === "bigint")) {
    const a = toBig(x as number), b = toBig(y as number);
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (x instanceof Float) {
    if (y instanceof Float) return cmpFloat(x.v, y.v);
    if (ty === "number" || ty === "bigint") return -cmpIntFloat(y as number, x.v);
  } else if (y instanceof Float && (tx === "number" || tx === "bigint")) {
    return cmpIntFloat(x as number, y.v);
  }
  if (tx === "boolean" && ty === "boolean") return Number(x) - Number(y);
  if (depth > MAX_DEPTH) throw new EvalError("comparison exceeded maximum recursion depth");
  if ((x instanceof List && y instanceof List) || (x instanceof Tuple && y instanceof Tuple)) {
    const a = x.elems, b = y.elems;
    current.step();
    for (let i = 0; i < a.length && i < b.length; i++) {
      if ((i & 1) === 1) current.step();
      if (!equals(a[i], b[i], depth + 1)) return compare(op, a[i], b[i], depth + 1);
    }
    return a.length - b.length;
  }
  if (x instanceof Bytes && y instanceof Bytes) return strCmp(x.s, y.s);
  if (x === null && y === null && (op === "==" || op === "!=")) return 0;
  throw new EvalError(`${typeName(x)} ${op} ${typeName(y)} not implemented`);
}

// ---- arithmetic --------------------------------------------------------------

export function addInt(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === "number" && typeof b === "number") {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(toBig(a) + toBig(b));
}

export function subInt(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === "number" && typeof b === "number") {
    const r = a - b;
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(toBig(a) - toBig(b));
}

/** Largest int (in bits) converted to decimal text: V8's conversion is superlinear (~40 ms). */
export const MAX_DECIMAL_BITS = 1 << 18;

/** Decimal text of an int, charged (quadratic in its size) and refused past MAX_DECIMAL_BITS. */
export function intToDecimal(v: number | bigint): string {
  if (typeof v === "number") return String(v);
  const f = Math.abs(Number(v));
  if (f === Infinity) {
    const bits = v.toString(16).length * 4;
    if (bits > MAX_DECIMAL_BITS) {
      current.fail(
        "max_bytes",
        `Starlark computation cancelled: int of ${bits} bits too large to convert to decimal`,
      );
    }
    current.charge(Math.floor((bits * bits) / 16384));
  }
  return v.toString();
}

/** Ints larger than this many bits are refused (one multiplication cannot be interrupted). */
export const MAX_INT_BITS = 1 << 20;

function bitLength(x: bigint): number {
  return (x < 0n ? -x : x).toString(16).length * 4;
}

export function mulInt(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === "number" && typeof b === "number") {
    const r = a * b;
    if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
  }
  const x = toBig(a), y = toBig(b);
  if (
    (typeof a === "bigint" || typeof b === "bigint") && bitLength(x) + bitLength(y) > MAX_INT_BITS
  ) {
    throw new LimitError(
      "max_bytes",
      `Starlark computation cancelled: int result exceeds ${MAX_INT_BITS} bits`,
    );
  }
  return normInt(x * y);
}

export function floorDivInt(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === "number" && typeof b === "number") {
    if (b === 0) throw new EvalError("floored division by zero");
    const r = Math.floor(a / b);
    // exact for safe ints unless the quotient is huge; re-check via remainder
    if (Number.isSafeInteger(r) && Math.abs(a) < 2 ** 52) return r === 0 ? 0 : r;
  }
  const x = toBig(a), y = toBig(b);
  if (y === 0n) throw new EvalError("floored division by zero");
  let q = x / y;
  if ((x % y !== 0n) && ((x < 0n) !== (y < 0n))) q -= 1n;
  return normInt(q);
}

export function modInt(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === "number" && typeof b === "number") {
    if (b === 0) throw new EvalError("integer modulo by zero");
    let r = a % b;
    if (r !== 0 && (r < 0) !== (b < 0)) r += b;
    return r === 0 ? 0 : r;
  }
  const x = toBig(a), y = toBig(b);
  if (y === 0n) throw new EvalError("integer modulo by zero");
  let r = x % y;
  if (r !== 0n && (r < 0n) !== (y < 0n)) r += y;
  return normInt(r);
}

/** Go's float Mod: result has the sign of y. */
export function floatMod(x: number, y: number): number {
  let r = x % y;
  if (r !== 0 && (r < 0) !== (y < 0)) r += y;
  return r;
}
