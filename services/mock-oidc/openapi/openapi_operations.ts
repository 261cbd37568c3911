/**
 * Builders of the OpenAPI operation objects that the route-table rows carry (`openapi`), so
 * each row documents itself; `openapi_doc.ts` assembles them into the document.
 *
 * `openapi/` holds the OpenAPI document: component schemas, the operation builders each route
 * row uses, and the document assembled from the rows.
 * @module
 */
import type { SCHEMAS } from "./openapi_schemas.ts";

export const ref = (name: keyof typeof SCHEMAS) => ({ $ref: `#/components/schemas/${name}` });
export const json = (name: keyof typeof SCHEMAS) => ({ "application/json": { schema: ref(name) } });
export const ok = (name: keyof typeof SCHEMAS, description = "OK") => ({
  description,
  content: json(name),
});
export const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ref("Problem") } },
});
const form = { "application/x-www-form-urlencoded": { schema: { type: "object" } } };
export const html = { "text/html": { schema: { type: "string" } } };
export const redirect = {
  description: "Redirect to the client",
  headers: { Location: { schema: { type: "string" } } },
};

/** Problems any control route can answer. */
export const CONTROL_ERRORS = {
  "401": { $ref: "#/components/responses/Unauthorized" },
  "404": { $ref: "#/components/responses/NotFound" },
  "429": { $ref: "#/components/responses/TooManyRequests" },
  "503": { $ref: "#/components/responses/RequestTimeout" },
};
const BODY_ERRORS = {
  "400": { $ref: "#/components/responses/MalformedJson" },
  "413": { $ref: "#/components/responses/BodyTooLarge" },
  "415": { $ref: "#/components/responses/UnsupportedMediaType" },
  "422": { $ref: "#/components/responses/ValidationFailed" },
};

export function control(
  operationId: string,
  summary: string,
  responses: Record<string, unknown>,
  requestBody?: keyof typeof SCHEMAS,
) {
  return {
    operationId,
    summary,
    tags: ["control"],
    // Only enforced when the service runs with --control-token; the console sends Bearer.
    security: [{ controlToken: [] }, { controlBearer: [] }, {}],
    ...(requestBody
      ? { requestBody: { required: requestBody !== "TakeRequest", content: json(requestBody) } }
      : {}),
    responses: { ...responses, ...CONTROL_ERRORS, ...(requestBody ? BODY_ERRORS : {}) },
  };
}

export function protocol(
  operationId: string,
  summary: string,
  responses: Record<string, unknown>,
  body = false,
) {
  return {
    operationId,
    summary,
    tags: ["protocol"],
    parameters: [{ $ref: "#/components/parameters/Issuer" }],
    ...(body ? { requestBody: { content: form } } : {}),
    responses: {
      "400": { description: "OAuth2 error", content: json("OAuthError") },
      // Reserved, unreachable or multi-segment issuer ids, on every protocol operation.
      "404": problem("No such issuer"),
      ...(body ? { "413": { description: "Body over 1 MiB", content: json("OAuthError") } } : {}),
      ...responses,
    },
  };
}

function operational(operationId: string, summary: string, response: unknown) {
  return { operationId, summary, tags: ["operational"], responses: { "200": response } };
}

/** Operations of the operational routes, by path. */
export const OPERATIONAL_DOCS = {
  "/isalive": operational("isalive", "Liveness (alias of healthz)", ok("Health")),
  "/healthz": operational("healthz", "Liveness", ok("Health")),
  "/readyz": operational("readyz", "Readiness; always ready", ok("Readiness")),
  "/metrics": operational("metrics", "Prometheus text exposition", {
    description: "Metrics",
    content: { "text/plain": { schema: { type: "string" } } },
  }),
  "/docs": operational("docs", "Interactive API documentation", {
    description: "Swagger UI",
    content: html,
  }),
  "/openapi.json": operational("openapiJson", "This document as JSON", {
    description: "OpenAPI 3.0.3",
    content: { "application/json": { schema: { type: "object" } } },
  }),
  "/openapi.yaml": operational("openapiYaml", "This document as YAML", {
    description: "OpenAPI 3.0.3",
    content: { "application/yaml": { schema: { type: "string" } } },
  }),
};
