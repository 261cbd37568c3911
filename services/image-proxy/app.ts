/**
 * The proxy's HTTP handler, on the kit's route table and stack: `/healthz`, `/readyz`, and every
 * other path an object read, GET and HEAD only. Around the kit's stack, the contract's own request
 * record: one `request completed` line per request once its body is over, and the HTTP metrics.
 *
 * Of the kit's stack the proxy keeps request ids, the invalid-`Host` 400, the error boundary and
 * the dispatch (405 with `Allow: GET, HEAD` from the table). It switches off, by the stack's
 * options: the access log (its records carry the path and the client address, which the proxy
 * must never log), the request timeout (storage is bounded by the idle timeouts
 * and has no whole-request timeout, nor a `request_timeout` code), CORS and the kit's Prometheus
 * metrics (not configured). Errors are drawn as `{code, request_id}`, not as problems. Why:
 * docs/image-proxy.md#no-request-timeout-no-cors-no-prometheus.
 *
 * @module
 */
import type { Handler, Route, RouteHandler } from "@svc/shared/http";
import {
  createContextKey,
  createRouter,
  ensureContext,
  getContext,
  requestIdOf,
  withDefaultStack,
} from "@svc/shared/http";
import type { Logger } from "@svc/shared/log";
import { errorBody, type ErrorCode, errorCodeOf, proxyError } from "./errors.ts";
import { permissionOf, StoreError } from "./store/errors.ts";
import { type ObjectAnswer, serveObject, type ServeObjectOptions } from "./object/serve_object.ts";
import { rawPathOf } from "./object/target.ts";
import type { FailoverStore, StoreName } from "./store/failover.ts";
import { methodLabel, NO_TELEMETRY, type RouteLabel, type Telemetry } from "./telemetry.ts";

/** Dependencies of {@linkcode createApp}. */
export interface AppDeps {
  objects: ServeObjectOptions;
  /** `/readyz` from the cached readiness probe. */
  readyz: (req: Request) => Response;
  /** Logger whose lines already carry `service.name`, `service.version`. */
  logger: Logger;
  telemetry?: Telemetry;
  /** Monotonic clock in ms. @default {performance.now} */
  now?: () => number;
}

const METHODS = ["GET", "HEAD"];
const ALLOW = METHODS.join(", ");

/** What the request record needs beyond the response, noted on the request by the handlers. */
const NOTE = createContextKey<{ done?: ObjectAnswer["done"]; code?: ErrorCode; store?: StoreName }>(
  "requestNote",
);
const noteOf = (req: Request) => ensureContext(req, NOTE, () => ({}));

