/**
 * The schema vocabulary a host program uses to describe capability inputs and outputs. TypeScript
 * has no run-time types, so each host field type of the notation table (docs/mcp-server.md) is a
 * value here: sized signed/unsigned integers, float32/float64, bool, string, bytes, lists,
 * string-keyed maps, nested structs and pointers (optional fields). Kinds a host must reject
 * (interfaces, raw JSON, marshalers, non-string map keys, unsupported scalars, cycles) are
 * expressible too, so registration can refuse them with a reason.
 *
 * @example
 * ```ts
 * import { t } from "./schema.ts";
 * const input = t.fields({ key: t.str(), limit: t.ptr(t.int()) });
 * ```
 * @module
 */

/** A host field type. */
export type Schema =
  | { kind: "str" }
  | { kind: "bool" }
  | { kind: "int"; bits: 8 | 16 | 32 | 64; signed: boolean }
  | { kind: "float"; bits: 32 | 64 }
  | { kind: "bytes" }
  | { kind: "list"; of: Schema }
  | { kind: "map"; key: Schema; of: Schema }
  | { kind: "struct"; fields: Field[] }
  | { kind: "ptr"; of: Schema }
  | { kind: "named"; name: string; of: Schema }
  | { kind: "lazy"; get: () => Schema }
  | { kind: "interface" }
  | { kind: "raw_json" }
  | { kind: "marshaler"; of: Schema }
  | { kind: "unsupported"; what: string };

/** One field of a struct (or of a capability's root input/output). */
export interface Field {
  /** JSON tag name; for root inputs also the Starlark keyword. */
  name: string;
  /** The field's type. */
  type: Schema;
  /** Omit-when-empty (only legal on pointer fields). */
  omitEmpty?: boolean;
  /** An embedded (anonymous) field: rejected at registration. */
  embedded?: boolean;
  /** An unexported field: rejected at registration. */
  unexported?: boolean;
}

/** Field options besides name and type. */
export type FieldOptions = Omit<Field, "name" | "type">;

type FieldList = Record<string, Schema> | Field[];

function toFields(list: FieldList): Field[] {
  return Array.isArray(list) ? list : Object.entries(list).map(([name, type]) => ({ name, type }));
}

const sized = (bits: 8 | 16 | 32 | 64, signed: boolean): Schema => ({ kind: "int", bits, signed });

/** Builders for {@linkcode Schema} values. */
export const t = {
  str: (): Schema => ({ kind: "str" }),
  bool: (): Schema => ({ kind: "bool" }),
  /** Signed 64-bit integer (Go `int` on 64-bit hosts). */
  int: (): Schema => sized(64, true),
  int8: (): Schema => sized(8, true),
  int16: (): Schema => sized(16, true),
  int32: (): Schema => sized(32, true),
  int64: (): Schema => sized(64, true),
  uint: (): Schema => sized(64, false),
  uint8: (): Schema => sized(8, false),
  uint16: (): Schema => sized(16, false),
  uint32: (): Schema => sized(32, false),
  uint64: (): Schema => sized(64, false),
  float32: (): Schema => ({ kind: "float", bits: 32 }),
  float64: (): Schema => ({ kind: "float", bits: 64 }),
  /** A byte slice: integers 0..255 in Starlark and in results (never base64). */
  bytes: (): Schema => ({ kind: "bytes" }),
  list: (of: Schema): Schema => ({ kind: "list", of }),
  /** A map with string keys. */
  dict: (of: Schema): Schema => ({ kind: "map", key: { kind: "str" }, of }),
  /** A map with an arbitrary key type (only string-kind keys pass registration). */
  map: (key: Schema, of: Schema): Schema => ({ kind: "map", key, of }),
  struct: (fields: FieldList): Schema => ({ kind: "struct", fields: toFields(fields) }),
  /** A pointer: optional input, `T | None` output. */
  ptr: (of: Schema): Schema => ({ kind: "ptr", of }),
  /** A named type: same shape as its underlying type. */
  named: (name: string, of: Schema): Schema => ({ kind: "named", name, of }),
  /** A type referenced lazily, for recursive graphs (which registration rejects). */
  lazy: (get: () => Schema): Schema => ({ kind: "lazy", get }),
  any: (): Schema => ({ kind: "interface" }),
  rawJson: (): Schema => ({ kind: "raw_json" }),
  /** A type with its own JSON or text marshaling methods. */
  marshaler: (of: Schema): Schema => ({ kind: "marshaler", of }),
  unsupported: (what: string): Schema => ({ kind: "unsupported", what }),
  /** A field with options (omit-when-empty, embedded, unexported). */
  field: (name: string, type: Schema, options: FieldOptions = {}): Field => ({
    name,
    type,
    ...options,
  }),
  /** The root field list of a capability input or output. */
  fields: (list: FieldList): Field[] => toFields(list),
};

/** Follows named and lazy wrappers to the underlying shape. */
export function underlying(schema: Schema): Schema {
  let cur = schema;
  for (let i = 0; i < 64 && (cur.kind === "named" || cur.kind === "lazy"); i++) {
    cur = cur.kind === "named" ? cur.of : cur.get();
  }
  return cur;
}
