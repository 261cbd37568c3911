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

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) &&
    !(v instanceof Uint8Array) && !(v instanceof Map);
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
  for (const f of fields) {
    const v = Object.hasOwn(obj, f.name) ? obj[f.name] : undefined;
    const s = underlying(f.type);
    if ((v === undefined || v === null) && s.kind === "ptr" && f.omitEmpty) continue;
    out[f.name] = projectValue(f.type, v, `${path}.${f.name}`);
  }
  return out;
}

function projectValue(schema: Schema, v: unknown, path: string): unknown {
  const s = underlying(schema);
  const nil = v === undefined || v === null;
  switch (s.kind) {
    case "ptr":
      return nil ? null : projectValue(s.of, v, path);
    case "bytes":
      if (nil) return null;
      if (v instanceof Uint8Array) return [...v];
      if (Array.isArray(v)) return v.map((e, i) => projectInt(8, false, e, `${path}[${i}]`));
      break;
    case "list":
      if (nil) return null;
      if (Array.isArray(v)) return v.map((e, i) => projectValue(s.of, e, `${path}[${i}]`));
      break;
    case "map": {
      if (nil) return null;
      const entries = v instanceof Map
        ? [...v.entries()]
        : isPlainObject(v)
        ? Object.entries(v)
        : null;
      if (!entries) break;
      const out: Record<string, unknown> = {};
      for (const [k, e] of entries) {
        if (typeof k !== "string") throw new ProjectionError(`${path}: map key is not a string`);
        out[k] = projectValue(s.of, e, `${path}[${JSON.stringify(k)}]`);
      }
      return out;
    }
    case "struct":
      if (isPlainObject(v)) return projectStruct(s.fields, v, path);
      break;
    case "str":
      if (typeof v === "string") return v;
      break;
    case "bool":
      if (typeof v === "boolean") return v;
      break;
    case "int":
      return projectInt(s.bits, s.signed, v, path);
    case "float":
      if (typeof v === "number") {
        if (!Number.isFinite(v)) throw new ProjectionError(`${path}: non-finite float`);
        return v;
      }
      break;
  }
  throw new ProjectionError(`${path}: invalid value for its declared type`);
}

function projectInt(bits: number, signed: boolean, v: unknown, path: string): number | bigint {
  let n: bigint;
  if (typeof v === "bigint") n = v;
  else if (typeof v === "number" && Number.isSafeInteger(v)) n = BigInt(v);
  else throw new ProjectionError(`${path}: invalid integer`);
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (n < min || n > max) throw new ProjectionError(`${path}: out of range for its type`);
  if (n > INT64_MAX) throw new ProjectionError(`${path}: above the signed 64-bit maximum`);
  return Number.isSafeInteger(Number(n)) && BigInt(Number(n)) === n ? Number(n) : n;
}

/**
 * Marks the floats of a projected result as one-element Float64Arrays (structured clone keeps
 * them), so the program sees `2.0` as a float rather than the int `2`. Apply after measuring.
 */
export function tagFloats(fields: readonly Field[], value: Record<string, unknown>): unknown {
  return tagStruct(fields, value);
}

function tagStruct(fields: readonly Field[], obj: Record<string, unknown>) {
  const types = new Map(fields.map((f) => [f.name, f.type]));
  return Object.fromEntries(
    Object.entries(obj).map(([k, v]) => {
      const type = types.get(k);
      return [k, type ? tagValue(type, v) : v];
    }),
  );
}

function tagValue(schema: Schema, v: unknown): unknown {
  if (v === null || v === undefined) return v;
  const s = underlying(schema);
  switch (s.kind) {
    case "ptr":
      return tagValue(s.of, v);
    case "float":
      return new Float64Array([v as number]);
    case "list":
      return (v as unknown[]).map((e) => tagValue(s.of, e));
    case "map":
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>).map(([k, e]) => [k, tagValue(s.of, e)]),
      );
    case "struct":
      return tagStruct(s.fields, v as Record<string, unknown>);
    default:
      return v;
  }
}
