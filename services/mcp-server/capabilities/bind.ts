/**
 * Argument binding: the keyword arguments of a capability call (as the interpreter hands them
 * over: null, booleans, numbers, bigints, strings, arrays, string-keyed objects) are checked
 * against the declared input fields and turned into canonical arguments, with diagnostics that
 * name nested paths (`filter.owner`, `tags[1]`, `labels['env']`). Nil pointers are omitted from
 * canonical struct values at every level; None inside a list or dict stays null.
 * @module
 */
import { type Field, type Schema, underlying } from "./schema.ts";

/** Binding failed; `message` is the diagnostic appended to `invalid capability arguments`. */
export class BindError extends Error {
  /** Stable code (the client sees `invalid capability arguments`). */
  readonly code = "invalid_arguments";
  constructor(message: string) {
    super(message);
    this.name = "BindError";
  }
}

const INT64_MAX = (1n << 63n) - 1n;
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * A Starlark float as the execute worker hands it over (`tagFloatArguments`): a one-element
 * Float64Array, so `2.0` stays distinct from `2`. Plain numbers remain valid too (non-integral:
 * float; integral: int), for hosts that bind arguments without the tag.
 */
function isTaggedFloat(v: unknown): v is Float64Array {
  return v instanceof Float64Array && v.length === 1;
}

/** Starlark type name of a converted value, for diagnostics. */
function starlarkTypeOf(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (isTaggedFloat(v)) return "float";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (typeof v === "string") return "string";
  if (Array.isArray(v)) return "list";
  return "dict";
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);
}

function wrongType(path: string, v: unknown, want: string): BindError {
  return new BindError(`${path}: got ${starlarkTypeOf(v)}, want ${want}`);
}

/**
 * Binds keyword arguments to a capability's root input fields.
 * @throws {BindError} naming the offending path.
 */
export function bindArguments(
  fields: readonly Field[],
  kwargs: Record<string, unknown>,
): Record<string, unknown> {
  const known = new Set(fields.map((f) => f.name));
  for (const key of Object.keys(kwargs)) {
    if (!known.has(key)) throw new BindError(`unexpected keyword argument ${key}`);
  }
  return bindStruct(fields, kwargs, "", true);
}

function bindStruct(
  fields: readonly Field[],
  obj: Record<string, unknown>,
  prefix: string,
  root: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const path = root ? f.name : `${prefix}.${f.name}`;
    const present = Object.hasOwn(obj, f.name) && obj[f.name] !== undefined;
    const s = underlying(f.type);
    if (!present || obj[f.name] === null) {
      if (s.kind === "ptr") continue; // omitted or None: nil pointer, left out
      if (!present) {
        throw new BindError(root ? `missing argument ${path}` : `${path}: missing required field`);
      }
    }
    const v = bindValue(f.type, obj[f.name], path);
    if (v !== null || s.kind !== "ptr") out[f.name] = v;
  }
  return out;
}

function bindValue(schema: Schema, v: unknown, path: string): unknown {
  const s = underlying(schema);
  switch (s.kind) {
    case "ptr":
      return v === null || v === undefined ? null : bindValue(s.of, v, path);
    case "str":
      if (typeof v !== "string") throw wrongType(path, v, "str");
      return v;
    case "bool":
      if (typeof v !== "boolean") throw wrongType(path, v, "bool");
      return v;
    case "int":
      return bindInt(s.bits, s.signed, v, path);
    case "float":
      return bindFloat(s.bits, v, path);
    case "bytes":
      if (!Array.isArray(v)) throw wrongType(path, v, "list[int]");
      return v.map((e, i) => bindInt(8, false, e, `${path}[${i}]`));
    case "list":
      if (!Array.isArray(v)) throw wrongType(path, v, "list");
      return v.map((e, i) => bindValue(s.of, e, `${path}[${i}]`));
    case "map": {
      if (!isPlainObject(v)) throw wrongType(path, v, "dict");
      const out: Record<string, unknown> = {};
      for (const [k, e] of Object.entries(v)) {
        out[k] = bindValue(s.of, e, `${path}[${quoteKey(k)}]`);
      }
      return out;
    }
    case "struct": {
      if (!isPlainObject(v)) throw wrongType(path, v, "dict");
      const known = new Set(s.fields.map((f) => f.name));
      for (const key of Object.keys(v)) {
        if (!known.has(key)) throw new BindError(`${path}: unknown field ${quoteKey(key)}`);
      }
      return bindStruct(s.fields, v, path, false);
    }
    default:
      throw new BindError(`${path}: unsupported type`);
  }
}

function quoteKey(k: string): string {
  return `'${k.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

function bindInt(bits: number, signed: boolean, v: unknown, path: string): number | bigint {
  let n: bigint;
  if (typeof v === "bigint") n = v;
  else if (typeof v === "number" && Number.isInteger(v)) n = BigInt(v);
  else throw wrongType(path, v, "int");
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  let max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (max > INT64_MAX) max = INT64_MAX;
  if (n < min || n > max) {
    throw new BindError(`${path}: ${n} out of range (${min} to ${max})`);
  }
  return n >= -(2n ** 53n) + 1n && n <= 2n ** 53n - 1n ? Number(n) : n;
}

function bindFloat(bits: number, v: unknown, path: string): number {
  let x: number;
  if (typeof v === "number") x = v;
  else if (isTaggedFloat(v)) x = v[0];
  else if (typeof v === "bigint") x = Number(v);
  else throw wrongType(path, v, "float");
  if (!Number.isFinite(x)) throw new BindError(`${path}: float must be finite`);
  if (bits === 32) {
    if (Math.abs(x) > FLOAT32_MAX) throw new BindError(`${path}: ${x} out of float32 range`);
    return Math.fround(x);
  }
  return x;
}
