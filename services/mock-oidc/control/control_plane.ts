/**
 * The `/_mock` router: token gate, one route per row of the spec's endpoint table, and the
 * problem responses for errors. Every response it produces carries `X-Mock-Oidc: testing-only`.
 * @module
 */
import type { Handler } from "@svc/shared/http";
import { errorResponse, HttpError } from "@svc/shared/problem";
import { advanceClock, getClock, putClock } from "./clock_routes.ts";
import { checkControlToken } from "./control_token.ts";
import type { ControlDeps } from "./control_deps.ts";
import { mintToken } from "./mint.ts";
import { clearRequests, listRequests, takeRequest } from "./request_routes.ts";
import { resetMock } from "./reset.ts";
import { enqueueScenario, flushScenarios, listScenarios } from "./scenario_routes.ts";

type Route = (req: Request, deps: ControlDeps) => Response | Promise<Response>;

const ROUTES: Record<string, Record<string, Route>> = {
  "/_mock/clock": {
    GET: (_req, deps) => getClock(deps.clock),
    PUT: (req, deps) => putClock(req, deps.clock),
  },
  "/_mock/clock/advance": { POST: (req, deps) => advanceClock(req, deps.clock) },
  "/_mock/mint": { POST: mintToken },
  "/_mock/scenarios": {
    POST: (req, deps) => enqueueScenario(req, deps.scenarios),
    GET: (_req, deps) => listScenarios(deps.scenarios),
    DELETE: (_req, deps) => flushScenarios(deps.scenarios),
  },
  "/_mock/requests": {
    GET: (req, deps) => listRequests(req, deps.requests),
    DELETE: (_req, deps) => clearRequests(deps.requests),
  },
  "/_mock/requests/take": {
    // Not req.signal: reading it makes Deno 2.9 print a non-JSON warning line. The request
    // timeout's signal ends a take whose client went away (or got its 503) all the same, so the
    // waiter left behind cannot swallow a later request.
    POST: (req, deps) => takeRequest(req, deps.requests),
  },
  "/_mock/reset": { POST: resetMock },
};

/** The route key for metrics: the matched `/_mock` path, or `/_mock/*` for unknown ones. */
export function controlRouteOf(path: string): string {
  return Object.hasOwn(ROUTES, path) ? path : "/_mock/*";
}

function markTestingOnly(response: Response): Response {
  response.headers.set("x-mock-oidc", "testing-only");
  return response;
}

/** 404 for every `/_mock/*` path, used when `--control-enabled=false`. */
export function disabledControlPlane(_req: Request): Response {
  return markTestingOnly(
    errorResponse(new HttpError(404, "not_found", "the control plane is disabled")),
  );
}

/** 404 for every `/_mock/*` path on the API listener when `--control-addr` is set. */
export function controlPlaneElsewhere(_req: Request): Response {
  return markTestingOnly(
    errorResponse(
      new HttpError(404, "not_found", "the control plane is served on its own listener"),
    ),
  );
}

/** Builds the `/_mock/*` handler. */
export function createControlHandler(deps: ControlDeps): (req: Request) => Promise<Response> {
  return async function controlPlane(req) {
    const path = new URL(req.url).pathname;
    try {
      await checkControlToken(req, deps.controlToken);
      const methods = ROUTES[path];
      if (!methods) throw new HttpError(404, "not_found", `no control route ${path}`);
      const route = methods[req.method];
      if (!route) {
        throw new HttpError(405, "method_not_allowed", `${req.method} is not allowed on ${path}`, {
          headers: { allow: Object.keys(methods).join(", ") },
        });
      }
      return markTestingOnly(await route(req, deps));
    } catch (err) {
      return markTestingOnly(errorResponse(err, { instance: path }));
    }
  };
}

/**
 * Marks every `/_mock` response, including ones produced by outer wrappers (timeouts, rate
 * limits), as testing-only.
 */
export function withTestingOnlyMarker(handler: Handler): Handler {
  return async function testingOnly(req, info) {
    const res = await handler(req, info);
    const path = new URL(req.url).pathname;
    if (path !== "/_mock" && !path.startsWith("/_mock/")) return res;
    try {
      return markTestingOnly(res);
    } catch {
      // Immutable headers (e.g. a fetched response): copy first.
      return markTestingOnly(new Response(res.body, res));
    }
  };
}