function healthz(req: Request): Response {
  return new Response(req.method === "HEAD" ? null : JSON.stringify({ status: "ok" }), {
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

/**
 * The `http.route` label (docs/image-proxy.md#logs), from the raw target (`/a/../healthz` is an
 * object path).
 */
function routeOf(req: Request): RouteLabel {
  if (req.method !== "GET" && req.method !== "HEAD") return "unmatched";
  const path = rawPathOf(req.url);
  if (path === "/healthz") return "health";
  if (path === "/readyz") return "readiness";
  return "object";
}

/** The handlers of {@linkcode routes}' rows. */
export interface RouteHandlers {
  healthz: (req: Request) => Response;
  readyz: (req: Request) => Response;
  object: (req: Request) => Promise<Response>;
}

/**
 * The route table (docs/image-proxy.md#routes): the two probes, then every other path an object,
 * GET and HEAD only (anything else is 405 with `Allow: GET, HEAD`). The table matches the
 * normalised path (`new URL`); a probe answers only its exact raw target, so a path that merely
 * resolves to one (`/a/../healthz`) is an object path, and an invalid one.
 *
 * @example Usage
 * ```ts ignore
 * import { routes } from "./app.ts";
 * const router = createRouter(routes({ healthz, readyz, object }));
 * ```
 */
export function routes({ healthz, readyz, object }: RouteHandlers): Route[] {
  const only = (path: string, probe: (req: Request) => Response): RouteHandler => (req) =>
    rawPathOf(req.url) === path ? probe(req) : object(req);
  return [
    { method: METHODS, pattern: "/healthz", label: "health", handler: only("/healthz", healthz) },
    { method: METHODS, pattern: "/readyz", label: "readiness", handler: only("/readyz", readyz) },
    { method: METHODS, pattern: "/*", label: "object", handler: object },
  ];
}

/**
 * Creates the proxy's handler.
 *
 * @example Usage
 * ```ts ignore
 * import { createApp } from "./app.ts";
 * Deno.serve(createApp({ objects, readyz: probe.handler, logger }));
 * ```
 */
export function createApp(deps: AppDeps): Handler {
  const { objects, readyz, telemetry = NO_TELEMETRY } = deps;
  const logger = deps.logger.child({ component: "http" });
  const now = deps.now ?? (() => performance.now());

  const failover = "forRequest" in objects.store ? (objects.store as FailoverStore) : undefined;
  async function object(req: Request): Promise<Response> {
    if (!failover) {
      const { response, done } = await serveObject(req, objects);
      noteOf(req).done = done;
      return response;
    }
    // One store per request (never bytes of two); the record says which one answered.
    const store = failover.forRequest();
    try {
      const { response, done } = await serveObject(req, { ...objects, store });
      noteOf(req).done = done;
      return response;
    } finally {
      noteOf(req).store = store.answered;
    }
  }
  const router = createRouter(routes({ healthz, readyz, object }), {
    methodNotAllowed: () => {
      throw proxyError("method_not_allowed", "Cannot serve request: method not allowed", {
        headers: { Allow: ALLOW },
      });
    },
  });

  function render(req: Request, err: unknown): Response {
    const code = errorCodeOf(err);
    noteOf(req).code = code;
    if (code === "internal_failure") {
      // The name only: messages of unexpected errors may quote the object key.
      const permission = permissionOf(err);
      logger.error("request failed", {
        "error.type": errorName(err),
        ...(permission && { permission }),
      });
    }
    return errorBody(err, { requestId: requestIdOf(req), head: req.method === "HEAD" });
  }

  const stack = withDefaultStack(router, {
    logger,
    accessLog: false,
    requestTimeoutMs: 0,
    renderError: render,
    renderInvalidTarget: (req) =>
      render(req, proxyError("invalid_input", "Cannot route request: the Host header is invalid")),
  });

  return async function recordRequest(req, info) {
    const start = now();
    telemetry.requestStarted();
    // Everything the record needs from the request is read now: once the response is over,
    // Deno closes the request, and reading it then throws (an HTTP/2 request's headers are not
    // even kept from an earlier read), which in a callback nobody awaits ended the process.
    const route = routeOf(req);
    const head = req.method === "HEAD";
    const method = methodLabel(req.method);
    const rangeRequested = req.headers.has("range");
    let response = await stack(req, info);
    const note = getContext(req, NOTE);
    let done = note?.done;
    if (!done) {
      // Not an object: a small body made whole here (health, readiness, an error), so the
      // record and the size histogram carry the bytes actually sent.
      const body = head || response.body === null
        ? null
        : new Uint8Array(await response.arrayBuffer());
      if (body) response = new Response(body, response);
      const size = body?.length ?? 0;
      done = info.completed.then(
        () => ({ bytes: size }),
        () => ({ bytes: 0, failure: "client_abort" as const }),
      );
    }
    done.then(({ bytes, failure }: { bytes: number; failure?: string }) => {
      const durationMs = now() - start;
      const record: Record<string, unknown> = {
        "request_id": requestIdOf(req),
        "http.request.method": method,
        "http.route": route,
        "http.response.status_code": response.status,
        "http.response.body.size": bytes,
        "range_requested": rangeRequested,
        "duration_ms": Math.round(durationMs * 1000) / 1000,
      };
      if (note?.store) record["imgproxy.store"] = note.store;
      const kind = failure ?? note?.code;
      if (kind) record["error.kind"] = kind;
      const level = route === "health" || route === "readiness" ? "debug" : "info";
      logger[level]("request completed", record);
      telemetry.requestEnded({
        method,
        route,
        status: response.status,
        durationS: durationMs / 1000,
        bodyBytes: bytes,
      });
    }).catch((err) => {
      // A record that cannot be written is reported, never left to end the process.
      logger.error("request record failed", {
        "request_id": requestIdOf(req),
        "error.type": errorName(err),
      });
    });
    return response;
  };
}

/** A loggable description: error names and storage codes, never messages (they may hold keys). */
function errorName(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error && parts.length < 4; e = e.cause) {
    parts.push(e instanceof StoreError ? `${e.name}(${e.code})` : e.name);
  }
  return parts.length ? parts.join(" < ") : typeof err;
}
