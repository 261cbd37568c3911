/**
 * `authorization_code` grant: single-use codes (burned even when the redemption fails), PKCE,
 * `redirect_uri` and client binding, `nonce` carried into both tokens.
 *
 * @module
 */

import type { ClientAuth } from "../client_auth.ts";
import type { IssuerContext } from "../deps.ts";
import { invalidGrant, invalidRequest } from "../oauth_error.ts";
import { issueTokens } from "./issue_tokens.ts";
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
  if (clientId !== record.clientId) throw invalidGrant("code was issued to another client");
  const redirectUri = params.get("redirect_uri");
  if (redirectUri !== null && redirectUri !== record.redirectUri) {
    throw invalidGrant("redirect_uri differs from the authorization request");
  }
  await verifyPkce(record, params.get("code_verifier"));
  return await issueTokens(ctx, {
    clientId,
    subject: record.subject,
    scope: record.scope,
    params,
    nonce: record.nonce,
    azp: true,
    loginClaims: record.loginClaims,
    authTime: record.authTime,
  }, { idToken: true, refreshToken: true });
}
