/**
 * The protocol rows of the route table: `/{issuer}/...` and
 * `/.well-known/oauth-authorization-server/{issuer}`, each with its methods and OpenAPI operation.
 * Issuer ids are one path segment, created on first touch; `_mock` is reserved; multi-segment
 * issuers get a clear 404. Protocol 404 and 405 answers are plain problems (no `instance`).
 *
 * @module
 */

import { type FallbackContext, notFoundError, type Route } from "@svc/shared/http";
import { errorResponse, problemResponse } from "@svc/shared/problem";
import type { Endpoint, EndpointHandler, IssuerContext, ProtocolDeps } from "./deps.ts";
import { issuerUrlOf } from "./issuer_url.ts";
import { issuerIdProblem, RESERVED_PREFIX } from "./issuer_id.ts";
import { OAuthError, oauthErrorResponse } from "./oauth_error.ts";
import { html, json, ok, protocol, redirect, ref } from "../openapi/openapi_operations.ts";
import { DEBUGGER_ENDPOINTS } from "../debugger/endpoints.ts";
import { newSessionKey } from "../debugger/session_key.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";

export { issuerUrlOf };

// Every endpoint's module loads on its first request, not with the table: a start-up reads only
// the rows (the token endpoint alone brings a dozen modules: client authentication and a module
// per grant).
const discovery = lazyModuleAt<typeof import("./discovery.ts")>(
  import.meta.resolve("./discovery.ts"),
);
const jwks = lazyModuleAt<typeof import("./jwks.ts")>(import.meta.resolve("./jwks.ts"));
const token = lazyModuleAt<typeof import("./token.ts")>(import.meta.resolve("./token.ts"));
const registration = lazyModuleAt<typeof import("./registration.ts")>(
  import.meta.resolve("./registration.ts"),
);
const authorize = lazyModuleAt<typeof import("./authorize.ts")>(
  import.meta.resolve("./authorize.ts"),
);
const device = lazyModuleAt<typeof import("./device_authorization.ts")>(
  import.meta.resolve("./device_authorization.ts"),
);
const endSession = lazyModuleAt<typeof import("./endsession.ts")>(
  import.meta.resolve("./endsession.ts"),
);
const introspect = lazyModuleAt<typeof import("./introspect.ts")>(
  import.meta.resolve("./introspect.ts"),
);
const revoke = lazyModuleAt<typeof import("./revoke.ts")>(import.meta.resolve("./revoke.ts"));
const userinfo = lazyModuleAt<typeof import("./userinfo.ts")>(
  import.meta.resolve("./userinfo.ts"),
);

/** A handler that loads its module on first use, then calls the handler `pick` names in it. */
function onFirstUse<M>(load: () => Promise<M>, pick: (m: M) => EndpointHandler): EndpointHandler {
  return async (ctx) => await pick(await load())(ctx);
}

const handleDiscovery = onFirstUse(discovery, (m) => m.handleDiscovery);
const handleJwks = onFirstUse(jwks, (m) => m.handleJwks);
const handleToken = onFirstUse(token, (m) => m.handleToken);
const handleRegister = onFirstUse(registration, (m) => m.handleRegister);
const handleReadRegistration = onFirstUse(registration, (m) => m.handleReadRegistration);
const handleAuthorize = onFirstUse(authorize, (m) => m.handleAuthorize);
const handleDeviceAuthorization = onFirstUse(device, (m) => m.handleDeviceAuthorization);
const handleDeviceVerification = onFirstUse(device, (m) => m.handleDeviceVerification);
const handleEndSession = onFirstUse(endSession, (m) => m.handleEndSession);
const handleIntrospect = onFirstUse(introspect, (m) => m.handleIntrospect);
const handleRevoke = onFirstUse(revoke, (m) => m.handleRevoke);
const handleUserinfo = onFirstUse(userinfo, (m) => m.handleUserinfo);

const TOKEN_401 = { description: "invalid_client", content: json("OAuthError") };
const USERINFO_401 = { description: "invalid_token" };
const SIGNED_OUT = { description: "Signed out", content: html };

