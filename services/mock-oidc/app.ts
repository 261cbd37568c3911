/**
 * The HTTP surface of mock-oidc: the route table (`routes.ts`) served on each listener — the API
 * (with the `/_mock` control plane co-located, on its own listener, or disabled), the dedicated
 * control listener, the metrics listener — inside the kit's default stack (request id, CORS,
 * tracing, metrics, access log, the one error boundary, rate limit, request timeout), with the
 * control token gate and the capture of protocol requests.
 *
 * @module
 */

import {
  clientIp,
  createRouter,
  type FallbackContext,
  type Handler,
  notFoundError,
  RateLimiter,
  type Route,
  type Router,
  withDefaultStack,
  withErrors,
  withRateLimit,
} from "@svc/shared/http";
import { lazyModuleAt } from "@svc/shared/lazy-module";
import type { Logger } from "@svc/shared/log";
import type { Metrics } from "@svc/shared/metrics";
import { metricsRoute } from "@svc/shared/operational";
import { HttpError } from "@svc/shared/problem";
import type { Tracing } from "@svc/shared/tracing";
import {
  captureInProcess,
  type ControlDeps,
  controlMethodNotAllowed,
  controlPlaneElsewhere,
  disabledControlPlane,
  isControlPath,
  RequestLog,
  ScenarioQueue,
  withCapture,
  withControlGate,
  withTestingOnlyMarker,
} from "./control/mod.ts";
import type { Core } from "./provider_state.ts";
import { protocolMethodNotAllowed, protocolNotFound } from "./protocol/issuer_route.ts";
import { type RouteDeps, routeTable } from "./routes.ts";
import { countTokenIssued, createMockMetrics, type MockMetrics } from "./serving/mock_metrics.ts";

/** Behaviour from the flags (defaults suit in-process tests). */
export interface AppOptions {
  /** `--control-enabled`. @default true */
  controlEnabled?: boolean;
  /** `--control-token`; empty means no gate. */
  controlToken?: string;
  /** `--control-addr` is set: `/_mock` lives on its own listener and nothing is captured. */
  dedicatedControl?: boolean;
  /** `--metrics-addr` is empty: `/metrics` is served on the API listener. */
  metricsOnApi?: boolean;
  /** `--cors-allowed-origins`; empty reflects any Origin, with credentials (docs/mock-oidc.md). */
  corsAllowedOrigins?: string[];
  /** `--trusted-proxy-header`. */
  trustedProxyHeader?: string;
  /** `--rate-limit-*` when enabled. */
  rateLimit?: { rps: number; burst: number };
  /** `--request-timeout` in ms; 0 disables. @default 15000 */
  requestTimeoutMs?: number;
  /** JSON config `staticAssetsPath`. */
  staticAssetsPath?: string;
  /** The API listener's base URL, known once it listens (used by mint on a control listener). */
  apiOrigin?: () => string | undefined;
  /** Set with `--tracing-enabled`. */
  tracing?: Tracing;
  /** Service version for the OpenAPI document. @default "0.0.0" */
  version?: string;
  /** The lifecycle's shutdown-started signal: once aborted, `/readyz` reports `draining`. */
  shutdownSignal?: AbortSignal;
}

/** The process state shared by the control plane and the protocol side. */
export interface AppState {
  /** One-shot scenarios queued through `/_mock`. */
  scenarios: ScenarioQueue;
  /** Captured protocol requests. */
  requests: RequestLog;
  /** HTTP metrics of the kit. */
  metrics: Metrics;
  /** mock-oidc's own metrics. */
  mockMetrics: MockMetrics;
}

/** Dependencies of {@linkcode createApp}. */
export interface AppDeps {
  /** Clock, keys, tokens and protocol state. */
  core: Core;
  /** State shared by the control plane and the protocol side. */
  state: AppState;
  /** Gets access and error lines. */
  logger: Logger;
  /** Settings-derived options. */
  options?: AppOptions;
}

/** One handler per listener. */
export interface App {
  /** The API listener's handler. */
  api: Handler;
  /** Present when `/_mock` has its own listener. */
  control?: Handler;
  /** The dedicated metrics listener's handler. */
  metrics: Handler;
  /** The route label of a request (traces): the control table's for `/_mock` on its listener. */
  routeOf(req: Request): string;
  /** Every documented row, whatever the configuration serves (the OpenAPI document's source). */
  documentedRoutes: readonly Route[];
}

// Its builder and schemas load on the first /openapi.* request, not at start.
const openapiDoc = lazyModuleAt<typeof import("./openapi/openapi_doc.ts")>(
  import.meta.resolve("./openapi/openapi_doc.ts"),
);

/**
 * The scenario queue, request log and metrics; create them before the core (it reads the queue).
 */
export function createAppState(
  metrics: Metrics,
  options: { captureMaxBytes?: number } = {},
): AppState {
  const mockMetrics = createMockMetrics(metrics.registry);
  return {
    metrics,
    mockMetrics,
    scenarios: new ScenarioQueue({ onDepth: (n) => mockMetrics.scenarioQueueDepth.set(n) }),
    requests: new RequestLog({
      maxBytes: options.captureMaxBytes,
      onSize: (n) => mockMetrics.capturedRequests.set(n),
    }),
  };
}

