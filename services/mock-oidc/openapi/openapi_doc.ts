/**
 * The OpenAPI 3.0.3 document served at `/openapi.json`, `/openapi.yaml` and `/docs`. Its paths
 * come from the route table (every row carries its operation); `openapi_doc_test.ts` checks it
 * against the validator, the table and real responses.
 *
 * `openapi/` holds the OpenAPI document: component schemas, the operation builders each route
 * row uses, and the document assembled from the rows.
 * @module
 */
import { openapiPaths, type Route } from "@svc/shared/http";
import { SCHEMAS } from "./openapi_schemas.ts";
import { problem } from "./openapi_operations.ts";

/** Builds the document; `version` is the service version, `routes` every documented row. */
export function openapiDocument(version: string, routes: readonly Route[]) {
  return {
    openapi: "3.0.3",
    info: {
      title: "mock-oidc",
      version,
      description: "Test-only OpenID Connect / OAuth 2.0 provider with a /_mock control plane. " +
        "Never expose it on a production surface.",
    },
    tags: [
      { name: "control" },
      { name: "protocol" },
      { name: "debugger" },
      { name: "operational" },
    ],
    paths: openapiPaths(routes),
    components: {
      schemas: SCHEMAS,
      parameters: {
        Issuer: {
          name: "issuer",
          in: "path",
          required: true,
          description: "Issuer id: one or more path segments (at most 8, each at most 256 " +
            "characters), created on first touch",
          schema: { type: "string" },
        },
        DPoP: {
          name: "DPoP",
          in: "header",
          required: false,
          description: "A DPoP proof (RFC 9449 §4): a dpop+jwt JWS signed by the public jwk " +
            "in its header, with htm, htu, iat, jti (ath with an access token, nonce when one " +
            "is demanded)",
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
        UnsupportedMediaType: problem("A non-empty body that is not application/json"),
      },
      securitySchemes: {
        controlToken: { type: "apiKey", in: "header", name: "X-Mock-Control-Token" },
        controlBearer: { type: "http", scheme: "bearer" },
        registrationAccessToken: { type: "http", scheme: "bearer" },
      },
    },
  };
}
