/**
 * The OpenAPI 3.0.3 description served at `/openapi.yaml` and `/openapi.json`. Every documented
 * response is one the app really sends (a test drives each route and compares).
 * @module
 */
import { HEALTH_SCHEMA, READINESS_SCHEMA } from "@svc/shared/health";
import { openapiPaths, type Route } from "@svc/shared/http";
import { LIMITS, SCHEMAS } from "./schemas.ts";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function problem(description: string) {
  return {
    description,
    headers: { Link: { $ref: "#/components/headers/DescribedBy" } },
    content: { "application/problem+json": { schema: ref("ErrorModel") } },
  };
}

function body(description: string, schema: string, extraHeaders: Record<string, unknown> = {}) {
  return {
    description,
    headers: { Link: { $ref: "#/components/headers/DescribedBy" }, ...extraHeaders },
    content: { "application/json": { schema: ref(schema) } },
  };
}

const AUTH_ERRORS = {
  "401": problem("Missing, malformed or unknown API key."),
  "403": problem("The key's roles do not permit this action."),
  "503": problem("The database schema is not migrated yet (see /readyz)."),
};

const ID = {
  name: "id",
  in: "path",
  required: true,
  description: "Todo id (uuid).",
  schema: { type: "string" },
};

/** `GET /v1/todos`. */
export const LIST_TODOS = {
  operationId: "list-todos",
  tags: ["todos"],
  summary: "List todos, oldest first",
  parameters: [
    {
      name: "limit",
      in: "query",
      description: "Page size.",
      schema: {
        type: "integer",
        format: "int64",
        minimum: LIMITS.limitMin,
        maximum: LIMITS.limitMax,
        default: LIMITS.limitDefault,
      },
    },
    {
      name: "cursor",
      in: "query",
      description: "A previous page's nextCursor; omit for the first page.",
      schema: { type: "string" },
    },
  ],
  responses: {
    "200": body("A page of todos.", "ListTodosOutputBody"),
    "400": problem("Invalid cursor."),
    ...AUTH_ERRORS,
    "422": problem("Invalid limit."),
    "500": problem("Internal error."),
  },
};

/** `POST /v1/todos`. */
export const CREATE_TODO = {
  operationId: "create-todo",
  tags: ["todos"],
  summary: "Create a todo",
  requestBody: {
    required: true,
    content: { "application/json": { schema: ref("CreateTodoInputBody") } },
  },
  responses: {
    "201": body("The new todo.", "Todo", {
      Location: { description: "URL of the new todo.", schema: { type: "string" } },
    }),
    "400": problem("Malformed JSON or empty body."),
    ...AUTH_ERRORS,
    "408": problem("The request body did not arrive in time."),
    "413": problem("Request body too large."),
    "415": problem("Content type is not JSON in UTF-8."),
    "422": problem("Validation failed."),
    "500": problem("Internal error."),
  },
};

/** `GET /v1/todos/{id}`. */
export const GET_TODO = {
  operationId: "get-todo",
  tags: ["todos"],
  summary: "Get a todo",
  parameters: [ID],
  responses: {
    "200": body("The todo.", "Todo"),
    ...AUTH_ERRORS,
    "404": problem("No such todo visible to this key."),
    "500": problem("Internal error."),
  },
};

/** `POST /v1/todos/{id}/complete`. */
export const COMPLETE_TODO = {
  operationId: "complete-todo",
  tags: ["todos"],
  summary: "Mark a todo completed (idempotent: keeps the first completedAt)",
  parameters: [ID],
  responses: {
    "200": body("The completed todo.", "Todo"),
    ...AUTH_ERRORS,
    "404": problem("No such todo visible to this key."),
    "500": problem("Internal error."),
  },
};

const KEY_ID = { ...ID, description: "Key id (uuid)." };

const ADMIN_ERRORS = {
  "401": problem("Missing, malformed, unknown, revoked or expired API key."),
  "403": problem("The key's roles do not permit this action (admin only)."),
  "503": problem("The database schema is not migrated yet (see /readyz)."),
};

