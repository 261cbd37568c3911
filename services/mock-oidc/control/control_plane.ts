/**
 * How the `/_mock` rows of the route table (`routes.ts`) are made ({@linkcode controlRoutes}), the
 * rows for the `/_mock` paths no other row owns, the token gate, and the control plane's 404 and
 * 405. Every response it produces carries `X-Mock-Oidc: testing-only`.
 * @module
 */
import { type FallbackContext, type Handler, notFoundError, type Route } from "@svc/shared/http";
import { errorResponse, HttpError } from "@svc/shared/problem";
import type { ControlDeps, ControlHandler } from "./control_deps.ts";
import { isConsolePage } from "../console/console_routes.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";

// The token check (and its SHA-256) loads with the first gated request: without
// --control-token there is nothing to check.
const tokenCheck = lazyModuleAt<typeof import("./control_token.ts")>(
  import.meta.resolve("./control_token.ts"),
);

/** Makes one `/_mock` row: method(s), pattern, handler (given `deps`), OpenAPI operation. */
export type ControlRoute = (
  method: string | readonly string[],
  pattern: string,
  handle: ControlHandler,
  openapi: Record<string, unknown>,
) => Route;

/** The row maker of the control plane served with `deps`. */
export function controlRoutes(deps: ControlDeps): ControlRoute {
  return (method, pattern, handle, openapi) => ({
    method,
    pattern,
    openapi,
    handler: (req) => handle(req, deps),
  });
}

/** The 404 of a `/_mock` path no row owns. */
export function unknownControlPath(_req: Request, ctx: { url: URL }): never {
  throw notFoundError(ctx.url.pathname, "no control route for this path");
}

/**
 * Rows for every `/_mock` path no other row owns, labelled `/_mock/*`: `/_mock` itself and
 * `/_mock/*`, answered by `handler` ({@linkcode unknownControlPath} after the control rows;
 * {@linkcode disabledControlPlane} or {@linkcode controlPlaneElsewhere} where they are not
 * served). Two plain pathnames rather than the one `URLPattern` `/_mock{/*}?`, which the route
 * table would have to construct at start (the first `URLPattern` costs ≈ 7 ms).
 */
export function controlCatchAll(handler: Route["handler"]): Route[] {
  return ["/_mock", "/_mock/*"].map((pattern) => ({
    method: "*",
    pattern,
    label: CONTROL_LABEL,
    handler,
  }));
}

/** The route label of a `/_mock` path no row owns. */
const CONTROL_LABEL = "/_mock/*";

/** Whether a path belongs to the control plane. */
export function isControlPath(path: string): boolean {
  return path === "/_mock" || path.startsWith("/_mock/");
}

/** The control plane's 405: code `method_not_allowed`, `Allow` listing the row's methods. */
export function controlMethodNotAllowed(req: Request, ctx: FallbackContext): never {
  throw new HttpError(
    405,
    "method_not_allowed",
    `${req.method} is not allowed on ${ctx.url.pathname}`,
    { headers: { allow: ctx.allow.join(", ") } },
  );
}

/**
 * Checks the control token on every `/_mock` path before any row answers, except the console
 * page, which holds no data (the calls it makes carry the token).
 */
export function withControlGate(handler: Handler, controlToken: string | undefined): Handler {
  return async function controlGate(req, info) {
    const path = controlToken ? new URL(req.url).pathname : "";
    if (controlToken && isControlPath(path) && !isConsolePage(req.method, path)) {
      (await tokenCheck()).checkControlToken(req, controlToken);
    }
    return await handler(req, info);
  };
}

function markTestingOnly(response: Response): Response {
  response.headers.set("x-mock-oidc", "testing-only");
  return response;
}

/** 404 for every `/_mock/*` path, used when `--control-enabled=false`. */
export function disabledControlPlane(req: Request): Response {
  return markTestingOnly(unknownPath(req, "the control plane is disabled"));
}

// The kit's 404 for a path this listener does not serve, naming why.
function unknownPath(req: Request, why: string): Response {
  const path = new URL(req.url).pathname;
  return errorResponse(notFoundError(path, why), { instance: path });
}

/** 404 for every `/_mock/*` path on the API listener when `--control-addr` is set. */
export function controlPlaneElsewhere(req: Request): Response {
  return markTestingOnly(unknownPath(req, "the control plane is served on its own listener"));
}

/**
 * Marks every `/_mock` response, including ones produced by outer wrappers (timeouts, rate
 * limits), as testing-only.
 */
export function withTestingOnlyMarker(handler: Handler): Handler {
  return async function testingOnly(req, info) {
    const res = await handler(req, info);
    if (!URL.canParse(req.url)) return res; // an invalid Host: already a 400 from withValidTarget
    if (!isControlPath(new URL(req.url).pathname)) return res;
    try {
      return markTestingOnly(res);
    } catch {
      // Immutable headers (e.g. a fetched response): copy first.
      return markTestingOnly(new Response(res.body, res));
    }
  };
}
