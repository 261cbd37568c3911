/**
 * mock-oidc's route table: every route of docs/mock-oidc.md, one row each, in dispatch order (the
 * first row whose path matches owns the path). Each row names its method, path, handler and
 * OpenAPI operation (`openapi/openapi_operations.ts`); a handler whose module loads on its first
 * request says so on its row (`onFirstUse`), and the compile task embeds those modules from these
 * declarations. `app.ts` serves the table on each listener; the OpenAPI document, the route
 * labels of metrics and logs, and 404/405 with `Allow` come from it.
 *
 * @module
 */
import { healthHandler, readinessHandler } from "@svc/shared/health";
import type { Route } from "@svc/shared/http";
import { lazyModuleAt, onFirstUse } from "@svc/shared/lazy-module";
import type { Metrics } from "@svc/shared/metrics";
import { operationalRoutes } from "@svc/shared/operational";
import {
  controlCatchAll,
  type ControlDeps,
  controlRoutes,
  disabledControlPlane,
  unknownControlPath,
} from "./control/mod.ts";
import { CONSOLE_PATH } from "./console/console_routes.ts";
import { newSessionKey } from "./debugger/session_key.ts";
import { OPERATIONAL_DOCS, OPERATIONS as OP } from "./openapi/openapi_operations.ts";
import type { ProtocolDeps } from "./protocol/deps.ts";
import { issuerRoutes } from "./protocol/issuer_route.ts";
// Not on first use: a start's first answer is often the JWKS (a few lines, nothing else imported),
// and loading a module by URL then costs more than having it in the start's graph.
import { handleJwks } from "./protocol/jwks.ts";
import { createStaticHandler } from "./serving/static_files.ts";

// Modules loaded on their first request, not at start (shared/lifecycle/lazy_module.ts): the
// control plane's handlers, each protocol endpoint (the token endpoint alone brings a dozen
// modules: client authentication and one per grant) and the debugger.
const control = lazyModuleAt<typeof import("./control/control_handlers.ts")>(
  import.meta.resolve("./control/control_handlers.ts"),
);
const discovery = lazyModuleAt<typeof import("./protocol/discovery.ts")>(
  import.meta.resolve("./protocol/discovery.ts"),
);
const authorize = lazyModuleAt<typeof import("./protocol/authorize.ts")>(
  import.meta.resolve("./protocol/authorize.ts"),
);
const token = lazyModuleAt<typeof import("./protocol/token.ts")>(
  import.meta.resolve("./protocol/token.ts"),
);
const userinfo = lazyModuleAt<typeof import("./protocol/userinfo.ts")>(
  import.meta.resolve("./protocol/userinfo.ts"),
);
const introspect = lazyModuleAt<typeof import("./protocol/introspect.ts")>(
  import.meta.resolve("./protocol/introspect.ts"),
);
const revoke = lazyModuleAt<typeof import("./protocol/revoke.ts")>(
  import.meta.resolve("./protocol/revoke.ts"),
);
const endSession = lazyModuleAt<typeof import("./protocol/endsession.ts")>(
  import.meta.resolve("./protocol/endsession.ts"),
);
const device = lazyModuleAt<typeof import("./protocol/device_authorization.ts")>(
  import.meta.resolve("./protocol/device_authorization.ts"),
);
const registration = lazyModuleAt<typeof import("./protocol/registration.ts")>(
  import.meta.resolve("./protocol/registration.ts"),
);
const par = lazyModuleAt<typeof import("./protocol/par.ts")>(
  import.meta.resolve("./protocol/par.ts"),
);
const debuggerPages = lazyModuleAt<typeof import("./debugger/routes.ts")>(
  import.meta.resolve("./debugger/routes.ts"),
);

/** What the rows answer with. */
export interface RouteDeps {
  /** The protocol endpoints'. The debugger's cookie key is made per table when absent. */
  protocol: ProtocolDeps;
  /** The control plane's; absent where this table does not serve `/_mock`. */
  control?: ControlDeps;
  /** What every `/_mock` path answers without `control`. @default disabledControlPlane */
  controlElsewhere?: (req: Request) => Response;
  /** Serves `/metrics` (when the API listener carries it). */
  metrics?: Metrics;
  /** `staticAssetsPath`: serves `/static/*` from there when set. */
  staticRoot?: string;
  /** The OpenAPI document of `/openapi.*` and `/docs`, built on the first request. */
  document: () => object | Promise<object>;
  /** The lifecycle's shutdown-started signal: `/readyz` turns `draining`. */
  shutdownSignal?: AbortSignal;
}

const READ = ["GET", "HEAD"] as const;

