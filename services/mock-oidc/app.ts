/**
 * Composes the HTTP surface of mock-oidc: the per-issuer protocol namespace, the `/_mock`
 * control plane (co-located, on its own listener, or disabled), `/static/*`, the operational
 * routes, and the cross-cutting wrappers (request id, CORS, tracing, metrics, access log,
 * errors, rate limit, request timeout).
 *
 * @module
 */

import {
  clientIp,
  type Handler,
  withAccessLog,
  withCors,
  withErrors,
  withRequestId,
  withTimeout,
} from "@svc/shared/http";
import type { Logger } from "@svc/shared/log";
import { type Metrics, metricsHandler, withHttpMetrics } from "@svc/shared/metrics";
import { errorResponse, HttpError } from "@svc/shared/problem";
import {
  controlPlaneElsewhere,
  createControlHandler,
  disabledControlPlane,
  RequestLog,
  ScenarioQueue,
  withCapture,
  withTestingOnlyMarker,
} from "./control/mod.ts";
import type { Core } from "./core.ts";
import { createApiRouter, createControlRouter } from "./ops/api_router.ts";
import { countTokenIssued, createMockMetrics, type MockMetrics } from "./ops/mock_metrics.ts";
import { createOperationalRoutes } from "./ops/operational_routes.ts";
import { RateLimiter, withRateLimit } from "@svc/shared/http";
import { routeTemplateOf } from "./ops/route_template.ts";
import { createStaticHandler } from "./ops/static_files.ts";
import type { Tracing } from "@svc/shared/tracing";
import { createProtocolHandler, issuerUrlOf } from "./protocol/router.ts";

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
  /** `--cors-allowed-origins`; empty reflects any Origin. */
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
}

/** The scenario queue, request log and metrics; create them before the core (it reads the queue). */
export function createAppState(metrics: Metrics): AppState {
  const mockMetrics = createMockMetrics(metrics.registry);
  return {
    metrics,
    mockMetrics,
    scenarios: new ScenarioQueue({ onDepth: (n) => mockMetrics.scenarioQueueDepth.set(n) }),
    requests: new RequestLog({ onSize: (n) => mockMetrics.capturedRequests.set(n) }),
  };
}

/** Build the handlers of every listener. */
export function createApp(deps: AppDeps): App {
  const { core, state, logger } = deps;
  const options = deps.options ?? {};
  const controlEnabled = options.controlEnabled ?? true;
  const control = controlEnabled
    ? createControlHandler({
      clock: core.clock,
      tokens: core.tokens,
      scenarios: state.scenarios,
      requests: state.requests,
      issuerUrlOf,
      controlToken: options.controlToken,
      apiOrigin: options.dedicatedControl ? options.apiOrigin : undefined,
      onMint: () => state.mockMetrics.tokensIssued.inc({ grant: "mint" }),
    })
    : undefined;
  const protocolHandler = createProtocolHandler({
    ...core.protocol,
    onTokenIssued: (grantType) => countTokenIssued(state.mockMetrics, grantType),
  });
  const protocol: Handler = (req) => protocolHandler(req);
  const colocated = control !== undefined && !options.dedicatedControl;
  const router = createApiRouter({
    // Capture only when the log can be read on this listener.
    protocol: colocated ? withCapture(protocol, { log: state.requests }) : protocol,
    control: colocated ? control : undefined,
    controlMissing: controlEnabled ? controlPlaneElsewhere : disabledControlPlane,
    staticFiles: options.staticAssetsPath
      ? createStaticHandler(options.staticAssetsPath)
      : undefined,
    operational: createOperationalRoutes({
      version: options.version ?? "0.0.0",
      metrics: options.metricsOnApi ? state.metrics : undefined,
    }),
  });
  const limiter = options.rateLimit ? new RateLimiter(options.rateLimit) : undefined;
  const wrap = (handler: Handler): Handler => {
    let h = withTimeout(handler, { ms: options.requestTimeoutMs ?? 15_000 });
    if (limiter) {
      h = withRateLimit(h, {
        limiter,
        clientIp: (req, info) => clientIp(req, info, { trustedHeader: options.trustedProxyHeader }),
      });
    }
    h = withErrors(h, { logger });
    h = withAccessLog(h, { logger, skip: (path) => UNLOGGED.has(path) });
    h = withHttpMetrics(h, state.metrics, {
      route: (req) => routeTemplateOf(new URL(req.url).pathname),
    });
    if (options.tracing) h = options.tracing.wrap(h);
    // The spec asks for any Origin with credentials when the allowlist is empty.
    h = withCors(h, {
      allowedOrigins: options.corsAllowedOrigins ?? [],
      reflectAnyOrigin: true,
      credentials: true,
    });
    // Outermost, so preflights, timeouts and rate-limit answers on /_mock are marked too.
    return withTestingOnlyMarker(withRequestId(h));
  };
  const serveMetrics = metricsHandler(state.metrics);
  return {
    api: wrap(router),
    control: control && options.dedicatedControl ? wrap(createControlRouter(control)) : undefined,
    metrics: (req, info) =>
      new URL(req.url).pathname === "/metrics"
        ? serveMetrics(req, info)
        : errorResponse(new HttpError(404, "not_found", "only /metrics is served here")),
  };
}

/** Probe and scrape routes stay out of the access log. */
const UNLOGGED = new Set(["/isalive", "/healthz", "/readyz", "/metrics"]);
