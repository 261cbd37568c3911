/**
 * The OpenAPI 3.0.3 document served at `/openapi.json`, `/openapi.yaml` and `/docs`: every
 * control-plane, protocol and operational route. `openapi_doc_test.ts` checks it against the
 * validator and against real responses.
 * @module
 */
import { SCHEMAS } from "./openapi_schemas.ts";

const ref = (name: keyof typeof SCHEMAS) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: keyof typeof SCHEMAS) => ({ "application/json": { schema: ref(name) } });
const ok = (name: keyof typeof SCHEMAS, description = "OK") => ({
  description,
  content: json(name),
});
const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ref("Problem") } },
});
const form = { "application/x-www-form-urlencoded": { schema: { type: "object" } } };
const html = { "text/html": { schema: { type: "string" } } };
const redirect = {
  description: "Redirect to the client",
  headers: { Location: { schema: { type: "string" } } },
};

/** Problems any control route can answer. */
const CONTROL_ERRORS = {
  "401": { $ref: "#/components/responses/Unauthorized" },
  "404": { $ref: "#/components/responses/NotFound" },
  "429": { $ref: "#/components/responses/TooManyRequests" },
  "503": { $ref: "#/components/responses/RequestTimeout" },
};
const BODY_ERRORS = {
  "400": { $ref: "#/components/responses/MalformedJson" },
  "413": { $ref: "#/components/responses/BodyTooLarge" },
  "422": { $ref: "#/components/responses/ValidationFailed" },
};

function control(
  operationId: string,
  summary: string,
  responses: Record<string, unknown>,
  requestBody?: keyof typeof SCHEMAS,
) {
  return {
    operationId,
    summary,
    tags: ["control"],
    // Only enforced when the service runs with --control-token.
    security: [{ controlToken: [] }, {}],
    ...(requestBody
      ? { requestBody: { required: requestBody !== "TakeRequest", content: json(requestBody) } }
      : {}),
    responses: { ...responses, ...CONTROL_ERRORS, ...(requestBody ? BODY_ERRORS : {}) },
  };
}

function protocol(
  operationId: string,
  summary: string,
  responses: Record<string, unknown>,
  body = false,
) {
  return {
    operationId,
    summary,
    tags: ["protocol"],
    ...(body ? { requestBody: { content: form } } : {}),
    responses: {
      ...responses,
      "400": { description: "OAuth2 error", content: json("OAuthError") },
    },
  };
}

function operational(operationId: string, summary: string, response: unknown) {
  return { get: { operationId, summary, tags: ["operational"], responses: { "200": response } } };
}

const issuerParam = [{ $ref: "#/components/parameters/Issuer" }];