/** `GET /v1/keys`. */
export const LIST_KEYS = {
  operationId: "list-keys",
  tags: ["keys"],
  summary: "List API keys, oldest first (admin); never a key or its full digest",
  parameters: LIST_TODOS.parameters,
  responses: {
    "200": body("A page of keys.", "ListKeysOutputBody"),
    "400": problem("Invalid cursor."),
    ...ADMIN_ERRORS,
    "422": problem("Invalid limit."),
    "500": problem("Internal error."),
  },
};

/** `POST /v1/keys`. */
export const CREATE_KEY = {
  operationId: "create-key",
  tags: ["keys"],
  summary: "Create an API key (admin); the key is in this answer only",
  requestBody: {
    required: true,
    content: { "application/json": { schema: ref("CreateKeyInputBody") } },
  },
  responses: {
    "201": body("The new key, with the secret shown once.", "CreateKeyOutputBody", {
      Location: { description: "URL of the new key's record.", schema: { type: "string" } },
    }),
    "400": problem("Malformed JSON or empty body."),
    ...ADMIN_ERRORS,
    "408": problem("The request body did not arrive in time."),
    "413": problem("Request body too large."),
    "415": problem("Content type is not JSON in UTF-8."),
    "422": problem("Validation failed."),
    "500": problem("Internal error."),
  },
};

/** `GET /v1/keys/{id}`. */
export const GET_KEY = {
  operationId: "get-key",
  tags: ["keys"],
  summary: "Get an API key's record (admin); never the key or its full digest",
  parameters: [KEY_ID],
  responses: {
    "200": body("The key's record.", "ApiKey"),
    ...ADMIN_ERRORS,
    "404": problem("No such key."),
    "500": problem("Internal error."),
  },
};

/** `POST /v1/keys/{id}/revoke`. */
export const REVOKE_KEY = {
  operationId: "revoke-key",
  tags: ["keys"],
  summary: "Revoke an API key (admin; idempotent: keeps the first revokedAt)",
  description: "In force on the next request to this process (every worker). Other instances " +
    "on the same Postgres database hear it by LISTEN/NOTIFY; should that connection be down, " +
    "they stop accepting the key within their key cache TTL (--key-cache-ttl).",
  parameters: [KEY_ID],
  responses: {
    "200": body("The revoked key's record.", "ApiKey"),
    ...ADMIN_ERRORS,
    "404": problem("No such key."),
    "500": problem("Internal error."),
  },
};

/** Operations of the documented operational routes, by path. */
export const OPERATIONAL_DOCS = {
  "/healthz": {
    operationId: "healthz",
    summary: "Liveness; never touches the datastore",
    security: [],
    responses: {
      "200": {
        description: "Alive.",
        content: { "application/json": { schema: ref("Health") } },
      },
    },
  },
  "/readyz": {
    operationId: "readyz",
    summary: "Readiness: checks datastore and migrations",
    security: [],
    responses: {
      "200": {
        description: "Ready.",
        content: { "application/json": { schema: ref("Readiness") } },
      },
      "503": {
        description: "Not ready; failing checks carry an error.",
        content: { "application/json": { schema: ref("Readiness") } },
      },
    },
  },
};

/**
 * Builds the document; `version` is the service version, `routes` the route table whose
 * documented rows become `paths`.
 */
export function openapiDocument(
  version: string,
  routes: readonly Route[],
): Record<string, unknown> {
  return {
    openapi: "3.0.3",
    info: {
      title: "todo-api",
      version,
      description: "Todos with API-key authorization. A `user` key sees and changes only the " +
        "todos it created; an `admin` key sees all. Lists are keyset-paginated, oldest first.",
    },
    servers: [{ url: "/" }],
    security: [{ apiKey: [] }, { bearer: [] }],
    tags: [{ name: "todos" }, { name: "keys", description: "API keys; admin role only." }],
    paths: openapiPaths(routes),
    components: {
      schemas: {
        ...SCHEMAS,
        Health: HEALTH_SCHEMA,
        Readiness: READINESS_SCHEMA,
      },
      headers: {
        DescribedBy: {
          description: 'Link to the body\'s JSON Schema: </schemas/X.json>; rel="describedBy"',
          schema: { type: "string" },
        },
      },
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        bearer: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API key>" },
      },
    },
  };
}
