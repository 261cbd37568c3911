import type { Handler } from "./handler.ts";
import type { Logger } from "../observe/log.ts";
import type { Router } from "./route.ts";
import { type Metrics, withHttpMetrics } from "../observe/metrics.ts";
import { PROBE_PATHS } from "./health.ts";
import { errorResponse, type HttpError } from "./problem.ts";
import { withErrors } from "./errors.ts";
import { withAccessLog } from "./access_log.ts";
import { clientIp } from "./client_ip.ts";
import { type CorsOptions, withCors } from "./cors.ts";
import { withRequestId } from "./request_id.ts";
import { withTimeout } from "./timeout.ts";
import { withValidTarget } from "./valid_target.ts";

/** A middleware: takes a handler, returns one that wraps it. */
export type Middleware = (handler: Handler) => Handler;

/** Options of {@linkcode withDefaultStack}. */
export interface DefaultStackOptions {
  /** Receives the access log and the detail of unexpected errors. */
  logger: Logger;
  /** Counts and times requests per route label; omitted means no HTTP metrics. */
  metrics?: Metrics;
  /** Bound on the time to the response head (503 `request_timeout`); 0 disables. @default 15000 */
  requestTimeoutMs?: number;
  /** Renders anything thrown. @default the kit's problem response, `instance` = path */
  renderError?: (req: Request, err: unknown) => Response | Promise<Response>;
  /**
   * Renders the 400 `invalid_host` of a request whose URL cannot be parsed (the router never sees
   * it, so `renderError`, which may ask the router for the path, is not used).
   * @default the kit's problem response
   */
  renderInvalidTarget?: (req: Request, err: HttpError) => Response | Promise<Response>;
  /**
   * Writes the kit's access log (`request` records with path, route, status, duration, remote).
   * Off for a service whose contract forbids logging paths or client addresses and that writes its
   * own request records. @default {true}
   */
  accessLog?: boolean;
  /** CORS; omitted means no CORS headers at all. */
  cors?: CorsOptions;
  /**
   * Header naming the client address behind a trusted proxy (e.g. `X-Real-IP`): the access log's
   * `remote` comes from it, as rate limiting's client IP does. @default the TCP peer
   */
  trustedProxyHeader?: string;
  /** Paths kept out of the access log. @default {PROBE_PATHS} */
  quietPaths?: ReadonlySet<string>;
  /** Wraps just inside CORS, outside metrics and the access log (e.g. tracing). */
  outer?: Middleware;
  /** Wraps inside the error boundary, outside the timeout (e.g. rate limiting). */
  inner?: Middleware;
}

/**
 * The HTTP stack every service puts around its route table, outermost first: request id, a 400
 * for unparseable targets (`withValidTarget`: an invalid `Host` header), CORS
 * (when configured), `outer`, metrics (when given), access log (unless switched off), error →
 * problem, `inner`, request timeout (unless 0), then the table. Metrics, the access log and
 * `outer` read the route label from the table, which matches each request once.
 *
 * @example Usage
 * ```ts
 * import { createRouter, localInfo, withDefaultStack } from "@svc/shared/http";
 * import { createLogger } from "@svc/shared/log";
 * import { createMetrics } from "@svc/shared/metrics";
 * import assert from "node:assert/strict";
 *
 * const router = createRouter([ { method: "GET", pattern: "/hello/:name", handler: (_req, ctx) =>
 * new Response(ctx.params.name) }, ]); const handler = withDefaultStack(router, { logger:
 * createLogger({ write: () => {} }), metrics: createMetrics({ service: "demo" }), }); const res =
 * await handler(new Request("http://x/hello/ada", { method: "DELETE" }), localInfo());
 * assert.equal(res.status, 405); assert.equal(res.headers.get("allow"), "GET, HEAD");
 * assert.ok(res.headers.get("x-request-id"));
 * ```
 */
export function withDefaultStack(router: Router, options: DefaultStackOptions): Handler {
  const { logger, metrics, requestTimeoutMs = 15_000, quietPaths = PROBE_PATHS } = options;
  const render = options.renderError ??
    ((req: Request, err: unknown) =>
      errorResponse(err, { logger, instance: router.match(req).url.pathname }));
  let h: Handler = withTimeout(router.handler, { ms: requestTimeoutMs });
  if (options.inner) h = options.inner(h);
  h = withErrors(h, { render });
  if (options.accessLog ?? true) {
    h = withAccessLog(h, {
      logger,
      skip: (path) => quietPaths.has(path),
      route: router.routeOf,
      url: (req) => router.match(req).url,
      remote: options.trustedProxyHeader
        ? (req, info) => clientIp(req, info, { trustedHeader: options.trustedProxyHeader })
        : undefined,
    });
  }
  if (metrics) h = withHttpMetrics(h, metrics, { route: router.routeOf });
  if (options.outer) h = options.outer(h);
  if (options.cors) h = withCors(h, options.cors);
  // The table's match parses the URL (and keeps it for every layer): the target check uses it.
  const parses = (req: Request) => {
    try {
      router.match(req);
      return true;
    } catch {
      return false;
    }
  };
  return withRequestId(withValidTarget(h, { render: options.renderInvalidTarget, parses }));
}