/** Builds the document; `version` is the service version. */
export function openapiDocument(version: string) {
  return {
    openapi: "3.0.3",
    info: {
      title: "mock-oidc",
      version,
      description: "Test-only OpenID Connect / OAuth 2.0 provider with a /_mock control plane. " +
        "Never expose it on a production surface.",
    },
    tags: [{ name: "control" }, { name: "protocol" }, { name: "operational" }],
    paths: {
      "/_mock/clock": {
        get: control("getClock", "Read the clock", { "200": ok("ClockState") }),
        put: control(
          "setClock",
          "Freeze at an instant or unfreeze",
          { "200": ok("ClockState") },
          "ClockUpdate",
        ),
      },
      "/_mock/clock/advance": {
        post: control(
          "advanceClock",
          "Freeze, then move forward",
          { "200": ok("ClockState") },
          "ClockAdvance",
        ),
      },
      "/_mock/mint": {
        post: {
          ...control("mintToken", "Mint a token like the token endpoint grants", {
            "200": ok("MintResponse"),
          }, "MintRequest"),
          parameters: ["Host", "X-Forwarded-Host", "X-Forwarded-Port", "X-Forwarded-Proto"].map((
            name,
          ) => ({
            name,
            in: "header",
            required: false,
            schema: { type: "string" },
          })),
        },
      },
      "/_mock/scenarios": {
        post: control("enqueueScenario", "Enqueue a one-shot scenario", {
          "200": ok("ScenarioEnqueued"),
        }, "Scenario"),
        get: control("listScenarios", "List queued scenarios", { "200": ok("ScenarioList") }),
        delete: control("flushScenarios", "Flush the queue", { "200": ok("ScenariosFlushed") }),
      },
      "/_mock/requests": {
        get: {
          ...control("listRequests", "List captured requests", {
            "200": ok("CapturedRequestList"),
          }),
          parameters: [
            { name: "issuer", in: "query", required: false, schema: { type: "string" } },
            { name: "endpoint", in: "query", required: false, schema: ref("Endpoint") },
          ],
          responses: {
            "200": ok("CapturedRequestList"),
            ...CONTROL_ERRORS,
            "422": { $ref: "#/components/responses/ValidationFailed" },
          },
        },
        delete: control("clearRequests", "Clear the request log", { "200": ok("RequestsCleared") }),
      },
      "/_mock/requests/take": {
        post: control("takeRequest", "Remove and return the oldest matching request (long-poll)", {
          "200": ok("CapturedRequest"),
        }, "TakeRequest"),
      },
      "/_mock/reset": {
        post: control("reset", "Flush queue and log, unfreeze the clock; keys are kept", {
          "200": ok("ResetResult"),
        }),
      },
      "/{issuer}/.well-known/openid-configuration": {
        parameters: issuerParam,
        get: protocol("discovery", "Discovery document", { "200": ok("Discovery") }),
      },
      "/{issuer}/authorize": {
        parameters: issuerParam,
        get: protocol("authorize", "Authorization endpoint", {
          "200": { description: "Login page", content: html },
          "302": redirect,
        }),
        post: protocol("authorizePost", "Authorization endpoint (form)", {
          "200": { description: "Login page or form_post", content: html },
          "302": redirect,
        }, true),
      },
      "/{issuer}/token": {
        parameters: issuerParam,
        post: protocol("token", "Token endpoint", {
          "200": ok("TokenResponse"),
          "401": { description: "invalid_client", content: json("OAuthError") },
        }, true),
      },
      "/{issuer}/userinfo": {
        parameters: issuerParam,
        get: protocol("userinfo", "Claims of a valid bearer token", {
          "200": ok("Claims"),
          "401": { description: "invalid_token" },
        }),
        post: protocol("userinfoPost", "Claims of a valid bearer token (POST)", {
          "200": ok("Claims"),
          "401": { description: "invalid_token" },
        }, true),
      },
      "/{issuer}/introspect": {
        parameters: issuerParam,
        post: protocol("introspect", "Token introspection", { "200": ok("Introspection") }, true),
      },
      "/{issuer}/revoke": {
        parameters: issuerParam,
        post: protocol("revoke", "Token revocation", { "200": { description: "Revoked" } }, true),
      },
      "/{issuer}/endsession": {
        parameters: issuerParam,
        get: protocol("endsession", "End session", {
          "200": { description: "Signed out", content: html },
          "302": redirect,
        }),
        post: protocol("endsessionPost", "End session (form)", {
          "200": { description: "Signed out", content: html },
          "302": redirect,
        }, true),
      },
      "/{issuer}/jwks": {
        parameters: issuerParam,
        get: protocol("jwks", "Public signing key of the issuer (kid = issuer id)", {
          "200": ok("Jwks"),
        }),
      },
      "/{issuer}/.well-known/oauth-authorization-server": {
        parameters: issuerParam,
        get: protocol("authorizationServerMetadata", "OAuth 2.0 metadata (same document)", {
          "200": ok("Discovery"),
        }),
      },
      "/.well-known/oauth-authorization-server/{issuer}": {
        parameters: issuerParam,
        get: protocol("authorizationServerMetadataRfc8414", "RFC 8414 path-insertion form", {
          "200": ok("Discovery"),
        }),
      },
      "/{issuer}/device_authorization": {
        parameters: issuerParam,
        post: protocol("deviceAuthorization", "Device authorization (RFC 8628)", {
          "200": { description: "Device and user codes", content: json("Claims") },
        }, true),
      },
      "/{issuer}/device": {
        parameters: issuerParam,
        get: protocol("deviceVerification", "Device verification page", {
          "200": { description: "Verification page", content: html },
        }),
        post: protocol("deviceVerificationPost", "Device verification (form)", {
          "200": { description: "Verification result", content: html },
        }, true),
      },
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
      "/static/{path}": {
        get: {
          operationId: "staticFile",
          summary: "A file under staticAssetsPath; no index, traversal and symlink escapes are 404",
          tags: ["operational"],
          parameters: [{ name: "path", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": {
              description: "File",
              content: { "*/*": { schema: { type: "string", format: "binary" } } },
            },
            "404": problem("No such file"),
          },
        },
      },
    },
    components: {
      schemas: SCHEMAS,
      parameters: {
        Issuer: {
          name: "issuer",
          in: "path",
          required: true,
          description: "Issuer id: one path segment, created on first touch",
          schema: { type: "string" },
        },
      },
      responses: {
        MalformedJson: problem("Malformed JSON body"),
        ValidationFailed: problem(
          "Body or query violates the schema; errors[] names each location",
        ),
        Unauthorized: problem("Missing or wrong X-Mock-Control-Token"),
        NotFound: problem("Control plane disabled, or take timed out"),
        TooManyRequests: {
          ...problem("Rate limit exceeded (--rate-limit-enabled)"),
          headers: { "Retry-After": { schema: { type: "integer" } } },
        },
        RequestTimeout: problem("The handler outlived --request-timeout"),
        BodyTooLarge: problem("Request body over 1 MiB"),
      },
      securitySchemes: {
        controlToken: { type: "apiKey", in: "header", name: "X-Mock-Control-Token" },
      },
    },
  };
}
