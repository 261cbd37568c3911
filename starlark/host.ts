/** Conversions between Starlark values and JSON-compatible host data, with depth/size budgets. */
import { EvalError, LimitError } from "./errors.ts";
import { current } from "./thread.ts";
import { utf8Decode, utf8Encode } from "./values/bytes_text.ts";
import { formatFloat } from "./values/float_format.ts";
import { typeName } from "./values/ops.ts";
import {
  Builtin,
  Dict,
  Float,
  List,
  Module,
  type NativeFn,
  normInt,
  Tuple,
  type Value,
} from "./values/value.ts";
import type { Json } from "./api_types.ts";

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

export interface SizeLimits {
  maxDepth: number;
  maxBytes: number;
}

const enc = new TextEncoder();

function jsonStringBytes(text: string): number {
  // UTF-8 length of the JSON string literal (quotes + escapes)
  return enc.encode(JSON.stringify(text)).length;
}

/**
 * Counts converted bytes and fails with `max_bytes` once they pass the limit; each converted
 * value is also a step and an allocation of the running program (a shared structure converts
 * to as many copies as it is reachable by, so this is what bounds it when maxBytes is off).
 */
function byteMeter(limits: SizeLimits, what: string): (n: number) => void {
  let bytes = 0;
  return (n) => {
    bytes += n;
    current.step();
    current.alloc(n + 8); // (each converted value takes at least a JS array slot)
    if (bytes > limits.maxBytes) {
      throw new LimitError(
        "max_bytes",
        `${what} exceeds the maximum value size (${limits.maxBytes} bytes)`,
      );
    }
  };
}

/** Starlark → JSON data. `what` names the value in errors ("result", "argument"). */
export function toHost(
  v: Value,
  limits: SizeLimits,
  what: string,
  strict: {
    int64: boolean;
    code: "result_not_convertible" | "host_argument_not_convertible";
    /** Floats become one-element Float64Arrays (host arguments; see `tagFloatArguments`). */
    tagFloats?: boolean;
  },
): Json {
  const add = byteMeter(limits, what);
  const conv = (x: Value, depth: number, path: string): Json => {
    if (depth > limits.maxDepth) {
      throw new LimitError(
        "max_depth",
        `${what} exceeds the maximum value depth (${limits.maxDepth})`,
      );
    }
    if (x === null) {
      add(4);
      return null;
    }
    if (typeof x === "boolean") {
      add(x ? 4 : 5);
      return x;
    }
    if (typeof x === "number") {
      add(String(x).length);
      return x;
    }
    if (typeof x === "bigint") {
      if (strict.int64 && (x > INT64_MAX || x < INT64_MIN)) {
        throw new EvalError(`int ${x} out of int64 range`, strict.code);
      }
      add(Math.ceil(x.toString(16).length * 1.21) + 1); // decimal digits, without converting
      return x as unknown as Json;
    }
    if (typeof x === "string") {
      const text = utf8Decode(x);
      add(jsonStringBytes(text));
      return text;
    }
    if (x instanceof Float) {
      if (!Number.isFinite(x.v)) {
        throw new EvalError(`non-finite float ${formatFloat(x.v)}`, strict.code);
      }
      add(formatFloat(x.v).length);
      return strict.tagFloats ? new Float64Array([x.v]) as unknown as Json : x.v;
    }
    if (x instanceof List || x instanceof Tuple) {
      add(2 + Math.max(0, x.elems.length - 1));
      return x.elems.map((e, i) => conv(e, depth + 1, `${path}[${i}]`));
    }
    if (x instanceof Dict) {
      const out: Record<string, Json> = {};
      add(2 + Math.max(0, x.map.size - 1));
      for (const [k, val] of x.map.values()) {
        if (typeof k !== "string") {
          throw new EvalError(`dict key ${typeName(k)} is not a string`, strict.code);
        }
        const key = utf8Decode(k);
        add(jsonStringBytes(key) + 1);
        Object.defineProperty(out, key, {
          value: conv(val, depth + 1, `${path}[${JSON.stringify(key)}]`),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    throw new EvalError(`cannot convert ${typeName(x)} to JSON`, strict.code);
  };
  return conv(v, 1, "");
}

/** JSON data (from the host) → Starlark value. */
export function fromHost(x: unknown, limits: SizeLimits, what: string): Value {
  const add = byteMeter(limits, what);
  const conv = (v: unknown, depth: number): Value => {
    if (depth > limits.maxDepth) {
      throw new LimitError(
        "max_depth",
        `${what} exceeds the maximum value depth (${limits.maxDepth})`,
      );
    }
    if (v === null || v === undefined) {
      add(4);
      return null;
    }
    switch (typeof v) {
      case "boolean":
        add(5);
        return v;
      case "number":
        add(String(v).length);
        if (Number.isInteger(v)) {
          return Number.isSafeInteger(v) ? (v === 0 ? 0 : v) : normInt(BigInt(v));
        }
        return new Float(v);
      case "bigint":
        add(v.toString().length);
        return normInt(v);
      case "string":
        add(jsonStringBytes(v));
        return utf8Encode(v);
    }
    if (Array.isArray(v)) {
      add(2 + Math.max(0, v.length - 1));
      return new List(v.map((e) => conv(e, depth + 1)));
    }
    if (v instanceof Float64Array && v.length === 1) { // a host's explicit float (e.g. 2.0)
      add(formatFloat(v[0]).length);
      return new Float(v[0]);
    }
    if (typeof v === "object") {
      const d = new Dict();
      const entries = Object.entries(v as Record<string, unknown>);
      add(2 + Math.max(0, entries.length - 1));
      for (const [k, e] of entries) {
        const key = utf8Encode(k);
        add(jsonStringBytes(k) + 1);
        d.map.set(key, [key, conv(e, depth + 1)]);
      }
      return d;
    }
    throw new EvalError(
      `${what}: unsupported host value of type ${typeof v}`,
      "host_error",
      "host",
    );
  };
  return conv(x, 1);
}

/** Wrap a namespace/function tree as Starlark module/builtin values. */
export function wrapHost(
  name: string,
  v: unknown,
  makeFn: (name: string) => NativeFn,
  limits: SizeLimits,
): Value {
  if (typeof v === "function" || v instanceof HostFnRef) return new Builtin(name, makeFn(name));
  if (hasFunction(v)) {
    // a namespace: plain object of functions (and nested namespaces or data)
    const members = new Map<string, Value>();
    for (const [k, x] of Object.entries(v as object)) {
      members.set(utf8Encode(k), wrapHost(`${name}.${k}`, x, makeFn, limits));
    }
    return new Module(name, members);
  }
  return fromHost(v, { maxDepth: Infinity, maxBytes: Infinity }, name);
}

/** Stands for a host function whose calls are performed elsewhere (worker mode). */
export class HostFnRef {
  constructor(readonly path: string) {}
}

function hasFunction(v: unknown): boolean {
  if (typeof v === "function" || v instanceof HostFnRef) return true;
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  return Object.values(v).some(hasFunction);
}
