/**
 * The component schemas of the OpenAPI document, in the contract's words (docs/mock-oidc.md):
 * Problem, Clock state,
 * Mint request and response, Scenario, CapturedRequest, the Endpoint enum, and loose shapes for
 * the protocol responses whose fields the RFCs define.
 *
 * `openapi/` holds the OpenAPI document: component schemas, the operation builders each route
 * row uses, and the document assembled from the rows.
 * @module
 */
import { HEALTH_SCHEMA, READINESS_SCHEMA } from "@svc/shared/health";
import {
  FAULT_ENDPOINTS,
  FAULT_KINDS,
  MAX_FAULT_COUNT,
  MAX_FAULT_DELAY_MS,
} from "../protocol/fault_queue.ts";
import { ALGORITHMS } from "../keys/algorithms.ts";
import { MAX_NONCE_CHALLENGES } from "../protocol/dpop_challenges.ts";
import { MAX_GRACE_SECONDS, MAX_KID_LENGTH } from "../keys/key_ring.ts";

const stringArray = { type: "array", items: { type: "string" } };
const multiMap = { type: "object", additionalProperties: stringArray };
const anyObject = { type: "object", additionalProperties: true };

const FAULT_PROPERTIES = {
  issuer: { type: "string", description: "Issuer id it matches; any when absent" },
  endpoint: { type: "string", enum: [...FAULT_ENDPOINTS] },
  grantType: { type: "string", description: "Token requests of this grant_type only" },
  clientId: { type: "string", description: "Calls of this client only" },
  count: { type: "integer", minimum: 1, maximum: MAX_FAULT_COUNT, default: 1 },
  kind: { type: "string", enum: [...FAULT_KINDS] },
  error: { type: "string", description: "oauth_error: RFC 6749 error" },
  errorDescription: { type: "string", description: "oauth_error: error_description" },
  status: { type: "integer", minimum: 200, maximum: 599 },
  body: { type: "string", description: "http: the body" },
  contentType: { type: "string", description: "http: its content type" },
  delayMs: { type: "integer", minimum: 0, maximum: MAX_FAULT_DELAY_MS },
  malformed: { type: "string", enum: ["bad_json", "jwks_without_keys"] },
};

