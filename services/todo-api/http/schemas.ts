/**
 * The JSON Schemas of every body, written once and used three ways: served at
 * `/schemas/<Name>.json`, embedded as OpenAPI components, and (in tests) checked against real
 * responses. OpenAPI 3.0.3 dialect: `nullable`, no type arrays.
 * @module
 */

const SCHEMA_PROPERTY = {
  type: "string",
  format: "uri",
  readOnly: true,
  description: "A URL to the JSON Schema for this object.",
  example: "https://example.com/schemas/Todo.json",
};

/** Bounds shared by the validator and the schemas. */
export const LIMITS = {
  titleMin: 1,
  titleMax: 200,
  limitMin: 1,
  limitMax: 100,
  limitDefault: 20,
} as const;

/** Component schemas keyed by name; refs use `#/components/schemas/<Name>`. */
export const SCHEMAS: Record<string, Record<string, unknown>> = {
  Todo: {
    type: "object",
    additionalProperties: false,
    required: ["id", "title", "status", "createdAt"],
    properties: {
      $schema: SCHEMA_PROPERTY,
      id: { type: "string", format: "uuid", description: "Unique identifier." },
      title: { type: "string", minLength: LIMITS.titleMin, maxLength: LIMITS.titleMax },
      status: { type: "string", enum: ["open", "completed"] },
      createdAt: { type: "string", format: "date-time" },
      completedAt: {
        type: "string",
        format: "date-time",
        description: "Present when completed; completing again keeps the first value.",
      },
    },
  },
  CreateTodoInputBody: {
    type: "object",
    additionalProperties: false,
    required: ["title"],
    properties: {
      $schema: SCHEMA_PROPERTY,
      title: { type: "string", minLength: LIMITS.titleMin, maxLength: LIMITS.titleMax },
    },
  },
  ListTodosOutputBody: {
    type: "object",
    additionalProperties: false,
    required: ["todos"],
    properties: {
      $schema: SCHEMA_PROPERTY,
      todos: {
        type: "array",
        nullable: true,
        items: { $ref: "#/components/schemas/Todo" },
        description: "The page, oldest first.",
      },
      nextCursor: { type: "string", description: "Opaque; omitted on the last page." },
    },
  },
  ErrorDetail: {
    type: "object",
    additionalProperties: false,
    properties: {
      location: { type: "string", description: "Where the error occurred, e.g. body.title" },
      message: { type: "string", description: "Error message text" },
      value: { description: "The value at the given location" },
    },
  },
  ErrorModel: {
    type: "object",
    additionalProperties: false,
    properties: {
      $schema: SCHEMA_PROPERTY,
      type: { type: "string", format: "uri", default: "about:blank" },
      title: { type: "string", example: "Unprocessable Entity" },
      status: { type: "integer", format: "int64", example: 422 },
      detail: { type: "string", example: "validation failed" },
      instance: { type: "string", format: "uri-reference" },
      errors: {
        type: "array",
        nullable: true,
        items: { $ref: "#/components/schemas/ErrorDetail" },
      },
    },
  },
};

/** A schema as served standalone: internal refs point at sibling `/schemas/X.json` files. */
export function standaloneSchema(name: string): Record<string, unknown> | undefined {
  const schema = SCHEMAS[name];
  if (!schema) return undefined;
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"#/components/schemas/', '"/schemas/').replace(
      /"(\/schemas\/[A-Za-z]+)"/g,
      '"$1.json"',
    ),
  );
}
