/**
 * `authorization_code` grant: single-use codes (burned even when the redemption fails), PKCE,
 * `redirect_uri` (required, unless `--code-redirect-uri-optional`) and client binding, `nonce`
 * carried into both tokens, RFC 8707 resources.
 *
 * @module
 */

import type { ClientAuth } from "../client_auth.ts";
import type { IssuerContext } from "../deps.ts";
import { invalidGrant, invalidRequest } from "../oauth_error.ts";
import { issueTokens } from "./issue_tokens.ts";
import { enforceAtToken, heldClient } from "../client_registry.ts";
import { defaultAudience, parseScope } from "../../tokens/audience.ts";
import { narrowResources, parseResources } from "../resource_indicator.ts";
import { verifyPkce } from "./pkce.ts";

/** Redeem an authorization code. */
export async function authorizationCodeGrant(
  ctx: IssuerContext,
  params: URLSearchParams,
  client: ClientAuth,
): Promise<Record<string, unknown>> {
  const code = params.get("code");
  if (!code) throw invalidRequest("missing required parameter code");
  const { codes } = ctx.deps.state;
  const record = codes.get(code);
  codes.delete(code);
  if (!record || record.issuerId !== ctx.issuerId) {
    throw invalidGrant("unknown or already-used authorization code");
  }
  const clientId = client.clientId ?? record.clientId;
  // a registered client that did not say who it is still authenticates as registered
  const registered = client.clientId === undefined
    ? await heldClient(ctx, clientId, 401)
    : undefined;
  if (registered) enforceAtToken(registered, client, "authorization_code");
  if (clientId !== record.clientId) throw invalidGrant("code was issued to another client");
  // RFC 6749 §4.1.3: required when the authorization request had one (here it always has);
  // a parameter without a value counts as omitted (§3.1).
  const redirectUri = params.get("redirect_uri") || undefined;
  if (redirectUri === undefined) {
    if (!ctx.deps.settings.codeRedirectUriOptional) {
      throw invalidGrant("redirect_uri is required: the authorization request carried one");
    }
  } else if (redirectUri !== record.redirectUri) {
    throw invalidGrant("redirect_uri differs from the authorization request");
  }
  await verifyPkce(record, params.get("code_verifier"));
  // RFC 9449 §10: a code requested with dpop_jkt is redeemed with a proof of that key.
  if (record.dpopJkt !== undefined && ctx.dpop?.jkt !== record.dpopJkt) {
    throw invalidGrant(
      ctx.dpop
        ? "the code is bound to another DPoP key (dpop_jkt)"
        : "the code is bound to a DPoP key (dpop_jkt): a DPoP proof is required",
    );
  }
  const resource = narrowResources(parseResources(params), record.resource);
  // Upstream derives `aud` and `scope` from the token request; a client that sends its scope
  // only at authorize gets that one, and the audience never ends up empty that way.
  const tokenScope = parseScope(params.get("scope"));
  const scope = tokenScope.length > 0 ? tokenScope : record.scope;
  let audience = defaultAudience(params, scope);
  if (tokenScope.length === 0 && audience.length === 0) audience = ["default"];
  return await issueTokens(ctx, {
    clientId,
    subject: record.subject,
    scope,
    resource,
    audience,
    params,
    nonce: record.nonce,
    azp: true,
    loginClaims: record.loginClaims,
    authTime: record.authTime,
  }, { idToken: true, refreshToken: true });
}
