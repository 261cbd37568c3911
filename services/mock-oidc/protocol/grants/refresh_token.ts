/**
 * `refresh_token` grant: the same refresh token keeps redeeming unless `rotateRefreshToken`.
 * Tokens keep the original subject; the scenario queue is consulted like any other grant.
 *
 * @module
 */

import type { ClientAuth } from "../client_auth.ts";
import type { IssuerContext } from "../deps.ts";
import { invalidGrant, invalidRequest, OAuthError } from "../oauth_error.ts";
import { parseScope } from "../../tokens/audience.ts";
import { issueTokens } from "./issue_tokens.ts";
import { enforceAtToken, heldClient } from "../client_registry.ts";
import { narrowResources, parseResources } from "../resource_indicator.ts";

/** Redeem a refresh token. */
export async function refreshTokenGrant(
  ctx: IssuerContext,
  params: URLSearchParams,
  client: ClientAuth,
): Promise<Record<string, unknown>> {
  const token = params.get("refresh_token");
  if (!token) throw invalidRequest("missing required parameter refresh_token");
  const { refreshTokens } = ctx.deps.state;
  const grant = refreshTokens.get(token);
  if (!grant || grant.issuerId !== ctx.issuerId) throw invalidGrant("unknown refresh_token");
  if (client.clientId !== undefined && client.clientId !== grant.clientId) {
    throw invalidGrant("refresh_token was issued to another client");
  }
  const registered = client.clientId === undefined
    ? await heldClient(ctx, grant.clientId, 401)
    : undefined;
  if (registered) enforceAtToken(registered, client, "refresh_token");
  // RFC 9449 §5: a public client's bound refresh token needs a proof of the same key.
  if (grant.dpopJkt !== undefined) {
    if (!ctx.dpop) throw invalidGrant("refresh_token is DPoP-bound: a DPoP proof is required");
    if (ctx.dpop.jkt !== grant.dpopJkt) {
      throw invalidGrant("refresh_token is bound to another DPoP key");
    }
  }
  const requested = parseScope(params.get("scope"));
  if (requested.some((s) => !grant.scope.includes(s))) {
    throw new OAuthError(400, "invalid_scope", "scope exceeds the originally granted scope");
  }
  const resource = narrowResources(parseResources(params), grant.resource);
  const rotate = ctx.deps.settings.rotateRefreshToken;
  if (rotate) refreshTokens.delete(token);
  return await issueTokens(ctx, {
    clientId: grant.clientId,
    subject: grant.subject,
    scope: requested.length > 0 ? requested : grant.scope,
    resource,
    params: grant.params,
    loginClaims: grant.loginClaims,
    authTime: grant.authTime,
  }, { idToken: true, refreshToken: rotate ? true : token });
}
