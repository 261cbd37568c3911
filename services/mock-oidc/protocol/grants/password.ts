/**
 * `password` grant: `sub` = the `username` form parameter (passwords are not checked); access
 * and id token, no refresh token (as upstream).
 *
 * @module
 */

import { parseScope } from "../../tokens/audience.ts";
import type { ClientAuth } from "../client_auth.ts";
import type { IssuerContext } from "../deps.ts";
import { invalidRequest } from "../oauth_error.ts";
import { issueTokens } from "./issue_tokens.ts";

/** Issue tokens for `username`. */
export async function passwordGrant(
  ctx: IssuerContext,
  params: URLSearchParams,
  client: ClientAuth,
): Promise<Record<string, unknown>> {
  const username = params.get("username");
  if (!username) throw invalidRequest("missing required parameter username");
  return await issueTokens(ctx, {
    clientId: client.clientId ?? "default",
    subject: username,
    scope: parseScope(params.get("scope")),
    params,
  }, { idToken: true });
}
