/**
 * `GET|POST /{issuer}/userinfo`: returns every claim of a valid Bearer token. Failures are 401
 * `invalid_token` with a `WWW-Authenticate` challenge (upstream sent none).
 *
 * @module
 */

import type { IssuerContext } from "./deps.ts";
import { readForm } from "./form.ts";
import { invalidToken, OAuthError } from "./oauth_error.ts";
import { jsonResponse } from "./responses.ts";
import { verifyToken } from "./verify_token.ts";

/** Handle a userinfo request. */
export async function handleUserinfo(ctx: IssuerContext): Promise<Response> {
  const header = ctx.req.headers.get("authorization");
  let token: string | undefined;
  if (header && /^bearer /i.test(header)) token = header.slice(7).trim();
  if (!token && ctx.req.method === "POST") {
    token = (await readForm(ctx.req)).get("access_token") ?? undefined;
  }
  if (!token) {
    throw new OAuthError(401, "invalid_token", "missing Bearer access token", {
      headers: { "WWW-Authenticate": 'Bearer realm="mock-oidc"' },
    });
  }
  const result = await verifyToken(ctx, token);
  if (!result.ok) throw invalidToken(result.reason);
  return jsonResponse(result.claims, { noStore: true });
}
