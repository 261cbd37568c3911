/**
 * DNS-rebinding protection of the MCP endpoint (the MCP transport's "servers MUST validate the
 * Origin header"): a request carrying an `Origin` is served only for a loopback origin or one the
 * operator allowed; one without `Origin` (not a browser) is not affected. The Host header cannot
 * be trusted for this: a rebinding page is same-origin to the browser under the attacker's name.
 *
 * @module
 */
import type { RouteHandler } from "@svc/shared/http";
import { jsonRpcError } from "./endpoint_error.ts";

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/** Whether a request's `Origin` may call `/mcp` (absent: not a browser, allowed). */
export function originAllowed(
  origin: string | null,
  allowed: ReadonlySet<string>,
): boolean {
  return origin === null || LOOPBACK_ORIGIN.test(origin) || allowed.has(origin);
}

/**
 * The route wrapper: `handler` answers only requests whose `Origin` is allowed; any other gets
 * 403 `Forbidden: Origin not allowed` (JSON-RPC, code `origin_not_allowed`) before anything else
 * of the request, its token included, is read.
 */
export function allowedOriginsOnly(
  allowed: ReadonlySet<string>,
): (handler: RouteHandler) => RouteHandler {
  return (handler) => (req, ctx) =>
    originAllowed(req.headers.get("origin"), allowed) ? handler(req, ctx) : refuse(req);
}

async function refuse(req: Request): Promise<never> {
  await req.body?.cancel().catch(() => {});
  throw jsonRpcError(403, "origin_not_allowed", -32000, "Forbidden: Origin not allowed");
}
