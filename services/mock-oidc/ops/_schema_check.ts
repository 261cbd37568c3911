/**
 * A small checker for the OpenAPI 3.0 schema subset our document uses, so tests can compare
 * real responses with what the document promises. Returns the list of violations.
 */
// deno-lint-ignore-file no-explicit-any
type Schema = Record<string, any>;

export function schemaViolations(
  value: unknown,
  schema: Schema,
  doc: Schema,
  at = "$",
): string[] {
  if (schema.$ref) {
    const target = (schema.$ref as string).replace("#/", "").split("/").reduce(
      (node: any, key: string) => node?.[key],
      doc,
    );
    return schemaViolations(value, target, doc, at);
  }
  if (value === null) return schema.nullable ? [] : [`${at}: null not allowed`];
  const out: string[] = [];
  const type = schema.type as string | undefined;
  const actual = Array.isArray(value) ? "array" : typeof value;
  if (type === "integer") {
    if (!Number.isInteger(value)) out.push(`${at}: expected integer`);
  } else if (type && type !== actual) {
    return [`${at}: expected ${type}, got ${actual}`];
  }
  if (schema.enum && !schema.enum.includes(value)) out.push(`${at}: ${value} not in enum`);
  if (schema.format === "date-time" && Number.isNaN(Date.parse(value as string))) {
    out.push(`${at}: not a date-time`);
  }
  if (actual === "array" && schema.items) {
    (value as unknown[]).forEach((item, i) =>
      out.push(...schemaViolations(item, schema.items, doc, `${at}[${i}]`))
    );
  }
  if (actual === "object" && type === "object") {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) {
      if (!(name in object)) out.push(`${at}.${name}: required`);
    }
    for (const [name, item] of Object.entries(object)) {
      const property = schema.properties?.[name];
      if (property) out.push(...schemaViolations(item, property, doc, `${at}.${name}`));
      else if (schema.additionalProperties === false) out.push(`${at}.${name}: not allowed`);
      else if (typeof schema.additionalProperties === "object") {
        out.push(...schemaViolations(item, schema.additionalProperties, doc, `${at}.${name}`));
      }
    }
  }
  return out;
}

/** The documented response schema for an operation and status, following `$ref`s. */
export function responseSchema(
  doc: Schema,
  path: string,
  method: string,
  status: number,
): { mediaType: string; schema: Schema } | undefined {
  let response = doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(status)];
  if (response?.$ref) {
    response = response.$ref.replace("#/", "").split("/").reduce(
      (node: any, key: string) => node?.[key],
      doc,
    );
  }
  const [mediaType, media] = Object.entries(response?.content ?? {})[0] ?? [];
  return mediaType ? { mediaType, schema: (media as Schema).schema } : undefined;
}
