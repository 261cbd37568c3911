/**
 * How a protocol endpoint becomes a row of the route table (`routes.ts`): {@linkcode issuerRoutes}
 * makes the row of `/{issuer}/…` (and of the RFC 8414 form
 * `/.well-known/oauth-authorization-server/{issuer}`) that takes the issuer id from the path and
 * calls the endpoint with its {@linkcode IssuerContext}. Issuer ids are one or more path segments
 * (the rows' `:issuer+`), created on first touch; `_mock` is reserved; an id the rules of
 * `issuer_id.ts` refuse gets a 404 naming why. Protocol 404 and 405 answers are plain problems
 * (no `instance`).
 *
 * @module
 */

import { type FallbackContext, notFoundError, type Route } from "@svc/shared/http";
import { errorResponse, problemResponse } from "@svc/shared/problem";
import type { EndpointHandler, IssuerContext, ProtocolDeps } from "./deps.ts";
import { issuerIdProblem } from "./issuer_id.ts";
import { RFC8414_PREFIX } from "./issuer_path.ts";
import type { FaultEndpoint } from "./fault_queue.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";

// The answers of injected faults: loaded when the first one fires.
const faultAnswers = lazyModuleAt<typeof import("./fault_response.ts")>(
  import.meta.resolve("./fault_response.ts"),
);

/** The fault endpoint (`fault_queue.ts`) of a row's pattern, or none (endsession, debugger). */
function faultEndpointOf(pattern: string): FaultEndpoint | undefined {
  const suffix = pattern.startsWith("/.well-known/")
    ? ".well-known/oauth-authorization-server"
    : pattern.replace(/^\/:issuer\+\//, "");
  if (suffix.startsWith(".well-known/")) return "discovery";
  if (suffix.startsWith("device")) return "device";
  if (suffix.startsWith("register")) return "registration";
  const plain = ["jwks", "authorize", "token", "userinfo", "introspect", "revoke"] as const;
  return plain.find((e) => e === suffix);
}

import { OAuthError } from "./oauth_error.ts";

const NEEDS_ISSUER = "discovery needs an issuer: use /{issuer}/.well-known/openid-configuration";

/**
 * Why the `:issuer+` part of a path (segments still encoded) names no issuer, or the decoded id
 * (rules: issuer_id.ts). A decoded segment holding `/` (`%2F`) is refused: it would read as two.
 */
function issuerOf(raw: string): { issuerId: string } | { error: string } {
  const segments = raw.split("/");
  if (segments[0] === ".well-known") return { error: NEEDS_ISSUER };
  const decoded: string[] = [];
  for (const segment of segments) {
    try {
      decoded.push(decodeURIComponent(segment));
    } catch {
      return { error: "issuer id is not valid percent-encoding" };
    }
  }
  if (decoded.some((segment) => segment.includes("/"))) {
    return { error: "no such issuer: an issuer path segment must not hold an encoded /" };
  }
  const issuerId = decoded.join("/");
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
  async function answer(
    req: Request,
    issuerPart: string,
    handle: EndpointHandler,
    endpoint?: FaultEndpoint,
  ) {
    const issuer = issuerOf(issuerPart);
    if ("error" in issuer) return notFound(new URL(req.url).pathname, issuer.error);
    const { issuerId } = issuer;
    const ctx: IssuerContext = {
      req,
      issuerId,
      issuerUrl: deps.issuers.urlOf(req, issuerId),
      baseUrl: deps.issuers.baseUrlOf(req, issuerId),
      deps,
    };
    if (endpoint && deps.faults && deps.faults.size > 0) {
      const fault = await deps.faults.take({
        issuerId,
        endpoint,
        details: async () => (await faultAnswers()).callDetails(req),
      });
      if (fault) {
        const answer = await (await faultAnswers()).faultResponse(fault, ctx, deps.sleep);
        if (answer) return answer;
        // A delay is over: the endpoint answers, marked as the fault's.
        const res = await handle(ctx);
        const headers = new Headers(res.headers);
        headers.set("X-Mock-Oidc-Fault", fault.faultId);
        return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
      }
    }
    return await handle(ctx);
  }
  return (method, pattern, handle, openapi) => {
    const endpoint = faultEndpointOf(pattern);
    return {
      // HEAD answers like GET without a body (RFC 9110 §9.3.2).
      method: method === "GET" ? ["GET", "HEAD"] : method,
      pattern,
      openapi,
      handler: async (req, route) => {
        if (req.method !== "HEAD") return await answer(req, route.params.issuer!, handle, endpoint);
        const get = new Request(req.url, { method: "GET", headers: req.headers });
        // An OAuth error to a HEAD is its response without the body, as any other answer.
        const res = await answer(get, route.params.issuer!, handle, endpoint).catch((err) => {
          if (err instanceof OAuthError) return err.toResponse();
          throw err;
        });
        await res.body?.cancel();
        return new Response(null, { status: res.status, headers: res.headers });
      },
    };
  };
}

/**
 * The 404 of a path no row of the table owns, naming why when it looks like discovery without an
 * issuer. (Issuer ids of several segments are served: a path a row does not own ends in no
 * endpoint.)
 */
export function protocolNotFound(): (req: Request, ctx: FallbackContext) => Response {
  return function protocolNotFound(_req, ctx) {
    const path = ctx.url.pathname;
    if (path === RFC8414_PREFIX.slice(0, -1) || path === RFC8414_PREFIX) {
      return notFound(path, NEEDS_ISSUER);
    }
    if (path.startsWith("/.well-known/") || path.startsWith("//")) {
      return notFound(path, NEEDS_ISSUER);
    }
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
