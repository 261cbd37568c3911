/** Sequence and mapping operations: len, in, iteration, indexing, slicing. */
import { EvalError } from "../errors.ts";
import { decodeRune } from "./bytes_text.ts";
import { LimitError } from "../errors.ts";
import { current, ELEM_BYTES, newStr, SEQ_BYTES } from "../thread.ts";
import { dictEntry, dictPut, equals, keyOf } from "./hash.ts";
import { chargeScan, indexOfFrom } from "./text_search.ts";
import { floatToInt, typeName } from "./ops.ts";
import { repr } from "./repr.ts";
import {
  type BigRange,
  Bytes,
  Dict,
  Float,
  List,
  Range,
  StringIterable,
  Tuple,
  type Value,
} from "./value.ts";

export function len(v: Value): number {
  if (typeof v === "string") return v.length;
  if (v instanceof List || v instanceof Tuple) return v.elems.length;
  if (v instanceof Dict) return v.map.size;
  if (v instanceof Range) return v.length;
  if (v instanceof Bytes) return v.s.length;
  return -1;
}

export function contains(y: Value, x: Value): boolean {
  if (y instanceof List || y instanceof Tuple) {
    const e = y.elems;
    current.step();
    for (let i = 0; i < e.length; i++) {
      if ((i & 7) === 7) current.step();
      if (equals(e[i], x)) return true;
    }
    return false;
  }
  if (y instanceof Dict) {
    let k: unknown;
    try {
      k = keyOf(y, x);
    } catch (e) {
      if (e instanceof LimitError) throw e;
      return false;
    }
    return y.map.has(k);
  }
  if (typeof y === "string") {
    if (typeof x !== "string") {
      throw new EvalError(`'in <string>' requires string as left operand, not ${typeName(x)}`);
    }
    return indexOfFrom(y, x) >= 0;
  }
  if (y instanceof Bytes) {
    if (x instanceof Bytes) return indexOfFrom(y.s, x.s) >= 0;
    if (typeof x === "number" || typeof x === "bigint") {
      // AsInt into a Go byte, as starlark-go
      if (typeof x === "bigint" || x < 0 || x > 255) {
        throw new EvalError(`int in bytes: ${x} out of range (want value in unsigned 8-bit range)`);
      }
      return indexOfFrom(y.s, String.fromCharCode(x)) >= 0;
    }
    throw new EvalError(`'in bytes' requires bytes or int as left operand, not ${typeName(x)}`);
  }
  if (y instanceof Range) return rangeContains(y, x);
  throw new EvalError(`unknown binary op: ${typeName(x)} in ${typeName(y)}`);
}

/** Work/allocation accounting used when materialising lazy sequences (a Thread). */
export interface Meter {
  charge(n: number): void;
  checkAlloc(bytes: number): void;
  alloc(bytes: number): void;
}

/** Ranges larger than this are never materialised, whatever the budgets. */
const MAX_MATERIALIZE = 1 << 25;

export function elements(v: Value, th?: Meter): Value[] | null {
  if (v instanceof List || v instanceof Tuple) return v.elems;
  if (v instanceof Dict) {
    const out: Value[] = [];
    for (const e of v.map.values()) out.push(e[0]);
    return out;
  }
  if (v instanceof Range) {
    const n = Math.max(0, v.length); // a wrapped (negative) length iterates nothing, as in Go
    // account before allocating: refuse past the budgets
    if (th) {
      th.charge(n >> 3);
      th.checkAlloc(n * 8);
    }
    current.alloc(SEQ_BYTES + n * ELEM_BYTES);
    if (n > MAX_MATERIALIZE) {
      throw new EvalError(`range of ${n} elements is too large to materialize`);
    }
    const out: Value[] = new Array(n);
    if (v.big === null) { for (let i = 0, x = v.start; i < n; i++, x += v.step) out[i] = x; }
    else for (let i = 0; i < n; i++) out[i] = v.at(i);
    return out;
  }
  if (v instanceof StringIterable) return stringIterElements(v);
  if (v !== null && typeof v === "object") {
    const it = (v as { iterate?: () => Value[] }).iterate;
    if (it) return it.call(v);
  }
  return null;
}

