/**
 * Output projection: a handler's return value is checked against the declared output fields and
 * turned into the value the program sees. Integers go through signed 64 bits (an unsigned value
 * above the int64 maximum is invalid), floats must be finite, bytes become integer lists, nil
 * slices/maps become None, pointer fields are None when nil or omitted when omit-when-empty.
 * @module
 */
import { type Field, type Schema, underlying } from "./schema.ts";

/** The handler returned an invalid value (maps to a bare `capability failed`). */
export class ProjectionError extends Error {
  /** Stable code (the client sees `capability failed`). */
  readonly code = "invalid_result";
  constructor(message: string) {
    super(message);
    this.name = "ProjectionError";
  }
}

const INT64_MAX = (1n << 63n) - 1n;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !(value instanceof Uint8Array) && !(value instanceof Map);
}

/**
 * Projects a handler result onto the root output fields.
 * @throws {ProjectionError} naming the path of the first invalid value.
 */
export function projectResult(fields: readonly Field[], value: unknown): Record<string, unknown> {
  if (fields.length === 0 && (value === undefined || value === null)) return {};
  if (!isPlainObject(value)) throw new ProjectionError("result: want an object");
  return projectStruct(fields, value, "result");
}

function projectStruct(
  fields: readonly Field[],
  obj: Record<string, unknown>,
  path: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = Object.hasOwn(obj, field.name) ? obj[field.name] : undefined;
    const resolved = underlying(field.type);
    if ((value === undefined || value === null) && resolved.kind === "ptr" && field.omitEmpty) {
      continue;
    }
    out[field.name] = projectValue(field.type, value, `${path}.${field.name}`);
  }
  return out;
}

function projectValue(schema: Schema, value: unknown, path: string): unknown {
  const resolved = underlying(schema);
  const nil = value === undefined || value === null;
  switch (resolved.kind) {
    case "ptr":
      return nil ? null : projectValue(resolved.of, value, path);
    case "bytes":
      if (nil) return null;
      if (value instanceof Uint8Array) return [...value];
      if (Array.isArray(value)) {
        return value.map((item, i) => projectInt(8, false, item, `${path}[${i}]`));
      }
      break;
    case "list":
      if (nil) return null;
      if (Array.isArray(value)) {
        return value.map((item, i) => projectValue(resolved.of, item, `${path}[${i}]`));
      }
      break;
    case "map": {
      if (nil) return null;
      const entries = value instanceof Map
        ? [...value.entries()]
        : isPlainObject(value)
        ? Object.entries(value)
        : null;
      if (!entries) break;
      const out: Record<string, unknown> = {};
      for (const [key, item] of entries) {
        if (typeof key !== "string") throw new ProjectionError(`${path}: map key is not a string`);
        out[key] = projectValue(resolved.of, item, `${path}[${JSON.stringify(key)}]`);
      }
      return out;
    }
    case "struct":
      if (isPlainObject(value)) return projectStruct(resolved.fields, value, path);
      break;
    case "str":
      if (typeof value === "string") return value;
      break;
    case "bool":
      if (typeof value === "boolean") return value;
      break;
    case "int":
      return projectInt(resolved.bits, resolved.signed, value, path);
    case "float":
      if (typeof value === "number") {
        if (!Number.isFinite(value)) throw new ProjectionError(`${path}: non-finite float`);
        return value;
      }
      break;
  }
  throw new ProjectionError(`${path}: invalid value for its declared type`);
}

function projectInt(bits: number, signed: boolean, value: unknown, path: string): number | bigint {
  let integer: bigint;
  if (typeof value === "bigint") integer = value;
  else if (typeof value === "number" && Number.isSafeInteger(value)) integer = BigInt(value);
  else throw new ProjectionError(`${path}: invalid integer`);
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (integer < min || integer > max) {
    throw new ProjectionError(`${path}: out of range for its type`);
  }
  if (integer > INT64_MAX) throw new ProjectionError(`${path}: above the signed 64-bit maximum`);
  return Number.isSafeInteger(Number(integer)) && BigInt(Number(integer)) === integer
    ? Number(integer)
    : integer;
}

/**
 * Marks the floats of a projected result as one-element Float64Arrays (structured clone keeps
 * them), so the program sees `2.0` as a float rather than the int `2`. Apply after measuring.
 */
export function tagFloats(fields: readonly Field[], value: Record<string, unknown>): unknown {
  return tagStruct(fields, value);
}

function tagStruct(fields: readonly Field[], obj: Record<string, unknown>) {
  const types = new Map(fields.map((field) => [field.name, field.type]));
  return Object.fromEntries(
    Object.entries(obj).map(([key, value]) => {
      const type = types.get(key);
      return [key, type ? tagValue(type, value) : value];
    }),
  );
}

function tagValue(schema: Schema, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const resolved = underlying(schema);
  switch (resolved.kind) {
    case "ptr":
      return tagValue(resolved.of, value);
    case "float":
      return new Float64Array([value as number]);
    case "list":
      return (value as unknown[]).map((item) => tagValue(resolved.of, item));
    case "map":
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map((
          [key, item],
        ) => [key, tagValue(resolved.of, item)]),
      );
    case "struct":
      return tagStruct(resolved.fields, value as Record<string, unknown>);
    default:
      return value;
  }
}
