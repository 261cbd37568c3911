/**
 * The OpenAPI operation of every row of the route table (`routes.ts`), by `operationId`, and the
 * builders they are made with; `openapi_doc.ts` assembles the rows' operations into the document.
 *
 * `openapi/` holds the OpenAPI document: component schemas, the operations of the route rows, and
 * the document assembled from the rows.
 * @module
 */
import { MAX_CHANGES_TIMEOUT_MS } from "../control/request_log.ts";
import type { SCHEMAS } from "./openapi_schemas.ts";

const ref = (name: keyof typeof SCHEMAS) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: keyof typeof SCHEMAS) => ({ "application/json": { schema: ref(name) } });
const ok = (name: keyof typeof SCHEMAS, description = "OK") => ({
  description,
  content: json(name),
});
export const problem = (description: string) => ({
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
  "415": { $ref: "#/components/responses/UnsupportedMediaType" },
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
    // Only enforced when the service runs with --control-token; the console sends Bearer.
    security: [{ controlToken: [] }, { controlBearer: [] }, {}],
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
    parameters: [{ $ref: "#/components/parameters/Issuer" }],
    ...(body ? { requestBody: { content: form } } : {}),
    responses: {
      "400": { description: "OAuth2 error", content: json("OAuthError") },
      // Reserved or unreachable issuer ids (any segment), on every protocol operation.
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

const TOKEN_401 = { description: "invalid_client", content: json("OAuthError") };
/** RFC 9449 §8: a server nonce, on answers of issuers (or challenges) that demand them. */
const NONCE_HEADER = {
  "DPoP-Nonce": {
    description: "The server nonce a DPoP proof must carry (RFC 9449 §8)",
    schema: { type: "string" },
  },
};
/** An answer of an operation that takes a DPoP proof: may name the server nonce. */
const withNonce = (response: Record<string, unknown>) => ({ ...response, headers: NONCE_HEADER });
/** A 400 of an endpoint that checks DPoP proofs (`invalid_dpop_proof`, `use_dpop_nonce`). */
const DPOP_400 = withNonce({
  description: "OAuth2 error, invalid_dpop_proof or use_dpop_nonce (with DPoP-Nonce)",
  content: json("OAuthError"),
});
const DPOP_USERINFO_401 = {
  description: "invalid_token, invalid_dpop_proof or use_dpop_nonce",
  headers: {
    "WWW-Authenticate": {
      description: "Bearer, or DPoP with error and algs (RFC 9449 §7.1)",
      schema: { type: "string" },
    },
    ...NONCE_HEADER,
  },
};

/** Adds the `DPoP` request header (RFC 9449 §4) to a protocol operation. */
function dpop<T extends { parameters: unknown[] }>(op: T): T {
  return { ...op, parameters: [...op.parameters, { $ref: "#/components/parameters/DPoP" }] };
}
const SIGNED_OUT = { description: "Signed out", content: html };
const PAGE = { description: "Debugger page", content: html };
const ERROR_PAGE = { description: "Debugger error page", content: html };
const READ_HEADERS = ["Host", "X-Forwarded-Host", "X-Forwarded-Port", "X-Forwarded-Proto"];

/** A debugger operation: a protocol one, tagged `debugger`, whose 400 is an error page. */
function debuggerOp(
  operationId: string,
  summary: string,
  responses: Record<string, unknown>,
  body = false,
): Record<string, unknown> {
  const op = protocol(operationId, summary, responses, body);
  return { ...op, tags: ["debugger"], responses: { ...op.responses, "400": ERROR_PAGE } };
}

/** The operation of each route row, by its `operationId` (docs/mock-oidc.md has the routes). */
export const OPERATIONS = {
  // Operational: mock-oidc's own rows (the kit's take theirs from OPERATIONAL_DOCS by path).
  isalive: OPERATIONAL_DOCS["/isalive"],
  favicon: {
    operationId: "favicon",
    summary: "Empty favicon, as upstream answers",
    tags: ["operational"],
    responses: { "200": { description: "Empty body" } },
  },
  staticFile: {
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
  // Control plane
  getClock: control("getClock", "Read the clock", { "200": ok("ClockState") }),
  setClock: control(
    "setClock",
    "Freeze at an instant or unfreeze",
    { "200": ok("ClockState") },
    "ClockUpdate",
  ),
  advanceClock: control(
    "advanceClock",
    "Freeze, then move forward",
    { "200": ok("ClockState") },
    "ClockAdvance",
  ),
  mintToken: {
    ...control("mintToken", "Mint a token like the token endpoint grants", {
      "200": ok("MintResponse"),
    }, "MintRequest"),
    parameters: READ_HEADERS.map((name) => ({
      name,
      in: "header",
      required: false,
      schema: { type: "string" },
    })),
  },
  enqueueScenario: control("enqueueScenario", "Enqueue a one-shot scenario", {
    "200": ok("ScenarioEnqueued"),
  }, "Scenario"),
  listScenarios: control("listScenarios", "List queued scenarios", { "200": ok("ScenarioList") }),
  flushScenarios: control("flushScenarios", "Flush the queue", { "200": ok("ScenariosFlushed") }),
  listRequests: {
    ...control("listRequests", "List captured requests", { "200": ok("CapturedRequestList") }),
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
  clearRequests: control("clearRequests", "Clear the request log", {
    "200": ok("RequestsCleared"),
  }),
  takeRequest: control(
    "takeRequest",
    "Remove and return the oldest matching request (long-poll)",
    { "200": ok("CapturedRequest") },
    "TakeRequest",
  ),
  requestChanges: {
    ...control("requestChanges", "Wait until the request log changes (non-destructive)", {
      "200": ok("RequestLogVersion"),
    }),
    parameters: [
      { name: "after", in: "query", required: false, schema: { type: "integer", minimum: 0 } },
      {
        name: "timeoutMs",
        in: "query",
        required: false,
        schema: { type: "integer", minimum: 0, maximum: MAX_CHANGES_TIMEOUT_MS, default: 0 },
      },
    ],
    responses: {
      "200": ok("RequestLogVersion"),
      ...CONTROL_ERRORS,
      "422": { $ref: "#/components/responses/ValidationFailed" },
    },
  },
  listClients: control("listClients", "List dynamically registered clients (no secrets)", {
    "200": ok("ClientList"),
  }),
  clearClients: control("clearClients", "Forget every registered client", {
    "200": ok("ClientsCleared"),
  }),
  listIssuers: control("listIssuers", "Per-issuer settings: configured and set here", {
    "200": ok("IssuerSettingsList"),
  }),
  putIssuer: control(
    "putIssuer",
    "Set one issuer's settings (trailing slash, discovery fields) until reset",
    { "200": ok("IssuerSettings"), "409": problem("Too many issuers with settings") },
    "IssuerSettingsRequest",
  ),
  clearIssuers: control("clearIssuers", "Drop the settings set here; configured ones apply", {
    "200": ok("IssuerSettingsCleared"),
  }),
  injectFault: control(
    "injectFault",
    "Queue a failure for the next N matching protocol calls",
    { "200": ok("FaultQueued"), "409": problem("Too many faults queued") },
    "FaultRequest",
  ),
  listFaults: control("listFaults", "The queued faults, oldest first", { "200": ok("FaultList") }),
  clearFaults: control("clearFaults", "Drop every queued fault", { "200": ok("FaultsCleared") }),
  addNonceChallenge: control(
    "addNonceChallenge",
    "Make the next DPoP token request of an issuer (or one client) demand a server nonce",
    { "200": ok("NonceChallengeAdded"), "409": problem("Too many nonce challenges wait") },
    "NonceChallenge",
  ),
  listNonceChallenges: control("listNonceChallenges", "The waiting nonce challenges", {
    "200": ok("NonceChallengeList"),
  }),
  clearNonceChallenges: control("clearNonceChallenges", "Drop every nonce challenge", {
    "200": ok("NonceChallengesCleared"),
  }),
  listKeys: {
    ...control("listKeys", "An issuer's signing keys, the active first", { "200": ok("KeyList") }),
    parameters: [{ name: "issuer", in: "query", required: true, schema: { type: "string" } }],
    responses: {
      "200": ok("KeyList"),
      ...CONTROL_ERRORS,
      "422": { $ref: "#/components/responses/ValidationFailed" },
    },
  },
  addKey: control(
    "addKey",
    "Add a signing key to an issuer (published; active when asked)",
    { "200": ok("SigningKey"), "409": problem("kid taken, or the issuer holds 10 keys") },
    "KeyAdd",
  ),
  activateKey: control(
    "activateKey",
    "Make a key the issuer's signing key",
    { "200": ok("SigningKey"), "409": problem("The key is retired") },
    "KeyRef",
  ),
  retireKey: control(
    "retireKey",
    "Retire a key: in the JWKS and verifying for graceSeconds, then gone",
    { "200": ok("SigningKey"), "409": problem("The key is the active one") },
    "KeyRetire",
  ),
  reset: control("reset", "Flush queue and log, unfreeze the clock; keys are kept", {
    "200": ok("ResetResult"),
  }),
  console: {
    operationId: "console",
    summary: "The control-plane console (HTML; its calls need the control token when set)",
    tags: ["control"],
    security: [],
    responses: {
      "200": { description: "The page", content: { "text/html": { schema: { type: "string" } } } },
    },
  },
  // Protocol
  discovery: protocol("discovery", "Discovery document", { "200": ok("Discovery") }),
  authorize: protocol("authorize", "Authorization endpoint", {
    "200": { description: "Login page", content: html },
    "302": redirect,
  }),
  authorizePost: protocol("authorizePost", "Authorization endpoint (form)", {
    "200": { description: "Login page or form_post", content: html },
    "302": redirect,
  }, true),
  token: dpop(protocol(
    "token",
    "Token endpoint; a DPoP proof binds the tokens to its key (token_type DPoP)",
    { "200": withNonce(ok("TokenResponse")), "400": DPOP_400, "401": TOKEN_401 },
    true,
  )),
  userinfo: dpop(protocol("userinfo", "Claims of a valid bearer or DPoP-bound token", {
    "200": ok("Claims"),
    "401": DPOP_USERINFO_401,
  })),
  userinfoPost: dpop(protocol("userinfoPost", "Claims of a valid bearer or DPoP token (POST)", {
    "200": ok("Claims"),
    "401": DPOP_USERINFO_401,
  }, true)),
  introspect: dpop(protocol("introspect", "Token introspection", {
    "200": ok("Introspection"),
    "400": DPOP_400,
    "401": TOKEN_401,
  }, true)),
  revoke: protocol("revoke", "Token revocation", { "200": { description: "Revoked" } }, true),
  endsession: protocol("endsession", "End session", { "200": SIGNED_OUT, "302": redirect }),
  endsessionPost: protocol("endsessionPost", "End session (form)", {
    "200": SIGNED_OUT,
    "302": redirect,
  }, true),
  jwks: protocol("jwks", "Public signing key of the issuer (kid = issuer id)", {
    "200": ok("Jwks"),
  }),
  authorizationServerMetadata: protocol(
    "authorizationServerMetadata",
    "OAuth 2.0 metadata (same document)",
    { "200": ok("Discovery") },
  ),
  pushedAuthorizationRequest: dpop(protocol(
    "pushedAuthorizationRequest",
    "Pushed authorization request (RFC 9126); a DPoP proof binds the code (dpop_jkt)",
    {
      "201": withNonce(ok("PushedAuthorizationResponse", "request_uri and expires_in")),
      "400": DPOP_400,
      "401": TOKEN_401,
    },
    true,
  )),
  deviceAuthorization: protocol("deviceAuthorization", "Device authorization (RFC 8628)", {
    "200": { description: "Device and user codes", content: json("Claims") },
    "401": TOKEN_401,
  }, true),
  deviceVerification: protocol("deviceVerification", "Device verification page", {
    "200": { description: "Verification page", content: html },
  }),
  deviceVerificationPost: protocol("deviceVerificationPost", "Device verification (form)", {
    "200": { description: "Verification result", content: html },
    "400": { description: "Unknown or expired code, or no username", content: html },
  }, true),
  register: {
    ...protocol("register", "Dynamic client registration (RFC 7591)", {
      "201": { description: "Registered", content: json("ClientInformation") },
      "413": { description: "Body over 1 MiB", content: json("OAuthError") },
    }),
    requestBody: {
      required: true,
      content: { "application/json": { schema: ref("ClientMetadata") } },
    },
  },
  readRegistration: {
    ...protocol("readRegistration", "Read a registration (RFC 7592)", {
      "200": ok("ClientInformation"),
      "401": { description: "invalid_token", content: json("OAuthError") },
    }),
    parameters: [
      { $ref: "#/components/parameters/Issuer" },
      { name: "client", in: "path", required: true, schema: { type: "string" } },
    ],
    security: [{ registrationAccessToken: [] }],
  },
  authorizationServerMetadataRfc8414: protocol(
    "authorizationServerMetadataRfc8414",
    "RFC 8414 path-insertion form",
    { "200": ok("Discovery") },
  ),
  // Debugger
  debugger: debuggerOp(
    "debugger",
    "Debugger form (upstream defaults; ?pkce=on, ?par=on, ?dpop=on tick those boxes)",
    { "200": PAGE },
  ),
  debuggerStart: debuggerOp(
    "debuggerStart",
    "Seal the parameters (and a DPoP key) in a cookie, push them with PAR when asked, go to authorize",
    { "302": redirect, "401": ERROR_PAGE },
    true,
  ),
  debuggerCallback: debuggerOp("debuggerCallback", "Redeem the code here, show the exchange", {
    "200": PAGE,
    "401": ERROR_PAGE,
  }),
  debuggerCallbackPost: debuggerOp("debuggerCallbackPost", "Callback of response_mode=form_post", {
    "200": PAGE,
    "401": ERROR_PAGE,
  }, true),
} satisfies Record<string, Record<string, unknown>>;
