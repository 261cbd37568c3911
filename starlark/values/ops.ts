/** Core value operations: type names, truth, ordering, arithmetic (equality is in hash.ts). */
import { EvalError, LimitError } from "../errors.ts";
import { current } from "../thread.ts";
import { equals, MAX_COMPARE_DEPTH } from "./hash.ts";
import { cmpFloat, cmpIntFloat } from "./numeric_order.ts";
import { Bytes, Dict, Float, List, normInt, Range, Tuple, type Value } from "./value.ts";

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

// ---- ordering ------------------------------------------------------------

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
  if (depth > MAX_COMPARE_DEPTH) throw new EvalError("comparison exceeded maximum recursion depth");
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
const MAX_DECIMAL_BITS = 1 << 18;

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
