/**
 * Routes `/{issuer}/...` and `/.well-known/oauth-authorization-server/{issuer}` to the
 * protocol endpoints. Issuer ids are one path segment, created on first touch; `_mock` is
 * reserved; multi-segment issuers get a clear 404.
 *
 * @module
 */

import { handleAuthorize } from "./authorize.ts";
import type { IssuerContext, ProtocolDeps } from "./deps.ts";
import { handleDeviceAuthorization, handleDeviceVerification } from "./device_authorization.ts";
import { handleDiscovery } from "./discovery.ts";
import { handleEndSession } from "./endsession.ts";
import { handleIntrospect } from "./introspect.ts";
import { issuerUrlOf } from "./issuer_url.ts";
import { handleJwks } from "./jwks.ts";
import { OAuthError, oauthErrorResponse } from "./oauth_error.ts";
import { problemResponse } from "@svc/shared/problem";
import { handleRevoke } from "./revoke.ts";
import { handleToken } from "./token.ts";
import { handleUserinfo } from "./userinfo.ts";

export { issuerUrlOf };

type Endpoint = {
  methods: string[];
  handle: (ctx: IssuerContext) => Response | Promise<Response>;
};

const GET = ["GET"];
const POST = ["POST"];
const BOTH = ["GET", "POST"];

/** Endpoint suffixes inside an issuer namespace. */
export const ENDPOINTS: Record<string, Endpoint> = {
  "authorize": { methods: BOTH, handle: handleAuthorize },
  "token": { methods: POST, handle: handleToken },
  "userinfo": { methods: BOTH, handle: handleUserinfo },
  "introspect": { methods: POST, handle: handleIntrospect },
  "revoke": { methods: POST, handle: handleRevoke },
  "endsession": { methods: BOTH, handle: handleEndSession },
  "jwks": { methods: GET, handle: handleJwks },
  "device_authorization": { methods: POST, handle: handleDeviceAuthorization },
  "device": { methods: BOTH, handle: handleDeviceVerification },
  ".well-known/openid-configuration": { methods: GET, handle: handleDiscovery },
  ".well-known/oauth-authorization-server": { methods: GET, handle: handleDiscovery },
};

const RFC8414_PREFIX = "/.well-known/oauth-authorization-server/";
/** Reserved issuer-id prefix (the control plane). */
export const RESERVED_PREFIX = "_mock";

/** Where a path leads: an issuer endpoint, or why none. */
export type Route =
  | { issuerId: string; endpoint: string }
  | { error: string };

/** Resolve a request path to an issuer id and endpoint suffix. */
export function routeOf(pathname: string): Route {
  let issuerId: string;
  let rest: string;
  if (pathname.startsWith(RFC8414_PREFIX)) {
    issuerId = pathname.slice(RFC8414_PREFIX.length);
    rest = ".well-known/oauth-authorization-server";
  } else {
    const slash = pathname.indexOf("/", 1);
    if (slash < 0) return { error: `no route for ${pathname}` };
    issuerId = pathname.slice(1, slash);
    rest = pathname.slice(slash + 1);
  }
  if (issuerId === ".well-known" || issuerId === "") {
    return { error: "discovery needs an issuer: use /{issuer}/.well-known/openid-configuration" };
  }
  if (issuerId.includes("/") || (!Object.hasOwn(ENDPOINTS, rest) && endsWithEndpoint(rest))) {
    return { error: "multi-segment issuer ids are not supported: an issuer is one path segment" };
  }
  if (issuerId.startsWith(RESERVED_PREFIX)) {
    return { error: `issuer ids starting with ${RESERVED_PREFIX} are reserved` };
  }
  if (!Object.hasOwn(ENDPOINTS, rest)) return { error: `no route for ${pathname}` };
  try {
    issuerId = decodeURIComponent(issuerId);
  } catch {
    return { error: "issuer id is not valid percent-encoding" };
  }
  if (issuerId.includes("/")) {
    return { error: "multi-segment issuer ids are not supported: an issuer is one path segment" };
  }
  return { issuerId, endpoint: rest };
}

function endsWithEndpoint(rest: string): boolean {
  return Object.keys(ENDPOINTS).some((suffix) => rest.endsWith(`/${suffix}`));
}

/**
 * The protocol handler. OAuth errors become RFC 6749 JSON here; anything else is rethrown for
 * the app's error boundary (500 problem, logged).
 */
export function createProtocolHandler(deps: ProtocolDeps): (req: Request) => Promise<Response> {
  return async (req) => {
    const route = routeOf(new URL(req.url).pathname);
    if ("error" in route) return problemResponse({ status: 404, detail: route.error });
    const endpoint = ENDPOINTS[route.endpoint];
    if (!endpoint.methods.includes(req.method)) {
      return problemResponse(
        { status: 405, detail: `${req.method} is not allowed here` },
        { headers: { Allow: endpoint.methods.join(", ") } },
      );
    }
    const ctx: IssuerContext = {
      req,
      issuerId: route.issuerId,
      issuerUrl: issuerUrlOf(req, route.issuerId),
      deps,
    };
    try {
      return await endpoint.handle(ctx);
    } catch (err) {
      if (err instanceof OAuthError) return oauthErrorResponse(err);
      throw err;
    }
  };
}
