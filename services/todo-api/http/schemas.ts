/**
 * The JSON Schemas of every body, written once and used three ways: served at
 * `/schemas/<Name>.json`, embedded as OpenAPI components, and (in tests) checked against real
 * responses. OpenAPI 3.0.3 dialect: `nullable`, no type arrays.
 * @module
 */

import { STATUS_TEXT } from "@svc/shared/problem";
import { ROLE_PATTERN } from "../auth/api_keys.ts";

/** Huma's `$schema` property, its example naming the schema it sits in. */
function schemaProperty(name: string) {
  return {
    type: "string",
    format: "uri",
    readOnly: true,
    description: "A URL to the JSON Schema for this object.",
    example: `https://example.com/schemas/${name}.json`,
  };
}

/**
 * Text Postgres can store as sent: no NUL (U+0000), no unpaired UTF-16 surrogate (which has no
 * UTF-8 form). An ECMA-262 pattern that means the same with and without the `u` flag; the
 * validator's rule (`unstorableText`) is tested against it on the same inputs.
 */
export const STORABLE_TEXT_PATTERN =
  "^(?:[^\\u0000\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$";

/** Bounds shared by the validator and the schemas. */
export const LIMITS = {
  titleMin: 1,
  titleMax: 200,
  subjectMin: 1,
  subjectMax: 200,
  rolesMin: 1,
  rolesMax: 16,
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
      $schema: schemaProperty("Todo"),
      id: { type: "string", format: "uuid", description: "Unique identifier." },
      title: {
        type: "string",
        minLength: LIMITS.titleMin,
        maxLength: LIMITS.titleMax,
        pattern: STORABLE_TEXT_PATTERN,
      },
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
      $schema: schemaProperty("CreateTodoInputBody"),
      title: {
        type: "string",
        minLength: LIMITS.titleMin,
        maxLength: LIMITS.titleMax,
        pattern: STORABLE_TEXT_PATTERN,
        description: "1 to 200 characters; no NUL (U+0000), no unpaired surrogate.",
      },
    },
  },
  ListTodosOutputBody: {
    type: "object",
    additionalProperties: false,
    required: ["todos"],
    properties: {
      $schema: schemaProperty("ListTodosOutputBody"),
      todos: {
        type: "array",
        nullable: true,
        items: { $ref: "#/components/schemas/Todo" },
        description: "The page, oldest first.",
      },
      nextCursor: { type: "string", description: "Opaque; omitted on the last page." },
    },
  },
  CreateKeyInputBody: {
    type: "object",
    additionalProperties: false,
    required: ["subject", "roles"],
    properties: {
      $schema: schemaProperty("CreateKeyInputBody"),
      subject: {
        type: "string",
        minLength: LIMITS.subjectMin,
        maxLength: LIMITS.subjectMax,
        pattern: STORABLE_TEXT_PATTERN,
        description: "Who the key belongs to; todos it creates belong to this subject.",
      },
      roles: {
        type: "array",
        minItems: LIMITS.rolesMin,
        maxItems: LIMITS.rolesMax,
        items: { type: "string", pattern: ROLE_PATTERN },
        description: "`user` (its own todos) and/or `admin` (every todo, and keys).",
      },
      expiresAt: {
        type: "string",
        format: "date-time",
        description: "When the key stops working; must be in the future. Omitted: never.",
      },
    },
  },
  ApiKey: keySchema("ApiKey", false),
  CreateKeyOutputBody: keySchema("CreateKeyOutputBody", true),
  ListKeysOutputBody: {
    type: "object",
    additionalProperties: false,
    required: ["keys"],
    properties: {
      $schema: schemaProperty("ListKeysOutputBody"),
      keys: {
        type: "array",
        nullable: true,
        items: { $ref: "#/components/schemas/ApiKey" },
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
      $schema: schemaProperty("ErrorModel"),
      type: { type: "string", format: "uri", default: "about:blank" },
      title: { type: "string", example: STATUS_TEXT[422] },
      status: { type: "integer", format: "int64", example: 422 },
      detail: { type: "string", example: "validation failed" },
      instance: { type: "string", format: "uri" },
      errors: {
        type: "array",
        nullable: true,
        items: { $ref: "#/components/schemas/ErrorDetail" },
      },
    },
  },
};

/** A key as an admin sees it; `withSecret` adds the key itself (create's answer, shown once). */
function keySchema(name: string, withSecret: boolean): Record<string, unknown> {
  const required = ["id", "subject", "roles", "status", "createdAt", "digestPrefix"];
  return {
    type: "object",
    additionalProperties: false,
    required: withSecret ? [...required, "key"] : required,
    properties: {
      $schema: schemaProperty(name),
      id: { type: "string", format: "uuid" },
      ...(withSecret
        ? {
          key: {
            type: "string",
            description: "The API key. Shown only in this answer: store it now.",
          },
        }
        : {}),
      subject: { type: "string" },
      roles: { type: "array", items: { type: "string" } },
      status: { type: "string", enum: ["active", "revoked", "expired"] },
      createdAt: { type: "string", format: "date-time" },
      expiresAt: { type: "string", format: "date-time" },
      revokedAt: {
        type: "string",
        format: "date-time",
        description: "Kept from the first revoke.",
      },
      digestPrefix: {
        type: "string",
        pattern: "^[0-9a-f]{12}$",
        description: "The first 12 hex digits of the key's SHA-256: tells keys apart, finds none.",
      },
    },
  };
}

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
