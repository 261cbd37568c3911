/**
 * Equality, hashing and dict keys: one module because they recurse into each other (two dicts
 * are equal when each key of one finds an equal key in the other, and finding a composite key
 * compares keys for equality). Scalar keys (strings, ints, floats, bools, None, functions) are
 * their own JS Map keys. Composite keys (tuples, bytes, bound methods) are hashed structurally, as in
 * starlark-go: a 32-bit hash (cached on tuples and bytes) selects a chain of the dict's
 * canonical key instances, compared with `equals`; the canonical instance is the Map key. No key
 * ever builds a string from its contents, and hashing is charged per element and per 32 bytes.
 */
import { EvalError } from "../errors.ts";
import { current, ENTRY_BYTES } from "../thread.ts";
import { cmpFloat, cmpIntFloat } from "./numeric_order.ts";
import {
  Builtin,
  Bytes,
  Dict,
  Float,
  Fn,
  List,
  Module,
  Range,
  type SObject,
  StringIterable,
  Tuple,
  type Value,
} from "./value.ts";

/** primKey's answer for keys that go through the dict's chains. */
const COMPOSITE: unique symbol = Symbol("composite");
/** A Map key present in no dict (lookup of an absent composite key). */
const ABSENT = Symbol("absent");

// ---- equality --------------------------------------------------------------

/** Containers nested deeper than this fail to compare (a cyclic list ends here, as in Go). */
export const MAX_COMPARE_DEPTH = 10;

/** Starlark `==`: structural for containers, exact between ints and floats. */
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
  if (depth > MAX_COMPARE_DEPTH) {
    throw new EvalError("comparison exceeded maximum recursion depth");
  }
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
function strEq(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  if (a.length > 1024) current.charge(a.length >> 6);
  return a === b;
}

// ---- hashing ---------------------------------------------------------------

function unhashable(v: Value & object): never {
  if (v instanceof List || v instanceof Dict) throw new EvalError(`unhashable type: ${v.type}`);
  if (v instanceof Module || v instanceof StringIterable || v instanceof Range) {
    throw new EvalError(`unhashable: ${v.type}`);
  }
  throw new EvalError(`unhashable type: ${(v as SObject).type}`);
}

/**
 * The JS Map key of a scalar hashable value (equal values give SameValueZero-equal keys), or
 * COMPOSITE. Throws for unhashable values.
 */
function primKey(v: Value): unknown {
  switch (typeof v) {
    case "string":
    case "number":
    case "boolean":
    case "bigint":
      return v;
  }
  if (v === null) return null;
  if (v instanceof Float) {
    const f = v.v;
    if (Number.isInteger(f) && !Number.isSafeInteger(f)) return BigInt(f);
    return f;
  }
  if (v instanceof Tuple || v instanceof Bytes) return COMPOSITE;
  if (v instanceof Fn) return v;
  if (v instanceof Builtin) return v.recv === null ? v : COMPOSITE;
  const h = (v as { hashKey?: () => unknown }).hashKey;
  if (h) return h.call(v);
  return unhashable(v);
}

/** FNV-1a over a binary string (one char per byte); charges a step per 8 bytes. */
function strHash(s: string): number {
  const n = s.length;
  if (n > 64) current.charge(n >> 3);
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function numHash(x: number): number {
  if (Number.isSafeInteger(x)) return (x | 0) ^ Math.imul((x / 4294967296) | 0, 0x27d4eb2d);
  f64[0] = x === x ? x : NaN; // all NaNs alike
  return Math.imul(u32[0], 0x9e3779b1) ^ u32[1];
}

function bigHash(b: bigint): number {
  return strHash(b.toString(32)) ^ 0x5bd1e995;
}

/** Structural 32-bit hash of a hashable value, consistent with `equals`. */
export function hashOf(v: Value): number {
  const k = primKey(v);
  if (k !== COMPOSITE) {
    switch (typeof k) {
      case "string":
        return strHash(k);
      case "number":
        return numHash(k);
      case "bigint":
        return bigHash(k);
      case "boolean":
        return k ? 1231 : 1237;
    }
    return k === null ? 0x3c6ef372 : current.identity(k as object);
  }
  if (v instanceof Tuple) {
    if (v.hc !== undefined) return v.hc;
    const e = v.elems;
    current.step();
    if (e.length > 8) current.charge(e.length >> 3);
    let h = 0x345678 ^ e.length;
    for (let i = 0; i < e.length; i++) h = Math.imul(h ^ hashOf(e[i]), 1000003);
    return (v.hc = h | 0);
  }
  if (v instanceof Bytes) return v.hc ?? (v.hc = strHash(v.s) ^ 0x1b873593);
  const b = v as Builtin; // bound method: name and function; receivers compare by identity
  return strHash(b.name) ^ Math.imul(current.identity(b.fn), 0x85ebca6b);
}

/** The canonical key instance equal to `k` in `d`, if any. */
function canonical(d: Dict, k: Value, h: number): Value | undefined {
  const chain = d.chains?.get(h);
  if (chain === undefined) return undefined;
  for (let i = 0; i < chain.length; i++) {
    current.step();
    if (chain[i] === k || equals(chain[i], k)) return chain[i];
  }
  return undefined;
}

/** Map key for looking `k` up in `d` (throws when unhashable). */
export function keyOf(d: Dict, k: Value): unknown {
  const p = primKey(k);
  if (p !== COMPOSITE) return p;
  return canonical(d, k, hashOf(k)) ?? ABSENT;
}

/** Map key for inserting `k` into `d`: an equal key already there, else `k` (registered). */
export function keyFor(d: Dict, k: Value): unknown {
  const p = primKey(k);
  if (p !== COMPOSITE) return p;
  const h = hashOf(k);
  const c = canonical(d, k, h);
  if (c !== undefined) return c;
  const chains = d.chains ??= new Map();
  const chain = chains.get(h);
  if (chain === undefined) chains.set(h, [k]);
  else chain.push(k);
  return k;
}

/** Remove the entry stored under Map key `mk` (from keyOf/keyFor or iteration). */
export function deleteKey(d: Dict, mk: unknown): void {
  d.map.delete(mk);
  if (d.chains === null || typeof mk !== "object" || mk === null) return;
  const v = mk as Value;
  if (!(v instanceof Tuple || v instanceof Bytes || v instanceof Builtin)) return;
  const h = hashOf(v);
  const chain = d.chains.get(h);
  if (chain === undefined) return;
  const i = chain.indexOf(v);
  if (i >= 0) chain.splice(i, 1);
  if (chain.length === 0) d.chains.delete(h);
}

/** Remove every entry. */
export function clearDict(d: Dict): void {
  d.map.clear();
  d.chains = null;
}

/** The [key, value] entry of `k` in `d` (throws when unhashable). */
export function dictEntry(d: Dict, k: Value): [Value, Value] | undefined {
  return d.map.get(keyOf(d, k));
}

/** Insert or update without the mutability check (callers check first). */
export function dictPut(d: Dict, k: Value, v: Value): void {
  const mk = keyFor(d, k);
  const e = d.map.get(mk);
  if (e !== undefined) e[1] = v;
  else {
    current.alloc(ENTRY_BYTES);
    d.map.set(mk, [k, v]);
  }
}
