/**
 * OpenAPI schema objects (3.0 and 3.1) to the host field types of the notation
 * (docs/mcp-server.md#openapi-apis): `integer` to its format's width (int32, int64, default int64;
 * uint formats unsigned), `number` to float (`format: float` float32), `string` (any format) and
 * string enums to `str`, `boolean` to bool, `array` to `list[T]`, an object with properties to a
 * struct, an object with only `additionalProperties: <schema>` to `dict[str, T]`; `nullable`,
 * `type: [T, "null"]` and `oneOf/anyOf [T, null]` to `T | None`; `allOf` of objects merged.
 * `oneOf`/`anyOf` with a discriminator become one struct: the discriminator property required, the
 * other properties of every variant optional. Shapes the notation cannot express (free-form
 * objects, `oneOf` without a discriminator, recursive `$ref`s, schemas without a type) throw
 * {@linkcode Unexpressible}.
 * @module
 */
import { type Field, type Schema, t } from "../capabilities/schema.ts";
import { isTagName } from "../capabilities/names.ts";
import { resolvePointer } from "./document.ts";

/** A schema the notation cannot express; `message` is the reason. */
export class Unexpressible extends Error {
  /** Stable code: the operation is disabled with `message` as its reason. */
  readonly code = "unexpressible";
  constructor(message: string) {
    super(message);
    this.name = "Unexpressible";
  }
}

/** Which side a schema describes: optional fields are `T | None` in input, `f?: T` in output. */
export type Side = "input" | "output";

/** Converts schemas of one document. */
export interface SchemaMapper {
  /** The host type of `schema`. @throws {Unexpressible} */
  convert(schema: unknown, side: Side, at: string): Schema;
  /** `schema` with its `$ref` chain followed and `allOf` merged (for object root flattening). */
  resolve(schema: unknown, at: string): Record<string, unknown>;
  /** Notes for the description: allowed enum values, fields left out. */
  notes: string[];
}

type Obj = Record<string, unknown>;

