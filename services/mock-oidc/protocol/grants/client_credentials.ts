/**
 * `client_credentials` grant: `sub` = client id; access token only.
 *
 * @module
 */

import { parseScope } from "../../tokens/audience.ts";
import type { ClientAuth } from "../client_auth.ts";
import type { IssuerContext } from "../deps.ts";
import { invalidClient } from "../oauth_error.ts";
import { issueTokens } from "./issue_tokens.ts";

/** Issue a token for the client itself. */
export async function clientCredentialsGrant(
  ctx: IssuerContext,
  params: URLSearchParams,
  client: ClientAuth,
): Promise<Record<string, unknown>> {
  if (client.clientId === undefined) throw invalidClient("client authentication is required");
  return await issueTokens(ctx, {
    clientId: client.clientId,
    subject: client.clientId,
    scope: parseScope(params.get("scope")),
    params,
  }, { idToken: false });
}