export function mustElements(v: Value, what?: string, th?: Meter): Value[] {
  const e = elements(v, th);
  if (e === null) {
    throw new EvalError(
      what
        ? `${what}: for parameter 1: got ${typeName(v)}, want iterable`
        : `${typeName(v)} value is not iterable`,
    );
  }
  return e;
}

function stringIterElements(v: StringIterable): Value[] {
  const s = v.s;
  const out: Value[] = [];
  const isBytes = v.type.startsWith("bytes");
  current.charge(s.length >> 3);
  current.alloc(SEQ_BYTES + s.length * ELEM_BYTES);
  if (v.mode === "elems" || v.mode === "elem_ords") {
    for (let i = 0; i < s.length; i++) {
      out.push(v.mode === "elem_ords" || isBytes ? s.charCodeAt(i) : s[i]);
    }
    return out;
  }
  for (let i = 0; i < s.length;) {
    const [r, n] = decodeRune(s, i);
    out.push(v.mode === "codepoint_ords" ? r : s.slice(i, i + n));
    i += n;
  }
  return out;
}

/** Mark a container as being iterated (mutation forbidden); returns a release function. */
export function startIteration(v: Value): void {
  if (v instanceof List || v instanceof Dict) v.itercount++;
}
export function endIteration(v: Value): void {
  if (v instanceof List || v instanceof Dict) v.itercount--;
}

/** starlark-go's AsInt32 with a context prefix ("invalid start index: ..."). */
function toIndex(v: Value, what: string): number {
  if (typeof v === "number" && v >= -2147483648 && v <= 2147483647) return v;
  if (typeof v === "number" || typeof v === "bigint") {
    throw new EvalError(`${what}: ${v} out of range`);
  }
  throw new EvalError(`${what}: got ${typeName(v)}, want int`);
}

/** starlark-go's `indices`: optional start/end (None allowed) clamped to [0, n]. */
export function indices(
  start: Value | undefined,
  end: Value | undefined,
  n: number,
): [number, number] {
  const one = (v: Value | undefined, dflt: number, what: string): number => {
    if (v === undefined || v === null) return dflt;
    let i = toIndex(v, what);
    if (i < 0) i += n;
    return i < 0 ? 0 : i > n ? n : i;
  };
  const s = one(start, 0, "invalid start index");
  const e = one(end, n, "invalid end index");
  return [s, e < s ? s : e];
}

function outOfRange(i: number, n: number, t: string): EvalError {
  if (n === 0) return new EvalError(`index ${i} out of range: empty ${t}`);
  return new EvalError(`${t} index ${i} out of range [${-n}:${n - 1}]`);
}

export function getIndex(x: Value, y: Value): Value {
  if (x instanceof Dict) {
    const e = dictEntry(x, y);
    if (e === undefined) throw new EvalError(`key ${repr(y)} not in dict`);
    return e[1];
  }
  let n: number;
  if (x instanceof List || x instanceof Tuple) n = x.elems.length;
  else if (typeof x === "string") n = x.length;
  else if (x instanceof Bytes) n = x.s.length;
  else if (x instanceof Range) {
    if (x.big !== null) return bigRangeIndex(x, x.big, y);
    n = x.length;
  } else {
    const custom = x !== null && typeof x === "object"
      ? (x as { index?: (k: Value) => Value }).index
      : undefined;
    if (custom) return custom.call(x, y);
    throw new EvalError(`unhandled index operation ${typeName(x)}[${typeName(y)}]`);
  }
  if (typeof y !== "number" || y > 2147483647 || y < -2147483648) {
    if (typeof y === "number" || typeof y === "bigint") {
      throw new EvalError(`${typeName(x)} index: ${y} out of range`);
    }
    throw new EvalError(`${typeName(x)} index: got ${typeName(y)}, want int`);
  }
  let i = y;
  if (i < 0) i += n;
  if (i < 0 || i >= n) throw outOfRange(y, n, typeName(x));
  if (x instanceof List || x instanceof Tuple) return x.elems[i];
  if (typeof x === "string") return x[i];
  if (x instanceof Bytes) return new Bytes(x.s[i]); // a 1-byte bytes, as newer starlark-go
  return (x as Range).at(i);
}

