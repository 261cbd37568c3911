/**
 * `urn:ietf:params:oauth:grant-type:jwt-bearer` (on-behalf-of): the assertion's claims are
 * copied without signature verification; `sub` comes from the assertion; `scope` is required
 * in the request or as an assertion claim.
 *
 * @module
 */

import { parseScope } from "../../tokens/audience.ts";
import { decodeJwt } from "../../tokens/jwt.ts";
import type { ClientAuth } from "../client_auth.ts";
import type { IssuerContext } from "../deps.ts";
import { invalidGrant, invalidRequest } from "../oauth_error.ts";
import { issueTokens } from "./issue_tokens.ts";

/**
 * Claims the new token sets itself: upstream's list plus those naming the requesting client
 * and its grant (`client_id`, `azp`, `nonce`, `scope`), which belong to this request.
 */
const REISSUED_CLAIMS = [
  "iss",
  "exp",
  "nbf",
  "iat",
  "jti",
  "aud",
  "sub",
  "client_id",
  "azp",
  "nonce",
  "scope",
];

/** Claims of `token` that carry over into a re-issued token. */
export function copiedClaims(claims: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(claims).filter(([name]) => !REISSUED_CLAIMS.includes(name)),
  );
}

/** Exchange an assertion for an access token. */
export async function jwtBearerGrant(
  ctx: IssuerContext,
  params: URLSearchParams,
  client: ClientAuth,
): Promise<Record<string, unknown>> {
  const assertion = params.get("assertion");
  if (!assertion) throw invalidRequest("missing required parameter assertion");
  const claims = decodeJwt(assertion)?.claims;
  if (!claims) throw invalidGrant("assertion is not a JWT");
  const scopeText = params.get("scope") ??
    (typeof claims.scope === "string" ? claims.scope : null);
  if (!scopeText) throw invalidRequest("scope is required in the request or the assertion");
  const copied = copiedClaims(claims);
  return await issueTokens(ctx, {
    clientId: client.clientId ?? "default",
    subject: typeof claims.sub === "string" ? claims.sub : undefined,
    scope: parseScope(scopeText),
    params,
    copiedClaims: copied,
  }, { idToken: false });
}