const MAX_DEPTH = 24;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Creates a mapper over one document. */
export function schemaMapper(doc: unknown): SchemaMapper {
  const notes: string[] = [];
  const outputCache = outputCacheOf(doc);
  const refStack: string[] = [];

  function follow(schema: unknown, at: string, depth: number): Obj {
    let cur = schema;
    const seen: string[] = [];
    while (isObj(cur) && typeof cur.$ref === "string") {
      const ref = cur.$ref;
      if (seen.includes(ref)) {
        throw new Unexpressible(`${at}: recursive schema (${ref})`);
      }
      seen.push(ref);
      const next = resolvePointer(doc, ref);
      if (next === undefined) throw new Unexpressible(`${at}: $ref ${ref} points nowhere`);
      cur = next;
    }
    if (depth > MAX_DEPTH) throw new Unexpressible(`${at}: schema nested too deeply`);
    if (cur === true || (isObj(cur) && Object.keys(cur).length === 0)) {
      throw new Unexpressible(`${at}: any value (schema without a type)`);
    }
    if (!isObj(cur)) throw new Unexpressible(`${at}: invalid schema`);
    return cur;
  }

  /** Runs `fn` with the refs of a schema's chain on the stack (cycle detection across levels). */
  function withRefs<T>(schema: unknown, at: string, fn: () => T): T {
    const pushed: string[] = [];
    let cur = schema;
    while (isObj(cur) && typeof cur.$ref === "string" && !pushed.includes(cur.$ref)) {
      if (refStack.includes(cur.$ref)) {
        throw new Unexpressible(`${at}: recursive schema (${cur.$ref})`);
      }
      pushed.push(cur.$ref);
      cur = resolvePointer(doc, cur.$ref);
    }
    refStack.push(...pushed);
    try {
      return fn();
    } finally {
      refStack.length -= pushed.length;
    }
  }

  function typesOf(schema: Obj): { types: string[]; nullable: boolean } {
    const raw = Array.isArray(schema.type)
      ? schema.type.map(String)
      : schema.type
      ? [String(schema.type)]
      : [];
    const nullable = schema.nullable === true || raw.includes("null");
    return { types: raw.filter((type) => type !== "null"), nullable };
  }

  function merged(schema: Obj, at: string, depth: number): Obj {
    if (!Array.isArray(schema.allOf)) return schema;
    const parts = [
      { ...schema, allOf: undefined },
      ...schema.allOf.map((part) => merged(follow(part, at, depth), at, depth)),
    ];
    const properties: Obj = {};
    const required = new Set<string>();
    let type: unknown;
    let nullable = false;
    for (const part of parts) {
      if (isObj(part.properties)) Object.assign(properties, part.properties);
      if (Array.isArray(part.required)) {
        for (const name of part.required) required.add(String(name));
      }
      if (part.type !== undefined) type = part.type;
      if (part.nullable === true) nullable = true;
      for (const key of ["oneOf", "anyOf"]) {
        if (part[key] !== undefined) throw new Unexpressible(`${at}: allOf with ${key}`);
      }
    }
    const hasProps = Object.keys(properties).length > 0;
    if (!hasProps && parts.length === 2 && type === undefined) return parts[1];
    return {
      ...parts.filter((part) => !hasProps || part.type === undefined || part.type === "object")
        .reduce((union, next) => ({ ...union, ...next }), {}),
      allOf: undefined,
      type: hasProps ? "object" : type,
      properties: hasProps ? properties : undefined,
      required: [...required],
      nullable,
    };
  }

  function nullOnly(schema: unknown): boolean {
    return isObj(schema) &&
      (schema.type === "null" || (Array.isArray(schema.type) && schema.type.length === 1 &&
        schema.type[0] === "null") ||
        (Array.isArray(schema.enum) && schema.enum.length === 1 && schema.enum[0] === null));
  }

  function convert(schema: unknown, side: Side, at: string, depth: number): Schema {
    // Output types of a referenced schema are the same wherever it is used (a success cannot
    // depend on the path: a cycle through it would fail anywhere), so they are converted once per
    // document; large APIs reuse a few big response schemas across hundreds of operations.
    const ref = side === "output" && isObj(schema) && typeof schema.$ref === "string"
      ? schema.$ref
      : undefined;
    if (ref !== undefined) {
      const hit = outputCache.get(ref);
      if (hit) return hit;
      const out = convertUncached(schema, side, at, depth);
      outputCache.set(ref, out);
      return out;
    }
    return convertUncached(schema, side, at, depth);
  }

  function convertUncached(schema: unknown, side: Side, at: string, depth: number): Schema {
    return withRefs(schema, at, () => {
      const resolved = merged(follow(schema, at, depth), at, depth);
      const { types, nullable } = typesOf(resolved);
      const inner = convertInner(resolved, types, side, at, depth);
      return nullable && inner.kind !== "ptr" ? t.ptr(inner) : inner;
    });
  }

  function convertInner(
    schema: Obj,
    types: string[],
    side: Side,
    at: string,
    depth: number,
  ): Schema {
    for (const key of ["oneOf", "anyOf"] as const) {
      const variants = schema[key];
      if (!Array.isArray(variants)) continue;
      const nonNull = variants.filter((variant) => !nullOnly(follow(variant, at, depth)));
      if (nonNull.length === 1 && types.length === 0) {
        const inner = convert(nonNull[0], side, at, depth + 1);
        return nonNull.length < variants.length && inner.kind !== "ptr" ? t.ptr(inner) : inner;
      }
      const disc = isObj(schema.discriminator) ? schema.discriminator.propertyName : undefined;
      if (typeof disc !== "string") {
        const scalars = nonNull.map((variant) =>
          typesOf(merged(follow(variant, at, depth), at, depth)).types
        );
        const same = scalars.every((variantTypes) =>
          variantTypes.length === 1 && variantTypes[0] === scalars[0][0]
        ) &&
          scalars[0]?.length === 1 && scalars[0][0] !== "object" && scalars[0][0] !== "array";
        if (same) {
          return convertInner({ type: scalars[0][0] }, scalars[0], side, at, depth);
        }
        throw new Unexpressible(`${at}: ${key} without a discriminator`);
      }
      return discriminated(nonNull, disc, side, at, depth, variants.length > nonNull.length);
    }
    if (schema.not !== undefined && types.length === 0) throw new Unexpressible(`${at}: not`);
    if (types.length > 1) throw new Unexpressible(`${at}: several types (${types.join(", ")})`);
    const type = types[0] ??
      (isObj(schema.properties) ? "object" : isObj(schema.items) ? "array" : undefined);
    switch (type) {
      case "string":
        if (Array.isArray(schema.enum)) note(at, schema.enum);
        return t.str();
      case "boolean":
        return t.bool();
      case "integer":
        if (Array.isArray(schema.enum)) note(at, schema.enum);
        return integer(schema.format);
      case "number":
        return schema.format === "float" ? t.float32() : t.float64();
      case "array":
        if (schema.items === undefined) throw new Unexpressible(`${at}: array without items`);
        if (Array.isArray(schema.items)) throw new Unexpressible(`${at}: tuple array`);
        return t.list(convert(schema.items, side, `${at}[]`, depth + 1));
      case "object":
        return object(schema, side, at, depth);
      case undefined:
        if (Array.isArray(schema.enum) && schema.enum.every((value) => typeof value === "string")) {
          note(at, schema.enum);
          return t.str();
        }
        if (schema.const !== undefined && typeof schema.const === "string") return t.str();
        throw new Unexpressible(`${at}: any value (schema without a type)`);
      default:
        throw new Unexpressible(`${at}: type ${type}`);
    }
  }

  function object(schema: Obj, side: Side, at: string, depth: number): Schema {
    const props = isObj(schema.properties) ? schema.properties : {};
    const names = Object.keys(props);
    if (names.length === 0) {
      const extra = schema.additionalProperties;
      if (isObj(extra) && Object.keys(extra).length > 0) {
        return t.dict(convert(extra, side, `${at}[]`, depth + 1));
      }
      if (extra === false) return t.struct([]); // an object that has no properties at all
      throw new Unexpressible(`${at}: free-form object`);
    }
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const fields: Field[] = [];
    for (const name of names) {
      const fat = `${at}.${name}`;
      if (!isTagName(name)) throw new Unexpressible(`${fat}: field name not usable`);
      const sub = props[name];
      if (side === "input" && isObj(sub) && sub.readOnly === true) continue;
      if (side === "output" && isObj(sub) && sub.writeOnly === true) continue;
      const need = required.has(name);
      let type: Schema;
      try {
        type = convert(sub, side, fat, depth + 1);
      } catch (err) {
        // an optional field (or any output field) that cannot be expressed is left out, not fatal
        if (err instanceof Unexpressible && (!need || side === "output")) {
          if (side === "input") notes.push(`${trimAt(fat)} not exposed (${reasonOf(err)})`);
          continue;
        }
        throw err;
      }
      fields.push(fieldOf(name, type, need, side));
    }
    return t.struct(fields);
  }

  function discriminated(
    variants: unknown[],
    disc: string,
    side: Side,
    at: string,
    depth: number,
    nullable: boolean,
  ): Schema {
    const byName = new Map<string, { schema: unknown; required: boolean }>();
    const values: string[] = [];
    for (const variant of variants) {
      const variantSchema = merged(follow(variant, at, depth), at, depth);
      if (!isObj(variantSchema.properties)) {
        throw new Unexpressible(`${at}: discriminated variant not an object`);
      }
      const tagProperty = variantSchema.properties[disc];
      const tagSchema = isObj(tagProperty) ? follow(tagProperty, at, depth) : undefined;
      if (tagSchema && Array.isArray(tagSchema.enum)) values.push(...tagSchema.enum.map(String));
      for (const [name, sub] of Object.entries(variantSchema.properties)) {
        if (!byName.has(name)) byName.set(name, { schema: sub, required: name === disc });
      }
    }
    if (!byName.has(disc)) throw new Unexpressible(`${at}: discriminator ${disc} not a property`);
    if (values.length > 0) note(`${at}.${disc}`, values);
    const fields: Field[] = [];
    for (const [name, { schema, required }] of byName) {
      if (!isTagName(name)) throw new Unexpressible(`${at}.${name}: field name not usable`);
      const type = name === disc ? t.str() : convert(schema, side, `${at}.${name}`, depth + 1);
      fields.push(fieldOf(name, type, required, side));
    }
    const st = t.struct(fields);
    return nullable ? t.ptr(st) : st;
  }

  function note(at: string, values: unknown[]) {
    if (at.startsWith("output")) return; // only inputs need the allowed values
    const shown = values.slice(0, 32).map((value) => JSON.stringify(value)).join(", ");
    notes.push(`${trimAt(at)}: one of ${shown}${values.length > 32 ? ", ..." : ""}`);
  }

  return {
    convert: (schema, side, at) => convert(schema, side, at, 0),
    resolve: (schema, at) => withRefs(schema, at, () => merged(follow(schema, at, 0), at, 0)),
    notes,
  };
}

