/**
 * Authentication of the MCP endpoint as a route wrapper: the request's bearer token is verified
 * for this server's resource URI and checked for the required scopes before the wrapped handler
 * runs, which gets the verified token. A missing or invalid token is a 401 and a token without a
 * required scope a 403, each with the Bearer challenge that points the client at the metadata
 * (`protected_resource.ts`); an issuer that cannot be reached is a JSON-RPC 503.
 *
 * @module
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { RouteContext, RouteHandler } from "@svc/shared/http";
import type { Logger } from "@svc/shared/log";
import { type BearerVerifier, InvalidToken } from "../auth/bearer.ts";
import { jsonRpcError } from "./endpoint_error.ts";
import {
  hasScopes,
  insufficientScopeError,
  resourceUri,
  unauthorizedError,
} from "./protected_resource.ts";

/** A route handler of requests whose bearer token was verified: `auth` is that token. */
export type AuthenticatedHandler = (
  req: Request,
  ctx: RouteContext,
  auth: AuthInfo,
) => Promise<Response>;

/** Options of {@linkcode bearerAuth}. */
export interface BearerAuthOptions {
  /** Verifies the token (signature, issuer, audience, kind). */
  verifier: BearerVerifier;
  /** Scopes every token must carry. */
  scopes: readonly string[];
  /** Gets the verifier's failures other than an invalid token (the issuer unreachable). */
  logger: Logger;
  /** The public origin of a request's URL: of the resource URI and of the metadata URL. */
  originOf: (url: URL) => string;
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The route wrapper: `handler` runs with the verified token, or the request is refused. */
export function bearerAuth(
  options: BearerAuthOptions,
): (handler: AuthenticatedHandler) => RouteHandler {
  const { verifier, scopes, logger, originOf } = options;
  const authenticate = async (req: Request, origin: string): Promise<AuthInfo> => {
    const header = req.headers.get("authorization");
    const challenge = { origin, scopes };
    if (!header) throw unauthorizedError(challenge, false);
    const match = BEARER.exec(header);
    if (!match) throw unauthorizedError(challenge, true);
    let info: AuthInfo;
    try {
      info = await verifier.verify(match[1], { resource: resourceUri(origin) });
    } catch (err) {
      if (err instanceof InvalidToken) throw unauthorizedError(challenge, true);
      logger.warn("bearer verification unavailable", { error: (err as Error).message });
      throw jsonRpcError(503, "issuer_unavailable", -32603, "Authorization server unavailable");
    }
    if (!hasScopes(info.scopes, scopes)) throw insufficientScopeError(challenge);
    return info;
  };
  return (handler) => async (req, ctx) => {
    let auth: AuthInfo;
    try {
      auth = await authenticate(req, originOf(ctx.url));
    } catch (err) {
      await req.body?.cancel().catch(() => {});
      throw err;
    }
    return await handler(req, ctx, auth);
  };
}
