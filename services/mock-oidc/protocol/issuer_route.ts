/**
 * How a protocol endpoint becomes a row of the route table (`routes.ts`): {@linkcode issuerRoutes}
 * makes the row of `/{issuer}/…` (and of the RFC 8414 form
 * `/.well-known/oauth-authorization-server/{issuer}`) that takes the issuer id from the path and
 * calls the endpoint with its {@linkcode IssuerContext}. Issuer ids are one path segment, created
 * on first touch; `_mock` is reserved; multi-segment issuers get a clear 404. Protocol 404 and
 * 405 answers are plain problems (no `instance`).
 *
 * @module
 */

import { type FallbackContext, notFoundError, type Route } from "@svc/shared/http";
import { errorResponse, problemResponse } from "@svc/shared/problem";
import type { EndpointHandler, IssuerContext, ProtocolDeps } from "./deps.ts";
import { issuerUrlOf } from "./issuer_url.ts";
import { issuerIdProblem, RESERVED_PREFIX } from "./issuer_id.ts";
import { OAuthError } from "./oauth_error.ts";

const RFC8414_PREFIX = "/.well-known/oauth-authorization-server/";
const MULTI_SEGMENT = "multi-segment issuer ids are not supported: an issuer is one path segment";
const NEEDS_ISSUER = "discovery needs an issuer: use /{issuer}/.well-known/openid-configuration";

/** Why an `:issuer` segment names no issuer, or the decoded id (rules: issuer_id.ts). */
function issuerOf(segment: string): { issuerId: string } | { error: string } {
  if (segment === ".well-known") return { error: NEEDS_ISSUER };
  if (segment.startsWith(RESERVED_PREFIX)) {
    return { error: `issuer ids starting with ${RESERVED_PREFIX} are reserved` };
  }
  let issuerId: string;
  try {
    issuerId = decodeURIComponent(segment);
  } catch {
    return { error: "issuer id is not valid percent-encoding" };
  }
  if (issuerId.includes("/")) return { error: MULTI_SEGMENT };
  const problem = issuerIdProblem(issuerId);
  return problem ? { error: `no such issuer: ${problem}` } : { issuerId };
}

// The kit's 404 of the problem dialect (the same body as every service's unknown path), with
// the reason when the path looks like a protocol path.
function notFound(path: string, why?: string): Response {
  return errorResponse(notFoundError(path, why), { instance: path });
}

/** Makes one row of an issuer namespace: method, pattern (with `:issuer`), endpoint, operation. */
export type IssuerRoute = (
  method: "GET" | "POST",
  pattern: string,
  handle: EndpointHandler,
  openapi: Record<string, unknown>,
) => Route;

/**
 * The row maker of the issuer namespaces served with `deps`. What an endpoint throws goes to the
 * app's error boundary: an `OAuthError` becomes its RFC 6749 body there, anything else a 500
 * problem (logged).
 */
export function issuerRoutes(deps: ProtocolDeps): IssuerRoute {
  async function answer(req: Request, issuerSegment: string, handle: EndpointHandler) {
    const issuer = issuerOf(issuerSegment);
    if ("error" in issuer) return notFound(new URL(req.url).pathname, issuer.error);
    const ctx: IssuerContext = {
      req,
      issuerId: issuer.issuerId,
      issuerUrl: issuerUrlOf(req, issuer.issuerId),
      deps,
    };
    return await handle(ctx);
  }
  return (method, pattern, handle, openapi) => ({
    // HEAD answers like GET without a body (RFC 9110 §9.3.2).
    method: method === "GET" ? ["GET", "HEAD"] : method,
    pattern,
    openapi,
    handler: async (req, route) => {
      if (req.method !== "HEAD") return await answer(req, route.params.issuer!, handle);
      const get = new Request(req.url, { method: "GET", headers: req.headers });
      // An OAuth error to a HEAD is its response without the body, as any other answer.
      const res = await answer(get, route.params.issuer!, handle).catch((err) => {
        if (err instanceof OAuthError) return err.toResponse();
        throw err;
      });
      await res.body?.cancel();
      return new Response(null, { status: res.status, headers: res.headers });
    },
  });
}

/**
 * The 404 of a path no row of `routes` owns, naming why when it looks like a protocol path (a
 * known endpoint under more than one segment, or discovery without an issuer).
 */
export function protocolNotFound(
  routes: readonly Route[],
): (req: Request, ctx: FallbackContext) => Response {
  const suffixes = routes.map((r) => String(r.pattern))
    .filter((pattern) => pattern.startsWith("/:issuer/"))
    .map((pattern) => pattern.slice("/:issuer".length));
  return function protocolNotFound(_req, ctx) {
    const path = ctx.url.pathname;
    if (path.startsWith(RFC8414_PREFIX)) {
      const rest = path.slice(RFC8414_PREFIX.length);
      return notFound(path, rest === "" ? NEEDS_ISSUER : MULTI_SEGMENT);
    }
    const slash = path.indexOf("/", 1);
    if (slash < 0) return notFound(path);
    const issuerId = path.slice(1, slash);
    const rest = path.slice(slash + 1);
    if (issuerId === ".well-known" || issuerId === "") return notFound(path, NEEDS_ISSUER);
    if (suffixes.some((suffix) => rest.endsWith(suffix))) return notFound(path, MULTI_SEGMENT);
    return notFound(path);
  };
}

/** The protocol's 405: a plain problem with `Allow`. */
export function protocolMethodNotAllowed(req: Request, ctx: FallbackContext): Response {
  return problemResponse(
    { status: 405, detail: `${req.method} is not allowed here` },
    { headers: { Allow: ctx.allow.join(", ") } },
  );
}
