/**
 * A small JSON Schema checker for the OpenAPI 3.0 subset our document uses (type, nullable,
 * enum, required, properties, additionalProperties, items, $ref, min/maxLength, format
 * date-time/uuid). Returns a list of problems; empty means the value matches.
 */
type Schema = Record<string, unknown>;

export function checkSchema(
  value: unknown,
  schema: Schema,
  components: Record<string, Schema>,
  at = "$",
): string[] {
  if (typeof schema.$ref === "string") {
    return checkSchema(value, components[schema.$ref.split("/").pop()!], components, at);
  }
  if (value === null) return schema.nullable ? [] : [`${at}: null not allowed`];
  const problems: string[] = [];
  const type = schema.type as string | undefined;
  const actual = Array.isArray(value)
    ? "array"
    : Number.isInteger(value)
    ? "integer"
    : typeof value;
  if (type && !(type === actual || (type === "number" && actual === "integer"))) {
    return [`${at}: expected ${type}, got ${actual}`];
  }
  if (schema.enum && !(schema.enum as unknown[]).includes(value)) {
    problems.push(`${at}: not in enum`);
  }
  if (typeof value === "string") {
    const len = [...value].length;
    if (typeof schema.minLength === "number" && len < schema.minLength) {
      problems.push(`${at}: short`);
    }
    if (typeof schema.maxLength === "number" && len > schema.maxLength) {
      problems.push(`${at}: long`);
    }
    if (schema.format === "date-time" && Number.isNaN(Date.parse(value))) {
      problems.push(`${at}: not a date-time`);
    }
    if (schema.format === "uuid" && !/^[0-9a-f-]{36}$/.test(value)) {
      problems.push(`${at}: not a uuid`);
    }
  }
  if (actual === "array" && schema.items) {
    (value as unknown[]).forEach((v, i) =>
      problems.push(...checkSchema(v, schema.items as Schema, components, `${at}[${i}]`))
    );
  }
  if (actual === "object") {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const r of (schema.required ?? []) as string[]) {
      if (!(r in obj)) problems.push(`${at}: missing ${r}`);
    }
    for (const [k, v] of Object.entries(obj)) {
      if (props[k]) problems.push(...checkSchema(v, props[k], components, `${at}.${k}`));
      else if (schema.additionalProperties === false) problems.push(`${at}: unexpected ${k}`);
      else if (typeof schema.additionalProperties === "object") {
        problems.push(
          ...checkSchema(v, schema.additionalProperties as Schema, components, `${at}.${k}`),
        );
      }
    }
  }
  return problems;
}