/** Build the handlers of every listener. */
export function createApp(deps: AppDeps): App {
  const { core, state, logger } = deps;
  const options = deps.options ?? {};
  const controlEnabled = options.controlEnabled ?? true;
  const colocated = controlEnabled && !options.dedicatedControl;
  const version = options.version ?? "0.0.0";
  const control: ControlDeps = {
    clock: core.clock,
    tokens: core.tokens,
    scenarios: state.scenarios,
    requests: state.requests,
    clients: core.protocol.state.clients,
    issuerUrlOf: (req, issuerId) => core.protocol.issuers.urlOf(req, issuerId),
    issuers: core.protocol.issuers,
    faults: core.protocol.faults,
    dpopChallenges: core.protocol.state.dpopChallenges,
    keys: core.keys,
    controlToken: options.controlToken,
    apiOrigin: options.dedicatedControl ? options.apiOrigin : undefined,
    onMint: () => state.mockMetrics.tokensIssued.inc({ grant: "mint" }),
  };
  const table: RouteDeps = {
    protocol: {
      ...core.protocol,
      onTokenIssued: (grantType) => countTokenIssued(state.mockMetrics, grantType),
      // The debugger's own calls are logged where received requests are.
      captureInProcess: colocated ? captureInProcess({ log: state.requests }) : undefined,
    },
    control: controlEnabled ? control : undefined,
    // `/metrics` is served (and documented) on the API listener only without --metrics-addr.
    metrics: options.metricsOnApi ? state.metrics : undefined,
    staticRoot: options.staticAssetsPath || undefined,
    shutdownSignal: options.shutdownSignal,
    document: async (): Promise<object> =>
      (await openapiDoc()).openapiDocument(version, documentedRoutes),
  };
  // The document describes what this process serves: no `/_mock` when the control plane is off,
  // its rows when it has a listener of its own.
  const documentedRoutes = routeTable(table);
  const apiRoutes = colocated ? documentedRoutes : routeTable({
    ...table,
    control: undefined,
    controlElsewhere: controlEnabled ? controlPlaneElsewhere : disabledControlPlane,
  });
  const apiRouter = createRouter(apiRoutes, {
    notFound: protocolNotFound(),
    methodNotAllowed: apiMethodNotAllowed,
  });
  const controlRouter = controlEnabled && options.dedicatedControl
    ? createRouter(documentedRoutes.filter(servedOnControlListener), {
      notFound: (_req, ctx) => {
        throw notFoundError(ctx.url.pathname, "only /_mock/* is served here");
      },
      methodNotAllowed: controlMethodNotAllowed,
    })
    : undefined;

  const limiter = options.rateLimit ? new RateLimiter(options.rateLimit) : undefined;
  const stack = (router: Router, serves: { control: boolean; capture: boolean }): Handler => {
    // Gate and capture sit inside the request timeout, as the control plane's own work does.
    let inside = serves.control
      ? withControlGate(router.handler, options.controlToken)
      : router.handler;
    // Capture only when the log can be read on this listener.
    if (serves.capture) inside = withCapture(inside, { log: state.requests });
    const handler = withDefaultStack({ ...router, handler: inside }, {
      logger,
      metrics: state.metrics,
      requestTimeoutMs: options.requestTimeoutMs ?? 15_000,
      trustedProxyHeader: options.trustedProxyHeader,
      // An empty allowlist reflects any Origin, with credentials
      // (docs/mock-oidc.md#json-configuration).
      cors: {
        allowedOrigins: options.corsAllowedOrigins ?? [],
        reflectAnyOrigin: true,
        credentials: true,
        // what a browser client must read: DPoP nonces and challenges (RFC 9449 §8, §7.1)
        exposeHeaders: "DPoP-Nonce, WWW-Authenticate",
      },
      outer: options.tracing?.wrap,
      inner: limiter
        ? (h) =>
          withRateLimit(h, {
            limiter,
            clientIp: (req, info) =>
              clientIp(req, info, { trustedHeader: options.trustedProxyHeader }),
          })
        : undefined,
    });
    // Outermost, so preflights, timeouts and rate-limit answers on /_mock are marked too.
    return withTestingOnlyMarker(handler);
  };
  const metricsRouter = createRouter([metricsRoute(state.metrics)], {
    notFound: (_req, ctx) => {
      throw notFoundError(ctx.url.pathname, "only /metrics is served here");
    },
  });
  return {
    api: stack(apiRouter, { control: colocated, capture: colocated }),
    control: controlRouter && stack(controlRouter, { control: true, capture: false }),
    metrics: withErrors(metricsRouter.handler, { logger }),
    routeOf: (req) =>
      controlRouter && isControlPath(controlRouter.match(req).url.pathname)
        ? controlRouter.routeOf(req)
        : apiRouter.routeOf(req),
    documentedRoutes,
  };
}

/** The rows of a dedicated control listener: `/_mock` and the favicon. */
function servedOnControlListener(route: Route): boolean {
  return isControlPath(String(route.pattern)) || route.pattern === "/favicon.ico";
}

/** 405 in the control plane's words on `/_mock`, in the protocol's on issuer paths. */
function apiMethodNotAllowed(req: Request, ctx: FallbackContext): Response {
  if (isControlPath(ctx.url.pathname)) return controlMethodNotAllowed(req, ctx);
  if (ctx.route.startsWith("/{issuer}/") || ctx.route.startsWith("/.well-known/")) {
    return protocolMethodNotAllowed(req, ctx);
  }
  const allow = ctx.allow.join(", ");
  throw new HttpError(405, "method_not_allowed", `${req.method} is not allowed on this route`, {
    headers: { allow },
  });
}
