/**
 * `POST /{issuer}/revoke` (RFC 7009): `token_type_hint` is optional; refresh tokens are dropped,
 * access tokens of this issuer stop verifying; unknown tokens still get 200.
 *
 * @module
 */

import { decodeJwt, verifySignature } from "../tokens/jwt.ts";
import type { IssuerContext } from "./deps.ts";
import { readForm } from "./form.ts";
import { invalidRequest } from "./oauth_error.ts";

/** Handle a revocation request. */
export async function handleRevoke(ctx: IssuerContext): Promise<Response> {
  const params = await readForm(ctx.req);
  const token = params.get("token");
  if (!token) throw invalidRequest("missing required parameter token");
  const { state } = ctx.deps;
  const refresh = state.refreshTokens.get(token);
  if (refresh && refresh.issuerId === ctx.issuerId) {
    state.refreshTokens.delete(token);
  } else {
    const jwt = decodeJwt(token);
    const kid = typeof jwt?.header.kid === "string" ? jwt.header.kid : undefined;
    const key = jwt ? await ctx.deps.keys.verificationKey(ctx.issuerId, kid) : undefined;
    if (jwt && key && typeof jwt.claims.jti === "string" && await verifySignature(key, jwt)) {
      state.revoked.set(jwt.claims.jti, true);
    }
  }
  return new Response(null, { status: 200, headers: { "Cache-Control": "no-store" } });
}
