/**
 * `urn:ietf:params:oauth:grant-type:token-exchange` (RFC 8693): the `subject_token` is parsed
 * (not verified) and its claims carried over; the `audience` parameter sets `aud`. Client
 * authentication is required, as upstream.
 *
 * @module
 */

import { parseScope } from "../../tokens/audience.ts";
import { decodeJwt } from "../../tokens/jwt.ts";
import type { ClientAuth } from "../client_auth.ts";
import type { IssuerContext } from "../deps.ts";
import { invalidClient, invalidGrant, invalidRequest } from "../oauth_error.ts";
import { issueTokens } from "./issue_tokens.ts";
import { copiedClaims } from "./jwt_bearer.ts";

const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

/** Exchange a subject token for an access token. */
export async function tokenExchangeGrant(
  ctx: IssuerContext,
  params: URLSearchParams,
  client: ClientAuth,
): Promise<Record<string, unknown>> {
  if (client.method === "none" || client.clientId === undefined) {
    throw invalidClient("client authentication is required for token exchange");
  }
  const subjectToken = params.get("subject_token");
  if (!subjectToken) throw invalidRequest("missing required parameter subject_token");
  if (!params.get("subject_token_type")) {
    throw invalidRequest("missing required parameter subject_token_type");
  }
  const claims = decodeJwt(subjectToken)?.claims;
  if (!claims) throw invalidGrant("subject_token is not a JWT");
  return await issueTokens(ctx, {
    clientId: client.clientId,
    subject: typeof claims.sub === "string" ? claims.sub : undefined,
    scope: parseScope(params.get("scope")),
    params,
    copiedClaims: copiedClaims(claims),
  }, { idToken: false, extra: { issued_token_type: ACCESS_TOKEN_TYPE } });
}