/** `x in range`: starlark-go converts x with NumberToInt (a float truncates), then AsInt32. */
function rangeContains(r: Range, x: Value): boolean {
  let n: number | bigint;
  if (typeof x === "number" || typeof x === "bigint") n = x;
  else if (x instanceof Float && Number.isFinite(x.v)) n = floatToInt(x.v);
  else throw new EvalError(`'in <range>' requires integer as left operand, not ${typeName(x)}`);
  // AsInt32 failing means "not in the range", whatever the range holds
  if (typeof n !== "number" || n > 2147483647 || n < -2147483648) return false;
  if (r.big === null) {
    const delta = n - r.start;
    const quo = Math.trunc(delta / r.step), rem = delta % r.step;
    return rem === 0 && quo >= 0 && quo < r.length;
  }
  const b = r.big;
  const delta = BigInt.asIntN(64, BigInt(n) - b.start);
  // Go's truncating division; the most negative int64 divided by -1 wraps to itself
  const quo = BigInt.asIntN(64, delta / b.step), rem = delta % b.step;
  return rem === 0n && quo >= 0n && quo < b.len;
}

/** `r[y]` on a range with int64 fields beyond ±2^52: Go's int arithmetic, exactly. */
function bigRangeIndex(r: Range, b: BigRange, y: Value): Value {
  const i = toIndex(y, "range index");
  let k = BigInt(i);
  if (k < 0n) k = BigInt.asIntN(64, k + b.len);
  if (k < 0n || k >= b.len) {
    if (b.len === 0n) throw new EvalError(`index ${i} out of range: empty range`);
    throw new EvalError(
      `range index ${i} out of range [${BigInt.asIntN(64, -b.len)}:${
        BigInt.asIntN(64, b.len - 1n)
      }]`,
    );
  }
  return r.at(k);
}

export function setIndex(x: Value, y: Value, v: Value): void {
  if (x instanceof Dict) {
    dictSet(x, y, v);
    return;
  }
  if (x instanceof List) {
    x.checkMutable("assign to element of", "list");
    const n = x.elems.length;
    if (typeof y !== "number") {
      throw new EvalError(`list index: got ${typeName(y)}, want int`);
    }
    let i = y;
    if (i < 0) i += n;
    if (i < 0 || i >= n) throw outOfRange(y, n, "list");
    x.elems[i] = v;
    return;
  }
  const custom = x !== null && typeof x === "object"
    ? (x as { setIndex?: (k: Value, v: Value) => void }).setIndex
    : undefined;
  if (custom) return custom.call(x, y, v);
  throw new EvalError(`${typeName(x)} value does not support item assignment`);
}

export function dictSet(d: Dict, k: Value, v: Value): void {
  keyOf(d, k); // unhashable before frozen, as starlark-go
  d.checkMutable("insert into", "hash table");
  dictPut(d, k, v);
}

function sliceIndices(
  n: number,
  lo: Value,
  hi: Value,
  stepv: Value,
): [number, number, number] {
  let step = 1;
  if (stepv !== null) {
    step = toIndex(stepv, "invalid slice step");
    if (step === 0) throw new EvalError("zero is not a valid slice step");
  }
  let start: number, end: number;
  if (step > 0) {
    [start, end] = indices(lo, hi, n);
    if (end < start) end = start; // empty result
  } else {
    // as starlark-go: start clamped above only, end below only
    start = n - 1;
    if (lo !== null) {
      start = toIndex(lo, "invalid start index");
      if (start < 0) start += n;
    }
    if (start >= n) start = n - 1;
    end = -1;
    if (hi !== null) {
      end = toIndex(hi, "invalid end index");
      if (end < 0) end += n;
    }
    if (end < -1) end = -1;
    if (start < end) start = end; // empty result
  }
  return [start, end, step];
}