/** The endpoints of an issuer namespace: one row per method (docs/mock-oidc.md#protocol-routes). */
const ENDPOINTS: readonly Endpoint[] = [
  {
    suffix: ".well-known/openid-configuration",
    method: "GET",
    handle: handleDiscovery,
    openapi: protocol("discovery", "Discovery document", { "200": ok("Discovery") }),
  },
  {
    suffix: "authorize",
    method: "GET",
    handle: handleAuthorize,
    openapi: protocol("authorize", "Authorization endpoint", {
      "200": { description: "Login page", content: html },
      "302": redirect,
    }),
  },
  {
    suffix: "authorize",
    method: "POST",
    handle: handleAuthorize,
    openapi: protocol("authorizePost", "Authorization endpoint (form)", {
      "200": { description: "Login page or form_post", content: html },
      "302": redirect,
    }, true),
  },
  {
    suffix: "token",
    method: "POST",
    handle: handleToken,
    openapi: protocol(
      "token",
      "Token endpoint",
      { "200": ok("TokenResponse"), "401": TOKEN_401 },
      true,
    ),
  },
  {
    suffix: "userinfo",
    method: "GET",
    handle: handleUserinfo,
    openapi: protocol("userinfo", "Claims of a valid bearer token", {
      "200": ok("Claims"),
      "401": USERINFO_401,
    }),
  },
  {
    suffix: "userinfo",
    method: "POST",
    handle: handleUserinfo,
    openapi: protocol("userinfoPost", "Claims of a valid bearer token (POST)", {
      "200": ok("Claims"),
      "401": USERINFO_401,
    }, true),
  },
  {
    suffix: "introspect",
    method: "POST",
    handle: handleIntrospect,
    openapi: protocol("introspect", "Token introspection", {
      "200": ok("Introspection"),
      "401": TOKEN_401,
    }, true),
  },
  {
    suffix: "revoke",
    method: "POST",
    handle: handleRevoke,
    openapi: protocol("revoke", "Token revocation", { "200": { description: "Revoked" } }, true),
  },
  {
    suffix: "endsession",
    method: "GET",
    handle: handleEndSession,
    openapi: protocol("endsession", "End session", { "200": SIGNED_OUT, "302": redirect }),
  },
  {
    suffix: "endsession",
    method: "POST",
    handle: handleEndSession,
    openapi: protocol("endsessionPost", "End session (form)", {
      "200": SIGNED_OUT,
      "302": redirect,
    }, true),
  },
  {
    suffix: "jwks",
    method: "GET",
    handle: handleJwks,
    openapi: protocol("jwks", "Public signing key of the issuer (kid = issuer id)", {
      "200": ok("Jwks"),
    }),
  },
  {
    suffix: ".well-known/oauth-authorization-server",
    method: "GET",
    handle: handleDiscovery,
    openapi: protocol("authorizationServerMetadata", "OAuth 2.0 metadata (same document)", {
      "200": ok("Discovery"),
    }),
  },
  {
    suffix: "device_authorization",
    method: "POST",
    handle: handleDeviceAuthorization,
    openapi: protocol("deviceAuthorization", "Device authorization (RFC 8628)", {
      "200": { description: "Device and user codes", content: json("Claims") },
      "401": TOKEN_401,
    }, true),
  },
  {
    suffix: "device",
    method: "GET",
    handle: handleDeviceVerification,
    openapi: protocol("deviceVerification", "Device verification page", {
      "200": { description: "Verification page", content: html },
    }),
  },
  {
    suffix: "device",
    method: "POST",
    handle: handleDeviceVerification,
    openapi: protocol("deviceVerificationPost", "Device verification (form)", {
      "200": { description: "Verification result", content: html },
      "400": { description: "Unknown or expired code, or no username", content: html },
    }, true),
  },
  {
    suffix: "register",
    method: "POST",
    handle: handleRegister,
    openapi: {
      ...protocol("register", "Dynamic client registration (RFC 7591)", {
        "201": { description: "Registered", content: json("ClientInformation") },
        "413": { description: "Body over 1 MiB", content: json("OAuthError") },
      }),
      requestBody: {
        required: true,
        content: { "application/json": { schema: ref("ClientMetadata") } },
      },
    },
  },
  {
    suffix: "register/:client",
    method: "GET",
    handle: handleReadRegistration,
    openapi: {
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
  },
  ...DEBUGGER_ENDPOINTS,
];

const RFC8414_PREFIX = "/.well-known/oauth-authorization-server/";
const MULTI_SEGMENT = "multi-segment issuer ids are not supported: an issuer is one path segment";
const NEEDS_ISSUER = "discovery needs an issuer: use /{issuer}/.well-known/openid-configuration";

/** Why an `:issuer` segment names no issuer, or the decoded id (rules: issuer_id.ts). */
function issuerOf(segment: string): { issuerId: string } | { error: string } {
  if (segment === ".well-known") return { error: NEEDS_ISSUER };
  if (segment.startsWith(RESERVED_PREFIX)) {
    return { error: `issuer ids starting with ${RESERVED_PREFIX} are reserved` };
  }
  let issuerId: string;
  try {
    issuerId = decodeURIComponent(segment);
  } catch {
    return { error: "issuer id is not valid percent-encoding" };
  }
  if (issuerId.includes("/")) return { error: MULTI_SEGMENT };
  const problem = issuerIdProblem(issuerId);
  return problem ? { error: `no such issuer: ${problem}` } : { issuerId };
}

// The kit's 404 of the problem dialect (the same body as every service's unknown path), with
// the reason when the path looks like a protocol path.
function notFound(path: string, why?: string): Response {
  return errorResponse(notFoundError(path, why), { instance: path });
}

/**
 * The protocol rows. OAuth errors become RFC 6749 JSON here; anything else is rethrown for the
 * app's error boundary (500 problem, logged).
 */
export function protocolRoutes(given: ProtocolDeps): Route[] {
  // One debugger cookie key per route table: cookies never outlive the process.
  const deps = { ...given, debuggerKey: given.debuggerKey ?? newSessionKey() };
  async function answer(req: Request, issuerSegment: string, endpoint: Endpoint) {
    const issuer = issuerOf(issuerSegment);
    if ("error" in issuer) return notFound(new URL(req.url).pathname, issuer.error);
    const ctx: IssuerContext = {
      req,
      issuerId: issuer.issuerId,
      issuerUrl: issuerUrlOf(req, issuer.issuerId),
      deps,
    };
    try {
      return await endpoint.handle(ctx);
    } catch (err) {
      if (err instanceof OAuthError) return oauthErrorResponse(err);
      throw err;
    }
  }
  const row = (pattern: string, endpoint: Endpoint): Route => ({
    // HEAD answers like GET without a body (RFC 9110 §9.3.2).
    method: endpoint.method === "GET" ? ["GET", "HEAD"] : endpoint.method,
    pattern,
    openapi: endpoint.openapi,
    handler: async (req, route) => {
      if (req.method !== "HEAD") return await answer(req, route.params.issuer!, endpoint);
      const get = new Request(req.url, { method: "GET", headers: req.headers });
      const res = await answer(get, route.params.issuer!, endpoint);
      await res.body?.cancel();
      return new Response(null, { status: res.status, headers: res.headers });
    },
  });
  const metadata = ENDPOINTS.find((e) => e.suffix === ".well-known/oauth-authorization-server")!;
  return [
    ...ENDPOINTS.map((endpoint) => row(`/:issuer/${endpoint.suffix}`, endpoint)),
    row(`${RFC8414_PREFIX}:issuer`, {
      ...metadata,
      openapi: protocol(
        "authorizationServerMetadataRfc8414",
        "RFC 8414 path-insertion form",
        { "200": ok("Discovery") },
      ),
    }),
  ];
}

/** The 404 of a path no row owns, naming why when it looks like a protocol path. */
export function protocolNotFound(_req: Request, ctx: FallbackContext): Response {
  const path = ctx.url.pathname;
  if (path.startsWith(RFC8414_PREFIX)) {
    const rest = path.slice(RFC8414_PREFIX.length);
    return notFound(path, rest === "" ? NEEDS_ISSUER : MULTI_SEGMENT);
  }
  const slash = path.indexOf("/", 1);
  if (slash < 0) return notFound(path);
  const issuerId = path.slice(1, slash);
  const rest = path.slice(slash + 1);
  if (issuerId === ".well-known" || issuerId === "") return notFound(path, NEEDS_ISSUER);
  if (ENDPOINTS.some((e) => rest.endsWith(`/${e.suffix}`))) return notFound(path, MULTI_SEGMENT);
  return notFound(path);
}

/** The protocol's 405: a plain problem with `Allow`. */
export function protocolMethodNotAllowed(req: Request, ctx: FallbackContext): Response {
  return problemResponse(
    { status: 405, detail: `${req.method} is not allowed here` },
    { headers: { Allow: ctx.allow.join(", ") } },
  );
}
