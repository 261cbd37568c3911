/**
 * Type strings of describe_api and the invocation-only signature of search/describe, per the
 * contract's notation table (docs/mcp-server.md#signatures-and-type-notation). Works on schemas
 * that passed registration checks.
 * @module
 */
import { type Field, type Schema, underlying } from "./schema.ts";
import { typeStringName } from "./names.ts";

/** One row of describe_api's `input` or `output`. */
export interface FieldDescription {
  name: string;
  type: string;
  required: boolean;
}

function stripPointers(schema: Schema): { inner: Schema; pointer: boolean } {
  let cur = underlying(schema);
  let pointer = false;
  while (cur.kind === "ptr") {
    pointer = true;
    cur = underlying(cur.of);
  }
  return { inner: cur, pointer };
}

function scalar(schema: Schema): string | undefined {
  switch (schema.kind) {
    case "str":
      return "str";
    case "bool":
      return "bool";
    case "int":
      return "int";
    case "float":
      return "float";
    case "bytes":
      return "list[int]";
  }
  return undefined;
}

/** Input notation: pointers (at any depth) are `T | None`. */
export function inputType(schema: Schema): string {
  const { inner, pointer } = stripPointers(schema);
  const base = scalar(inner) ??
    (inner.kind === "list"
      ? `list[${inputType(inner.of)}]`
      : inner.kind === "map"
      ? `dict[str, ${inputType(inner.of)}]`
      : inner.kind === "struct"
      ? `{${inner.fields.map(inputStructField).join(", ")}}`
      : "unsupported");
  return pointer ? `${base} | None` : base;
}

/** Output notation: omit-when-empty pointer fields of a struct take `?` and lose `| None`. */
export function outputType(schema: Schema): string {
  const { inner, pointer } = stripPointers(schema);
  const base = scalar(inner) ??
    (inner.kind === "list"
      ? `list[${outputType(inner.of)}]`
      : inner.kind === "map"
      ? `dict[str, ${outputType(inner.of)}]`
      : inner.kind === "struct"
      ? `{${inner.fields.map(outputStructField).join(", ")}}`
      : "unsupported");
  return pointer ? `${base} | None` : base;
}

function inputStructField(field: Field): string {
  return `${typeStringName(field.name)}: ${inputType(field.type)}`;
}

function outputStructField(field: Field): string {
  const { inner, pointer } = stripPointers(field.type);
  if (pointer && field.omitEmpty) return `${typeStringName(field.name)}?: ${outputType(inner)}`;
  return `${typeStringName(field.name)}: ${outputType(field.type)}`;
}

/** describe_api `input` rows: pointers are optional. */
export function describeInput(fields: readonly Field[]): FieldDescription[] {
  return fields.map((field) => ({
    name: field.name,
    type: inputType(field.type),
    required: !stripPointers(field.type).pointer,
  }));
}

/** describe_api `output` rows: a root omit-when-empty pointer is optional without `| None`. */
export function describeOutput(fields: readonly Field[]): FieldDescription[] {
  return fields.map((field) => {
    const { inner, pointer } = stripPointers(field.type);
    if (pointer && field.omitEmpty) {
      return { name: field.name, type: outputType(inner), required: false };
    }
    return { name: field.name, type: outputType(field.type), required: true };
  });
}

/** `name(*, key: str, limit: int | None)` or `name()`; never an output type. */
export function signature(name: string, input: readonly Field[]): string {
  if (input.length === 0) return `${name}()`;
  return `${name}(*, ${
    input.map((field) => `${field.name}: ${inputType(field.type)}`).join(", ")
  })`;
}
