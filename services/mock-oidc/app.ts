/**
 * Composes the HTTP surface of mock-oidc: one route table per listener, built from the rows of
 * the operational routes, the `/_mock` control plane (co-located, on its own listener, or
 * disabled), `/static/*` and the per-issuer protocol namespace, inside the kit's default stack
 * (request id, CORS, tracing, metrics, access log, errors, rate limit, request timeout).
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
import type { Logger } from "@svc/shared/log";
import type { Metrics } from "@svc/shared/metrics";
import { metricsRoute } from "@svc/shared/operational";
import { HttpError } from "@svc/shared/problem";
import {
  type ControlDeps,
  controlMethodNotAllowed,
  controlMissingRoutes,
  controlPlaneElsewhere,
  controlRoutes,
  disabledControlPlane,
  isControlPath,
  RequestLog,
  ScenarioQueue,
  withCapture,
  withControlGate,
  withTestingOnlyMarker,
} from "./control/mod.ts";
import type { Core } from "./provider_state.ts";
import { countTokenIssued, createMockMetrics, type MockMetrics } from "./serving/mock_metrics.ts";
import { operationalRoutes } from "./serving/operational_routes.ts";
import { staticRoute } from "./serving/static_files.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";
import type { Tracing } from "@svc/shared/tracing";
import {
  issuerUrlOf,
  protocolMethodNotAllowed,
  protocolNotFound,
  protocolRoutes,
} from "./protocol/router.ts";

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

const openapiDoc = lazyModuleAt<typeof import("./openapi/openapi_doc.ts")>(
  import.meta.resolve("./openapi/openapi_doc.ts"),
);

/** `/favicon.ico` answers as upstream's does: 200 with an empty body (browsers stop asking). */
const FAVICON: Route = {
  method: ["GET", "HEAD"],
  pattern: "/favicon.ico",
  handler: () =>
    new Response(null, { status: 200, headers: { "cache-control": "public, max-age=86400" } }),
  openapi: {
    operationId: "favicon",
    summary: "Empty favicon, as upstream answers",
    tags: ["operational"],
    responses: { "200": { description: "Empty body" } },
  },
};

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
  const controlDeps: ControlDeps = {
    clock: core.clock,
    tokens: core.tokens,
    scenarios: state.scenarios,
    requests: state.requests,
    clients: core.protocol.state.clients,
    issuerUrlOf,
    controlToken: options.controlToken,
    apiOrigin: options.dedicatedControl ? options.apiOrigin : undefined,
    onMint: () => state.mockMetrics.tokensIssued.inc({ grant: "mint" }),
  };
  const control = controlRoutes(controlDeps);
  const protocol = protocolRoutes({
    ...core.protocol,
    onTokenIssued: (grantType) => countTokenIssued(state.mockMetrics, grantType),
  });
  const staticFiles = staticRoute(options.staticAssetsPath ?? "");
  const ops = (metrics?: Metrics): Route[] =>
    operationalRoutes({
      version: options.version ?? "0.0.0",
      metrics,
      shutdownSignal: options.shutdownSignal,
      // Its builder and schemas load on the first /openapi.* request, not at start.
      document: async (): Promise<object> =>
        (await openapiDoc()).openapiDocument(options.version ?? "0.0.0", documentedRoutes),
    });
  // The document describes what this process serves: no `/_mock` when the control plane is off.
  // `/metrics` is in it only when the API listener serves it (not with --metrics-addr), and
  // `/static/*` only with a static root (without one, `static` is an issuer id like any other).
  const documentedRoutes: Route[] = [
    ...ops(options.metricsOnApi ? state.metrics : undefined),
    ...(controlEnabled ? control : []),
    ...protocol,
    ...(options.staticAssetsPath ? [staticFiles] : []),
    FAVICON,
  ];

  const colocated = controlEnabled && !options.dedicatedControl;
  const apiRouter = createRouter([
    ...ops(options.metricsOnApi ? state.metrics : undefined),
    ...(colocated
      ? control
      : controlMissingRoutes(controlEnabled ? controlPlaneElsewhere : disabledControlPlane)),
    ...(options.staticAssetsPath ? [staticFiles] : []),
    FAVICON,
    ...protocol,
  ], { notFound: protocolNotFound, methodNotAllowed: apiMethodNotAllowed });
  const controlRouter = controlEnabled && options.dedicatedControl
    ? createRouter([...control, FAVICON], {
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