const OUTPUT_CACHES = new WeakMap<object, Map<string, Schema>>();

function outputCacheOf(doc: unknown): Map<string, Schema> {
  const key = (isObj(doc) ? doc : {}) as object;
  let cache = OUTPUT_CACHES.get(key);
  if (!cache) OUTPUT_CACHES.set(key, cache = new Map());
  return cache;
}

/** A field of the given requiredness: optional fields are pointers (omit-when-empty in output). */
export function fieldOf(name: string, type: Schema, required: boolean, side: Side): Field {
  if (required) return t.field(name, type);
  const ptr = type.kind === "ptr" ? type : t.ptr(type);
  return side === "output" ? t.field(name, ptr, { omitEmpty: true }) : t.field(name, ptr);
}

function integer(format: unknown): Schema {
  switch (format) {
    case "int8":
      return t.int8();
    case "int16":
      return t.int16();
    case "int32":
      return t.int32();
    case "uint8":
      return t.uint8();
    case "uint16":
      return t.uint16();
    case "uint32":
      return t.uint32();
    case "uint64":
      return t.uint64();
    default:
      return t.int64();
  }
}

function trimAt(at: string): string {
  return at.replace(/^(input|output)\./, "");
}

function reasonOf(err: Error): string {
  const colon = err.message.indexOf(": ");
  return colon >= 0 ? err.message.slice(colon + 2) : err.message;
}