/** The route table (docs/mock-oidc.md#protocol-routes, #control-plane, #operational-routes). */
export function routeTable(deps: RouteDeps): Route[] {
  // One debugger cookie key per table: cookies never outlive the process.
  const issuer = issuerRoutes({
    ...deps.protocol,
    debuggerKey: deps.protocol.debuggerKey ?? newSessionKey(),
  });
  const mock = deps.control && controlRoutes(deps.control);
  // deno-fmt-ignore -- one row per line: the table reads as one
  return [
    // Operational: mock-oidc's liveness alias, then the kit's /healthz, /readyz, /metrics (when
    // served here), /docs and /openapi.{json,yaml} (its /favicon.ico gives way to upstream's).
    { method: READ, pattern: "/isalive", handler: () => healthHandler(), openapi: OP.isalive },
    ...operationalRoutes({
      readiness: readinessHandler({}, { shutdownSignal: deps.shutdownSignal }),
      metrics: deps.metrics,
      openapi: { document: deps.document, title: "mock-oidc" },
      docs: OPERATIONAL_DOCS,
    }).filter((r) => r.pattern !== "/favicon.ico"),
    // The /_mock control plane (its token gate is withControlGate, in app.ts); where it is not
    // served, only the catch-all rows, answering why.
    ...(mock ? [
      mock("GET",    "/_mock/clock",            onFirstUse(control, "getClock"),        OP.getClock),
      mock("PUT",    "/_mock/clock",            onFirstUse(control, "putClock"),        OP.setClock),
      mock("POST",   "/_mock/clock/advance",    onFirstUse(control, "advanceClock"),    OP.advanceClock),
      mock("POST",   "/_mock/mint",             onFirstUse(control, "mintToken"),       OP.mintToken),
      mock("POST",   "/_mock/scenarios",        onFirstUse(control, "enqueueScenario"), OP.enqueueScenario),
      mock("GET",    "/_mock/scenarios",        onFirstUse(control, "listScenarios"),   OP.listScenarios),
      mock("DELETE", "/_mock/scenarios",        onFirstUse(control, "flushScenarios"),  OP.flushScenarios),
      mock("GET",    "/_mock/requests",         onFirstUse(control, "listRequests"),    OP.listRequests),
      mock("DELETE", "/_mock/requests",         onFirstUse(control, "clearRequests"),   OP.clearRequests),
      mock("POST",   "/_mock/requests/take",    onFirstUse(control, "takeRequest"),     OP.takeRequest),
      mock("GET",    "/_mock/requests/changes", onFirstUse(control, "requestChanges"),  OP.requestChanges),
      mock("GET",    "/_mock/clients",          onFirstUse(control, "listClients"),     OP.listClients),
      mock("DELETE", "/_mock/clients",          onFirstUse(control, "clearClients"),    OP.clearClients),
      mock("GET",    "/_mock/issuers",          onFirstUse(control, "listIssuers"),     OP.listIssuers),
      mock("PUT",    "/_mock/issuers",          onFirstUse(control, "putIssuer"),       OP.putIssuer),
      mock("DELETE", "/_mock/issuers",          onFirstUse(control, "clearIssuers"),    OP.clearIssuers),
      mock("POST",   "/_mock/faults",           onFirstUse(control, "injectFault"),     OP.injectFault),
      mock("GET",    "/_mock/faults",           onFirstUse(control, "listFaults"),      OP.listFaults),
      mock("DELETE", "/_mock/faults",           onFirstUse(control, "clearFaults"),     OP.clearFaults),
      mock("POST",   "/_mock/dpop/nonce-challenge", onFirstUse(control, "addNonceChallenge"),    OP.addNonceChallenge),
      mock("GET",    "/_mock/dpop/nonce-challenge", onFirstUse(control, "listNonceChallenges"),  OP.listNonceChallenges),
      mock("DELETE", "/_mock/dpop/nonce-challenge", onFirstUse(control, "clearNonceChallenges"), OP.clearNonceChallenges),
      mock("GET",    "/_mock/keys",             onFirstUse(control, "listKeys"),        OP.listKeys),
      mock("POST",   "/_mock/keys",             onFirstUse(control, "addKey"),          OP.addKey),
      mock("POST",   "/_mock/keys/activate",    onFirstUse(control, "activateKey"),     OP.activateKey),
      mock("POST",   "/_mock/keys/retire",      onFirstUse(control, "retireKey"),       OP.retireKey),
      mock("POST",   "/_mock/reset",            onFirstUse(control, "resetMock"),       OP.reset),
      mock(READ,     CONSOLE_PATH,              onFirstUse(control, "consolePage"),     OP.console),
      ...controlCatchAll(unknownControlPath),
    ] : controlCatchAll(deps.controlElsewhere ?? disabledControlPlane)),
    // Files of `staticAssetsPath`, before the issuers: without one, `static` is an issuer id.
    ...(deps.staticRoot ? [staticFiles(deps.staticRoot)] : []),
    // RFC 8414's path-insertion form of the metadata document, first: `.well-known` is no issuer.
    issuer("GET",  "/.well-known/oauth-authorization-server/:issuer+", onFirstUse(discovery, "handleDiscovery"),           OP.authorizationServerMetadataRfc8414),
    // The protocol of each issuer: /{issuer}/…, the issuer one or more segments (`/realms/x/token`):
    // the first row whose endpoint suffix ends the path owns it (a GET row answers HEAD too).
    issuer("GET",  "/:issuer+/.well-known/openid-configuration",       onFirstUse(discovery, "handleDiscovery"),           OP.discovery),
    issuer("GET",  "/:issuer+/authorize",                              onFirstUse(authorize, "handleAuthorize"),           OP.authorize),
    issuer("POST", "/:issuer+/authorize",                              onFirstUse(authorize, "handleAuthorize"),           OP.authorizePost),
    issuer("POST", "/:issuer+/token",                                  onFirstUse(token, "handleToken"),                   OP.token),
    issuer("GET",  "/:issuer+/userinfo",                               onFirstUse(userinfo, "handleUserinfo"),             OP.userinfo),
    issuer("POST", "/:issuer+/userinfo",                               onFirstUse(userinfo, "handleUserinfo"),             OP.userinfoPost),
    issuer("POST", "/:issuer+/introspect",                             onFirstUse(introspect, "handleIntrospect"),         OP.introspect),
    issuer("POST", "/:issuer+/revoke",                                 onFirstUse(revoke, "handleRevoke"),                 OP.revoke),
    issuer("GET",  "/:issuer+/endsession",                             onFirstUse(endSession, "handleEndSession"),         OP.endsession),
    issuer("POST", "/:issuer+/endsession",                             onFirstUse(endSession, "handleEndSession"),         OP.endsessionPost),
    issuer("GET",  "/:issuer+/jwks",                                   handleJwks,                                         OP.jwks),
    issuer("GET",  "/:issuer+/.well-known/oauth-authorization-server", onFirstUse(discovery, "handleDiscovery"),           OP.authorizationServerMetadata),
    issuer("POST", "/:issuer+/device_authorization",                   onFirstUse(device, "handleDeviceAuthorization"),    OP.deviceAuthorization),
    issuer("GET",  "/:issuer+/device",                                 onFirstUse(device, "handleDeviceVerification"),     OP.deviceVerification),
    issuer("POST", "/:issuer+/device",                                 onFirstUse(device, "handleDeviceVerification"),     OP.deviceVerificationPost),
    issuer("POST", "/:issuer+/register",                               onFirstUse(registration, "handleRegister"),         OP.register),
    issuer("POST", "/:issuer+/par",                                    onFirstUse(par, "handlePushedRequest"),             OP.pushedAuthorizationRequest),
    // The debugger of each issuer: a form, then the code flow against the issuer itself.
    issuer("GET",  "/:issuer+/debugger",                               onFirstUse(debuggerPages, "showDebugger"),          OP.debugger),
    issuer("POST", "/:issuer+/debugger",                               onFirstUse(debuggerPages, "startDebugger"),         OP.debuggerStart),
    issuer("GET",  "/:issuer+/debugger/callback",                      onFirstUse(debuggerPages, "debuggerCallback"),      OP.debuggerCallback),
    issuer("POST", "/:issuer+/debugger/callback",                      onFirstUse(debuggerPages, "debuggerCallback"),      OP.debuggerCallbackPost),
    // RFC 7592's read path last: a fixed suffix wins (`/a/register/token` is issuer a/register's).
    issuer("GET",  "/:issuer+/register/:client",                       onFirstUse(registration, "handleReadRegistration"), OP.readRegistration),
    // The favicon, as upstream answers it.
    { method: READ, pattern: "/favicon.ico", handler: favicon, openapi: OP.favicon },
  ];
}

/** `/favicon.ico` answers as upstream's does: 200 with an empty body (browsers stop asking). */
function favicon(): Response {
  return new Response(null, { status: 200, headers: { "cache-control": "public, max-age=86400" } });
}

/** The `/static/*` row, serving `root`. */
function staticFiles(root: string): Route {
  const serve = createStaticHandler(root);
  return {
    method: READ,
    pattern: "/static/:path+",
    label: "/static/*",
    handler: (req) => serve(req),
    openapi: OP.staticFile,
  };
}
