/**
 * The proxy's HTTP handler: `/healthz`, `/readyz`, and every other path an object read, GET and
 * HEAD only. Writes the `request completed` record of each request once its body is over.
 *
 * @module
 */
import type { Handler } from "@svc/shared/http";
import { requestIdOf, withRequestId } from "@svc/shared/http";
import type { Logger } from "@svc/shared/log";
import { errorBody, errorCodeOf, proxyError } from "./errors.ts";
import { serveObject, type ServeObjectOptions } from "./object/serve_object.ts";
import { rawPathOf } from "./object/target.ts";
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

const ALLOW = "GET, HEAD";

function healthz(req: Request): Response {
  return new Response(req.method === "HEAD" ? null : JSON.stringify({ status: "ok" }), {
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

function routeOf(req: Request): RouteLabel {
  if (req.method !== "GET" && req.method !== "HEAD") return "unmatched";
  const path = rawPathOf(req.url);
  if (path === "/healthz") return "health";
  if (path === "/readyz") return "readiness";
  return "object";
}

function sizeOf(res: Response, head: boolean): number {
  if (head || res.body === null) return 0;
  return Number(res.headers.get("content-length") ?? 0);
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

  async function respond(req: Request, route: RouteLabel) {
    const head = req.method === "HEAD";
    try {
      if (route === "unmatched") {
        throw proxyError("method_not_allowed", "Cannot serve request: method not allowed", {
          headers: { Allow: ALLOW },
        });
      }
      if (route === "health") return { response: healthz(req) };
      if (route === "readiness") return { response: readyz(req) };
      return await serveObject(req, objects);
    } catch (err) {
      const code = errorCodeOf(err);
      if (code === "internal_failure") {
        // The name only: messages of unexpected errors may quote the object key.
        logger.error("request failed", { "error.type": errorName(err) });
      }
      return { response: errorBody(err, { requestId: requestIdOf(req), head }), code };
    }
  }

  const handler: Handler = async (req, info) => {
    const start = now();
    telemetry.requestStarted();
    const route = routeOf(req);
    const head = req.method === "HEAD";
    const answer = await respond(req, route);
    const { response } = answer;
    const code = "code" in answer ? answer.code : undefined;
    const done = "done" in answer ? answer.done : info.completed.then(
      () => ({ bytes: sizeOf(response, head) }),
      () => ({ bytes: 0, failure: "client_abort" as const }),
    );
    done.then(({ bytes, failure }: { bytes: number; failure?: string }) => {
      const durationMs = now() - start;
      const record: Record<string, unknown> = {
        "request_id": requestIdOf(req),
        "http.request.method": methodLabel(req.method),
        "http.route": route,
        "http.response.status_code": response.status,
        "http.response.body.size": bytes,
        "range_requested": req.headers.has("range"),
        "duration_ms": Math.round(durationMs * 1000) / 1000,
      };
      const kind = failure ?? code;
      if (kind) record["error.kind"] = kind;
      const level = route === "health" || route === "readiness" ? "debug" : "info";
      logger[level]("request completed", record);
      telemetry.requestEnded({
        method: methodLabel(req.method),
        route,
        status: response.status,
        durationS: durationMs / 1000,
        bodyBytes: bytes,
      });
    });
    return response;
  };
  return withRequestId(handler);
}

/** A loggable description: error names and storage kinds, never messages (they may hold keys). */
function errorName(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error && parts.length < 4; e = e.cause) {
    const kind = (e as { kind?: unknown }).kind;
    parts.push(typeof kind === "string" ? `${e.name}(${kind})` : e.name);
  }
  return parts.length ? parts.join(" < ") : typeof err;
}
