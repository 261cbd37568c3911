/**
 * Registration checks of capability input and output graphs: what a host must reject
 * (docs/mcp-server.md#signatures-and-type-notation) before exposure (interfaces, raw JSON,
 * marshalers, non-string map keys, cycles, unsupported scalars, embedded or unexported fields,
 * invalid tags, omit-when-empty on a non-pointer field).
 * @module
 */
import type { Field, Schema } from "./schema.ts";
import { isKeywordArgName, isTagName } from "./names.ts";

const MAX_DEPTH = 64;

/** Which side of a capability a field list describes. */
export type Side = "input" | "output";

/** Returns why a root field list is unacceptable, or undefined. */
export function fieldListProblem(fields: readonly Field[], side: Side): string | undefined {
  return structProblem(fields, side, true, new Set(), 0, side);
}

function structProblem(
  fields: readonly Field[],
  side: Side,
  root: boolean,
  path: Set<object>,
  depth: number,
  where: string,
): string | undefined {
  const seen = new Set<string>();
  for (const field of fields) {
    const at = `${where}.${field.name}`;
    if (root && side === "input" && !isKeywordArgName(field.name)) {
      return `${at}: root input names must be Starlark identifiers that are not keywords`;
    }
    if (!isTagName(field.name)) return `${at}: invalid field name`;
    if (seen.has(field.name)) return `${at}: duplicate field name`;
    seen.add(field.name);
    if (field.embedded) return `${at}: embedded fields are not supported`;
    if (field.unexported) return `${at}: unexported fields are not supported`;
    if (field.omitEmpty && !isPointer(field.type)) {
      return `${at}: omit-when-empty is only allowed on pointer fields`;
    }
    const problem = schemaProblem(field.type, side, path, depth + 1, at);
    if (problem) return problem;
  }
  return undefined;
}

function isPointer(schema: Schema): boolean {
  let cur = schema;
  for (let i = 0; i < MAX_DEPTH; i++) {
    if (cur.kind === "named") cur = cur.of;
    else if (cur.kind === "lazy") cur = cur.get();
    else return cur.kind === "ptr";
  }
  return false;
}

function schemaProblem(
  schema: Schema,
  side: Side,
  path: Set<object>,
  depth: number,
  at: string,
): string | undefined {
  if (depth > MAX_DEPTH) return `${at}: type graph is cyclic or too deep`;
  if (path.has(schema)) return `${at}: cyclic type graph`;
  path.add(schema);
  try {
    switch (schema.kind) {
      case "str":
      case "bool":
      case "int":
      case "float":
      case "bytes":
        return undefined;
      case "named":
        return schemaProblem(schema.of, side, path, depth + 1, at);
      case "lazy":
        return schemaProblem(schema.get(), side, path, depth + 1, at);
      case "ptr":
      case "list":
        return schemaProblem(schema.of, side, path, depth + 1, at);
      case "map":
        if (!isStringKind(schema.key)) return `${at}: map keys must be strings`;
        return schemaProblem(schema.of, side, path, depth + 1, at);
      case "struct":
        return structProblem(schema.fields, side, false, path, depth + 1, at);
      case "interface":
        return `${at}: interface types are not supported`;
      case "raw_json":
        return `${at}: raw JSON values are not supported`;
      case "marshaler":
        return `${at}: types with JSON or text marshaling methods are not supported`;
      case "unsupported":
        return `${at}: unsupported kind ${schema.what}`;
    }
  } finally {
    path.delete(schema);
  }
}

function isStringKind(schema: Schema): boolean {
  let cur = schema;
  for (let i = 0; i < MAX_DEPTH; i++) {
    if (cur.kind === "named") cur = cur.of;
    else if (cur.kind === "lazy") cur = cur.get();
    else return cur.kind === "str";
  }
  return false;
}