export const SCHEMAS = {
  ErrorDetail: {
    type: "object",
    additionalProperties: false,
    properties: {
      location: { type: "string", description: "Where the error occurred, e.g. body.duration" },
      message: { type: "string" },
      value: { description: "The offending value" },
    },
  },
  Problem: {
    type: "object",
    description: "RFC 9457 problem details (application/problem+json)",
    additionalProperties: false,
    required: ["status"],
    properties: {
      type: { type: "string", format: "uri", default: "about:blank" },
      title: { type: "string" },
      status: { type: "integer", format: "int64" },
      detail: { type: "string" },
      instance: { type: "string", format: "uri-reference" },
      errors: {
        type: "array",
        nullable: true,
        items: { $ref: "#/components/schemas/ErrorDetail" },
      },
    },
  },
  ClockState: {
    type: "object",
    additionalProperties: false,
    required: ["frozen", "now"],
    properties: { frozen: { type: "boolean" }, now: { type: "string", format: "date-time" } },
  },
  ClockUpdate: {
    type: "object",
    additionalProperties: false,
    required: ["frozen"],
    properties: {
      frozen: { type: "boolean" },
      instant: {
        type: "string",
        format: "date-time",
        description: "Required when frozen is true",
      },
    },
  },
  ClockAdvance: {
    type: "object",
    additionalProperties: false,
    required: ["duration"],
    properties: {
      duration: { type: "string", description: "Go duration such as 90s, 5m, 1h1m", example: "5m" },
    },
  },
  MintRequest: {
    type: "object",
    additionalProperties: false,
    required: ["issuer"],
    properties: {
      issuer: {
        type: "string",
        default: "default",
        description: "Issuer id (one or more path segments); the prefix _mock is reserved",
      },
      issuerUrl: { type: "string", description: "Overrides the iss claim" },
      subject: { type: "string", description: "sub claim; defaults to a random UUID" },
      audience: { ...stringArray, nullable: true, description: "aud claim; none when omitted" },
      scope: { ...stringArray, nullable: true },
      clientId: { type: "string", default: "default" },
      kind: { type: "string", enum: ["access_token", "id_token"], default: "access_token" },
      typ: { type: "string", default: "JWT", description: "JWS typ header; at+jwt accepted" },
      claims: anyObject,
      expirySeconds: { type: "integer", format: "int64", default: 3600 },
      kid: { type: "string", description: "Sign with this key of the issuer (/_mock/keys)" },
      algorithm: {
        type: "string",
        enum: [...ALGORITHMS],
        description: "Sign with a key of this algorithm (the active one first)",
      },
      dpopJwk: {
        ...anyObject,
        description: "Bind the access token to this public JWK (kty EC, RSA or OKP; private " +
          "members refused): cnf.jkt is its RFC 7638 thumbprint, tokenType DPoP",
      },
    },
  },
  MintResponse: {
    type: "object",
    additionalProperties: false,
    required: ["token", "kid", "algorithm", "issuer", "expiresAt", "claims", "tokenType"],
    properties: {
      token: { type: "string", description: "Compact signed JWS" },
      kid: { type: "string", description: "Equals the issuer id" },
      algorithm: { type: "string", example: "RS256" },
      issuer: { type: "string" },
      expiresAt: { type: "string", format: "date-time" },
      claims: anyObject,
      tokenType: { type: "string", enum: ["Bearer", "DPoP"], description: "DPoP with dpopJwk" },
      jkt: { type: "string", description: "cnf.jkt of a DPoP-bound token" },
    },
  },
  RequestMapping: {
    type: "object",
    additionalProperties: false,
    required: ["param", "match"],
    properties: {
      param: { type: "string", description: "Request parameter to match" },
      match: { type: "string", description: "* for any, an exact value, or a regular expression" },
      typeHeader: { type: "string" },
      claims: anyObject,
    },
  },
  Scenario: {
    type: "object",
    additionalProperties: false,
    required: ["issuer"],
    properties: {
      issuer: { type: "string" },
      subject: { type: "string" },
      audience: { ...stringArray, description: "An explicit empty list is honored" },
      claims: anyObject,
      typ: { type: "string" },
      expirySeconds: { type: "number" },
      requestMappings: { type: "array", items: { $ref: "#/components/schemas/RequestMapping" } },
    },
  },
  ScenarioEnqueued: {
    type: "object",
    additionalProperties: false,
    required: ["scenarioId", "queueDepth"],
    properties: { scenarioId: { type: "string" }, queueDepth: { type: "number" } },
  },
  ScenarioList: {
    type: "object",
    additionalProperties: false,
    required: ["queueDepth", "scenarios"],
    properties: {
      queueDepth: { type: "integer", format: "int64" },
      scenarios: {
        type: "array",
        nullable: true,
        items: {
          type: "object",
          additionalProperties: false,
          required: ["issuer", "kind"],
          properties: {
            issuer: { type: "string" },
            kind: { type: "string", enum: ["default", "requestMapping"] },
          },
        },
      },
    },
  },
  ScenariosFlushed: {
    type: "object",
    additionalProperties: false,
    required: ["queueDepth"],
    properties: { queueDepth: { type: "integer", format: "int64" } },
  },
  RequestLogVersion: {
    type: "object",
    additionalProperties: false,
    required: ["version", "count"],
    properties: {
      version: { type: "integer", format: "int64", description: "Changes of the log so far" },
      count: { type: "integer", format: "int64", description: "Entries in the log" },
    },
  },
  Endpoint: {
    type: "string",
    enum: ["authorize", "token", "userinfo", "introspect", "revoke", "endsession", "jwks"],
  },
  TakeRequest: {
    type: "object",
    additionalProperties: false,
    properties: {
      endpoint: { $ref: "#/components/schemas/Endpoint" },
      issuer: { type: "string" },
      timeoutMs: { type: "integer", format: "int64", default: 1000, minimum: 0, maximum: 3600000 },
    },
  },
  CapturedRequest: {
    type: "object",
    additionalProperties: false,
    required: ["id", "receivedAt", "issuer", "method", "path", "url"],
    properties: {
      id: { type: "string" },
      receivedAt: { type: "string", format: "date-time" },
      issuer: { type: "string" },
      method: { type: "string" },
      path: { type: "string" },
      url: { type: "string" },
      query: multiMap,
      headers: multiMap,
      bodyBase64: { type: "string", format: "byte", description: "Exact raw body bytes" },
      body: { type: "string", description: "Best-effort UTF-8 decode" },
      fault: { type: "string", description: "The id of the fault that answered it" },
      dpop: {
        type: "object",
        additionalProperties: false,
        required: ["verified"],
        description: "Its DPoP proof, once checked (token, userinfo, introspect, par)",
        properties: {
          jkt: { type: "string", description: "RFC 7638 thumbprint of the proof's jwk" },
          verified: { type: "boolean" },
          error: { type: "string", enum: ["invalid_dpop_proof", "use_dpop_nonce"] },
        },
      },
    },
  },
  CapturedRequestList: {
    type: "object",
    additionalProperties: false,
    required: ["count", "requests"],
    properties: {
      count: { type: "integer", format: "int64" },
      requests: {
        type: "array",
        nullable: true,
        items: { $ref: "#/components/schemas/CapturedRequest" },
      },
    },
  },
  RequestsCleared: {
    type: "object",
    additionalProperties: false,
    required: ["cleared"],
    properties: { cleared: { type: "boolean" } },
  },
  ResetResult: {
    type: "object",
    additionalProperties: false,
    required: ["reset"],
    properties: { reset: { type: "boolean" } },
  },
  Health: HEALTH_SCHEMA,
  Readiness: READINESS_SCHEMA,
  OAuthError: {
    type: "object",
    required: ["error"],
    properties: { error: { type: "string" }, error_description: { type: "string" } },
    additionalProperties: true,
  },
  Discovery: {
    type: "object",
    required: ["issuer", "authorization_endpoint", "token_endpoint", "jwks_uri"],
    properties: {
      issuer: { type: "string" },
      authorization_endpoint: { type: "string" },
      token_endpoint: { type: "string" },
      jwks_uri: { type: "string" },
      token_endpoint_auth_methods_supported: stringArray,
      token_endpoint_auth_signing_alg_values_supported: stringArray,
      dpop_signing_alg_values_supported: stringArray,
      request_object_signing_alg_values_supported: stringArray,
      pushed_authorization_request_endpoint: { type: "string" },
      require_pushed_authorization_requests: { type: "boolean" },
    },
    additionalProperties: true,
  },
  PushedAuthorizationResponse: {
    type: "object",
    required: ["request_uri", "expires_in"],
    properties: {
      request_uri: { type: "string", example: "urn:ietf:params:oauth:request_uri:…" },
      expires_in: { type: "integer" },
    },
    additionalProperties: false,
  },
  TokenResponse: {
    type: "object",
    required: ["access_token", "token_type"],
    properties: {
      access_token: { type: "string" },
      token_type: { type: "string" },
      expires_in: { type: "integer" },
      id_token: { type: "string" },
      refresh_token: { type: "string" },
      scope: { type: "string" },
    },
    additionalProperties: true,
  },
  ClientList: {
    type: "object",
    required: ["count", "clients"],
    properties: {
      count: { type: "integer" },
      clients: {
        type: "array",
        items: {
          type: "object",
          required: [
            "issuer",
            "clientId",
            "clientIdIssuedAt",
            "clientName",
            "tokenEndpointAuthMethod",
            "redirectUris",
            "grantTypes",
          ],
          properties: {
            issuer: { type: "string" },
            clientId: { type: "string" },
            clientIdIssuedAt: { type: "integer" },
            clientName: { type: "string", nullable: true },
            tokenEndpointAuthMethod: { type: "string" },
            redirectUris: { type: "array", items: { type: "string" } },
            grantTypes: { type: "array", items: { type: "string" } },
          },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
  IssuerSettingsRequest: {
    type: "object",
    required: ["issuer"],
    properties: {
      issuer: { type: "string", description: "Issuer id: one or more path segments" },
      trailingSlash: { type: "boolean", description: "The issuer URL ends in /" },
      discovery: { ...anyObject, description: "Fields added to or replacing discovery's" },
    },
    additionalProperties: false,
  },
  IssuerSettings: {
    type: "object",
    required: ["issuer", "source", "trailingSlash", "discovery"],
    properties: {
      issuer: { type: "string" },
      source: { type: "string", enum: ["config", "control"] },
      trailingSlash: { type: "boolean" },
      discovery: anyObject,
    },
    additionalProperties: false,
  },
  IssuerSettingsList: {
    type: "object",
    required: ["count", "issuers"],
    properties: {
      count: { type: "integer" },
      issuers: { type: "array", items: { $ref: "#/components/schemas/IssuerSettings" } },
    },
    additionalProperties: false,
  },
  IssuerSettingsCleared: {
    type: "object",
    required: ["count"],
    properties: { count: { type: "integer", minimum: 0 } },
    additionalProperties: false,
  },
  FaultRequest: {
    type: "object",
    required: ["endpoint", "kind"],
    properties: FAULT_PROPERTIES,
    additionalProperties: false,
  },
  Fault: {
    type: "object",
    required: ["faultId", "endpoint", "kind", "remaining"],
    properties: {
      faultId: { type: "string" },
      remaining: { type: "integer", minimum: 1 },
      ...FAULT_PROPERTIES,
    },
    additionalProperties: false,
  },
  FaultQueued: {
    type: "object",
    required: ["faultId", "remaining", "queued"],
    properties: {
      faultId: { type: "string" },
      remaining: { type: "integer" },
      queued: { type: "integer" },
    },
    additionalProperties: false,
  },
  FaultList: {
    type: "object",
    required: ["count", "faults"],
    properties: {
      count: { type: "integer" },
      faults: { type: "array", items: { $ref: "#/components/schemas/Fault" } },
    },
    additionalProperties: false,
  },
  NonceChallenge: {
    type: "object",
    required: ["issuer"],
    properties: {
      issuer: { type: "string", description: "Issuer id" },
      clientId: { type: "string", description: "Only this client's next token request" },
    },
    additionalProperties: false,
  },
  NonceChallengeAdded: {
    type: "object",
    required: ["issuer", "pending"],
    properties: {
      issuer: { type: "string" },
      clientId: { type: "string" },
      pending: { type: "integer", maximum: MAX_NONCE_CHALLENGES },
    },
    additionalProperties: false,
  },
  NonceChallengeList: {
    type: "object",
    required: ["count", "challenges"],
    properties: {
      count: { type: "integer" },
      challenges: { type: "array", items: { $ref: "#/components/schemas/NonceChallenge" } },
    },
    additionalProperties: false,
  },
  NonceChallengesCleared: {
    type: "object",
    required: ["count"],
    properties: { count: { type: "integer", enum: [0] } },
    additionalProperties: false,
  },
  FaultsCleared: {
    type: "object",
    required: ["count"],
    properties: { count: { type: "integer", enum: [0] } },
    additionalProperties: false,
  },
  KeyAdd: {
    type: "object",
    required: ["issuer"],
    properties: {
      issuer: { type: "string" },
      kid: { type: "string", maxLength: MAX_KID_LENGTH, description: "Default a random UUID" },
      algorithm: { type: "string", enum: [...ALGORITHMS] },
      activate: { type: "boolean", default: false },
    },
    additionalProperties: false,
  },
  KeyRef: {
    type: "object",
    required: ["issuer", "kid"],
    properties: { issuer: { type: "string" }, kid: { type: "string" } },
    additionalProperties: false,
  },
  KeyRetire: {
    type: "object",
    required: ["issuer", "kid", "graceSeconds"],
    properties: {
      issuer: { type: "string" },
      kid: { type: "string" },
      graceSeconds: { type: "integer", minimum: 0, maximum: MAX_GRACE_SECONDS },
    },
    additionalProperties: false,
  },
  SigningKey: {
    type: "object",
    required: ["kid", "algorithm", "status"],
    properties: {
      kid: { type: "string" },
      algorithm: { type: "string" },
      status: { type: "string", enum: ["active", "published", "retired"] },
      retiredUntil: { type: "string", format: "date-time" },
    },
    additionalProperties: false,
  },
  KeyList: {
    type: "object",
    required: ["issuer", "keys"],
    properties: {
      issuer: { type: "string" },
      keys: { type: "array", items: { $ref: "#/components/schemas/SigningKey" } },
    },
    additionalProperties: false,
  },
  ClientsCleared: {
    type: "object",
    required: ["count"],
    properties: { count: { type: "integer", enum: [0] } },
    additionalProperties: false,
  },
  ClientMetadata: {
    type: "object",
    properties: {
      redirect_uris: { type: "array", items: { type: "string" } },
      token_endpoint_auth_method: {
        type: "string",
        enum: ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"],
      },
      grant_types: { type: "array", items: { type: "string" } },
      response_types: { type: "array", items: { type: "string" } },
      client_name: { type: "string" },
      scope: { type: "string" },
    },
    additionalProperties: true,
  },
  ClientInformation: {
    type: "object",
    required: [
      "client_id",
      "client_id_issued_at",
      "registration_access_token",
      "registration_client_uri",
      "redirect_uris",
      "token_endpoint_auth_method",
      "grant_types",
      "response_types",
    ],
    properties: {
      client_id: { type: "string" },
      client_secret: { type: "string" },
      client_id_issued_at: { type: "integer" },
      client_secret_expires_at: { type: "integer" },
      registration_access_token: { type: "string" },
      registration_client_uri: { type: "string" },
      redirect_uris: { type: "array", items: { type: "string" } },
      token_endpoint_auth_method: { type: "string" },
      grant_types: { type: "array", items: { type: "string" } },
      response_types: { type: "array", items: { type: "string" } },
    },
    additionalProperties: true,
  },
  Introspection: {
    type: "object",
    required: ["active"],
    properties: {
      active: { type: "boolean" },
      token_type: { type: "string", enum: ["Bearer", "DPoP"] },
      cnf: { ...anyObject, description: "jkt of a DPoP-bound token" },
    },
    additionalProperties: true,
  },
  Jwks: {
    type: "object",
    required: ["keys"],
    properties: { keys: { type: "array", items: anyObject } },
  },
  Claims: anyObject,
} as const;
