/**
 * The one JSON-schema checker for tests: compares a real response body with the schema an
 * OpenAPI 3.0 document promises for it, using `ajv` (OpenAPI's `nullable` included). `$ref`s
 * resolve against the whole document, so `#/components/schemas/…` works as written.
 *
 * @module
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";

/** A decoded JSON object of any shape (OpenAPI documents and their schemas). */
// deno-lint-ignore no-explicit-any -- OpenAPI documents are plain JSON of any shape
export type Json = Record<string, any>;

const DOC_ID = "openapi.json";

/** Formats our documents use; any other format is accepted unchecked, as OpenAPI allows. */
const FORMATS: Record<string, (value: string) => boolean> = {
  "date-time": (v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)),
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  uri: (v) => URL.canParse(v),
  // RFC 9457's `instance` is a URI reference: a path like `/v1/todos/1` is one.
  "uri-reference": (v) => URL.canParse(v, "http://base.invalid/"),
  byte: (v) => /^[A-Za-z0-9+/]*={0,2}$/.test(v) && v.length % 4 === 0,
};

/** One ajv per document: the document is compiled once and shared by every check against it. */
const checkers = new WeakMap<Json, { ajv: Ajv; compiled: Map<string, ValidateFunction> }>();

function validatorFor(doc: Json, schema: Json): ValidateFunction {
  let checker = checkers.get(doc);
  if (!checker) {
    // OpenAPI is not JSON Schema (example, xml, discriminator…): unknown keywords are not errors.
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
    for (const [name, validate] of Object.entries(FORMATS)) ajv.addFormat(name, validate);
    ajv.addSchema({ ...doc, $id: DOC_ID });
    checker = { ajv, compiled: new Map() };
    checkers.set(doc, checker);
  }
  const key = JSON.stringify(schema);
  let validate = checker.compiled.get(key);
  if (!validate) {
    validate = checker.ajv.compile(anchored(schema) as Json);
    checker.compiled.set(key, validate);
  }
  return validate;
}

/** Local `#/…` refs of a sub-schema point into the document, not into the sub-schema. */
function anchored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchored);
  if (schema === null || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) =>
      key === "$ref" && typeof value === "string" && value.startsWith("#")
        ? [key, `${DOC_ID}${value}`]
        : [key, anchored(value)]
    ),
  );
}

function describe(error: ErrorObject): string {
  const at = "$" + error.instancePath.replaceAll("/", ".");
  return `${at}: ${error.message ?? error.keyword}`;
}

/**
 * Checks `value` against `schema`, a schema taken from (or written against) the OpenAPI
 * document `doc`. Returns the violations, `$.path: message` each; empty means it matches.
 *
 * @param value The decoded JSON to check.
 * @param schema The schema it must match; `$ref`s resolve against `doc`.
 * @param doc The OpenAPI 3.0 document holding the referenced components.
 * @returns The violations, empty when `value` matches.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { schemaViolations } from "@svc/testing/schema-check";
 * const doc = {
 *   components: { schemas: { Todo: { type: "object", required: ["id"], properties: {} } } },
 * };
 * const schema = { $ref: "#/components/schemas/Todo" };
 * assert.deepEqual(schemaViolations({ id: "1" }, schema, doc), []);
 * assert.deepEqual(schemaViolations({}, schema, doc), ["$: must have required property 'id'"]);
 * ```
 */
export function schemaViolations(value: unknown, schema: Json, doc: Json): string[] {
  const validate = validatorFor(doc, schema);
  return validate(value) ? [] : (validate.errors ?? []).map(describe);
}

/**
 * The documented response of an operation for a status: its media type and schema, following a
 * `$ref` to `#/components/responses/…`.
 *
 * @param doc The OpenAPI 3.0 document.
 * @param path The path template as written in `paths` (e.g. `/v1/todos/{id}`).
 * @param method The HTTP method, any case.
 * @param status The response status.
 * @returns The first documented media type and its schema, or `undefined` if undocumented.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { responseSchema } from "@svc/testing/schema-check";
 * const doc = {
 *   paths: {
 *     "/healthz": {
 *       get: { responses: { "200": { content: { "text/plain": { schema: { type: "string" } } } } } },
 *     },
 *   },
 * };
 * assert.deepEqual(responseSchema(doc, "/healthz", "GET", 200), {
 *   mediaType: "text/plain",
 *   schema: { type: "string" },
 * });
 * assert.equal(responseSchema(doc, "/healthz", "GET", 500), undefined);
 * ```
 */
export function responseSchema(
  doc: Json,
  path: string,
  method: string,
  status: number,
): { mediaType: string; schema: Json } | undefined {
  let response = doc.paths?.[path]?.[method.toLowerCase()]?.responses?.[String(status)];
  if (typeof response?.$ref === "string") {
    response = (response.$ref as string).replace("#/", "").split("/").reduce(
      (node: Json | undefined, key: string) => node?.[key],
      doc,
    );
  }
  const [mediaType, media] = Object.entries(response?.content ?? {})[0] ?? [];
  return mediaType ? { mediaType, schema: (media as Json).schema } : undefined;
}