export function slice(x: Value, lo: Value, hi: Value, stepv: Value): Value {
  let n: number;
  if (typeof x === "string") n = x.length;
  else if (x instanceof List || x instanceof Tuple) n = x.elems.length;
  else if (x instanceof Bytes) n = x.s.length;
  else if (x instanceof Range) n = x.length;
  else throw new EvalError(`invalid slice operand ${typeName(x)}`);
  if (x instanceof Range && x.big !== null) return bigRangeSlice(x.big, lo, hi, stepv);
  const [start, end, step] = sliceIndices(n, lo, hi, stepv);
  if (x instanceof Range) {
    const s = x.start + start * x.step;
    const e = x.start + end * x.step;
    return new Range(s, e, x.step * step);
  }
  if (typeof x === "string" || x instanceof Bytes) {
    const s = typeof x === "string" ? x : x.s;
    let out: string;
    if (step === 1) out = start < end ? s.slice(start, end) : "";
    else {
      chargeScan(Math.abs(end - start));
      out = "";
      if (step > 0) { for (let i = start; i < end; i += step) out += s[i]; }
      else for (let i = start; i > end; i += step) out += s[i];
    }
    return typeof x === "string" ? newStr(out) : new Bytes(out);
  }
  const e = x.elems;
  let out: Value[];
  if (step === 1) out = start < end ? e.slice(start, end) : [];
  else {
    out = [];
    if (step > 0) { for (let i = start; i < end; i += step) out.push(e[i]); }
    else for (let i = start; i > end; i += step) out.push(e[i]);
  }
  return x instanceof List ? new List(out) : new Tuple(out);
}

/** Slice of a range with int64 fields beyond ±2^52: sliceIndices and rangeValue.Slice in bigint. */
function bigRangeSlice(b: BigRange, lo: Value, hi: Value, stepv: Value): Range {
  const n = b.len;
  let step = 1n;
  if (stepv !== null) {
    step = BigInt(toIndex(stepv, "invalid slice step"));
    if (step === 0n) throw new EvalError("zero is not a valid slice step");
  }
  const index = (v: Value, what: string): bigint => {
    const i = BigInt(toIndex(v, what));
    return i < 0n ? BigInt.asIntN(64, i + n) : i;
  };
  let start: bigint, end: bigint;
  if (step > 0n) {
    start = lo === null ? 0n : index(lo, "invalid start index");
    start = start < 0n ? 0n : start > n ? n : start;
    end = hi === null ? n : index(hi, "invalid end index");
    end = end < 0n ? 0n : end > n ? n : end;
    if (end < start) end = start;
  } else {
    start = lo === null ? BigInt.asIntN(64, n - 1n) : index(lo, "invalid start index");
    if (start >= n) start = BigInt.asIntN(64, n - 1n);
    end = hi === null ? -1n : index(hi, "invalid end index");
    if (end < -1n) end = -1n;
    if (start < end) start = end;
  }
  const w = (v: bigint) => BigInt.asIntN(64, v);
  return new Range(
    w(b.start + w(b.step * start)),
    w(b.start + w(b.step * end)),
    w(b.step * step),
  );
}

/** `l.extend(el)` / `l += el` (el may be l's own elements), charged and bounded. */
export function extendList(th: Meter, l: List, el: Value[]): void {
  th.charge(el.length >> 3);
  th.checkAlloc((l.elems.length + el.length) * 8);
  th.alloc(ELEM_BYTES * el.length);
  const out = l.elems;
  for (let i = 0, n = el.length; i < n; i++) out.push(el[i]); // n read first: el may be out
}
