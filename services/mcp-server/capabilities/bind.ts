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
function isTaggedFloat(value: unknown): value is Float64Array {
  return value instanceof Float64Array && value.length === 1;
}

/** Starlark type name of a converted value, for diagnostics. */
function starlarkTypeOf(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (isTaggedFloat(value)) return "float";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "string") return "string";
  if (Array.isArray(value)) return "list";
  return "dict";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !ArrayBuffer.isView(value);
}

function wrongType(path: string, value: unknown, want: string): BindError {
  return new BindError(`${path}: got ${starlarkTypeOf(value)}, want ${want}`);
}

/**
 * Binds keyword arguments to a capability's root input fields.
 * @throws {BindError} naming the offending path.
 */
export function bindArguments(
  fields: readonly Field[],
  kwargs: Record<string, unknown>,
): Record<string, unknown> {
  const known = new Set(fields.map((field) => field.name));
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
  for (const field of fields) {
    const path = root ? field.name : `${prefix}.${field.name}`;
    const present = Object.hasOwn(obj, field.name) && obj[field.name] !== undefined;
    const resolved = underlying(field.type);
    if (!present || obj[field.name] === null) {
      if (resolved.kind === "ptr") continue; // omitted or None: nil pointer, left out
      if (!present) {
        throw new BindError(root ? `missing argument ${path}` : `${path}: missing required field`);
      }
    }
    const value = bindValue(field.type, obj[field.name], path);
    if (value !== null || resolved.kind !== "ptr") out[field.name] = value;
  }
  return out;
}

function bindValue(schema: Schema, value: unknown, path: string): unknown {
  const resolved = underlying(schema);
  switch (resolved.kind) {
    case "ptr":
      return value === null || value === undefined ? null : bindValue(resolved.of, value, path);
    case "str":
      if (typeof value !== "string") throw wrongType(path, value, "str");
      return value;
    case "bool":
      if (typeof value !== "boolean") throw wrongType(path, value, "bool");
      return value;
    case "int":
      return bindInt(resolved.bits, resolved.signed, value, path);
    case "float":
      return bindFloat(resolved.bits, value, path);
    case "bytes":
      if (!Array.isArray(value)) throw wrongType(path, value, "list[int]");
      return value.map((item, i) => bindInt(8, false, item, `${path}[${i}]`));
    case "list":
      if (!Array.isArray(value)) throw wrongType(path, value, "list");
      return value.map((item, i) => bindValue(resolved.of, item, `${path}[${i}]`));
    case "map": {
      if (!isPlainObject(value)) throw wrongType(path, value, "dict");
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        out[key] = bindValue(resolved.of, item, `${path}[${quoteKey(key)}]`);
      }
      return out;
    }
    case "struct": {
      if (!isPlainObject(value)) throw wrongType(path, value, "dict");
      const known = new Set(resolved.fields.map((field) => field.name));
      for (const key of Object.keys(value)) {
        if (!known.has(key)) throw new BindError(`${path}: unknown field ${quoteKey(key)}`);
      }
      return bindStruct(resolved.fields, value, path, false);
    }
    default:
      throw new BindError(`${path}: unsupported type`);
  }
}

function quoteKey(key: string): string {
  return `'${key.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

function bindInt(bits: number, signed: boolean, value: unknown, path: string): number | bigint {
  let integer: bigint;
  if (typeof value === "bigint") integer = value;
  else if (typeof value === "number" && Number.isInteger(value)) integer = BigInt(value);
  else throw wrongType(path, value, "int");
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  let max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (max > INT64_MAX) max = INT64_MAX;
  if (integer < min || integer > max) {
    throw new BindError(`${path}: ${integer} out of range (${min} to ${max})`);
  }
  return integer >= -(2n ** 53n) + 1n && integer <= 2n ** 53n - 1n ? Number(integer) : integer;
}

function bindFloat(bits: number, value: unknown, path: string): number {
  let float: number;
  if (typeof value === "number") float = value;
  else if (isTaggedFloat(value)) float = value[0];
  else if (typeof value === "bigint") float = Number(value);
  else throw wrongType(path, value, "float");
  if (!Number.isFinite(float)) throw new BindError(`${path}: float must be finite`);
  if (bits === 32) {
    if (Math.abs(float) > FLOAT32_MAX) {
      throw new BindError(`${path}: ${float} out of float32 range`);
    }
    return Math.fround(float);
  }
  return float;
}
