/**
 * `POST /{issuer}/introspect` (RFC 7662): `active:true` with all claims of a valid token
 * (refresh tokens included), `active:false` for anything invalid, expired (per the process
 * clock) or revoked. The caller must identify itself somehow, as upstream requires. A DPoP-bound
 * token answers `token_type: DPoP` and its `cnf.jkt` (RFC 9449 §6.2). A request with a `DPoP` proof
 * (of the token's presenter) has it checked, and the token is active only when bound to its key.
 *
 * @module
 */

import { lazyModuleAt } from "@svc/shared/lazy-module";
import type { IssuerContext } from "./deps.ts";
import { DpopError } from "./dpop_rules.ts";
import { readForm } from "./form.ts";
import { invalidClient, invalidRequest } from "./oauth_error.ts";
import { jsonResponse } from "./responses.ts";
import { verifyToken } from "./verify_token.ts";

// Loaded by the first introspection request that carries a DPoP proof.
const dpop = lazyModuleAt<typeof import("./dpop.ts")>(import.meta.resolve("./dpop.ts"));

/** Handle an introspection request. */
export async function handleIntrospect(ctx: IssuerContext): Promise<Response> {
  const params = await readForm(ctx.req);
  const identified = ctx.req.headers.has("authorization") || params.has("client_id") ||
    params.has("client_assertion");
  if (!identified) throw invalidClient("client authentication is required");
  const token = params.get("token");
  if (!token) throw invalidRequest("missing required parameter token");
  const refresh = ctx.deps.state.refreshTokens.get(token);
  if (refresh && refresh.issuerId === ctx.issuerId) {
    return jsonResponse({
      active: true,
      token_type: "refresh_token",
      client_id: refresh.clientId,
      sub: refresh.subject,
      iss: ctx.issuerUrl,
      ...(refresh.scope.length > 0 ? { scope: refresh.scope.join(" ") } : {}),
    }, { noStore: true });
  }
  // A presenter's proof (RFC 9449 §7 at introspection): checked like userinfo's, `ath` the
  // token's; a token bound to another key, or to none, is not active for it.
  const proof = ctx.req.headers.get("dpop");
  let presented: string | undefined;
  if (proof !== null) {
    try {
      presented = (await (await dpop()).verifyProof(ctx, {
        proof,
        method: "POST",
        url: `${ctx.baseUrl}/introspect`,
        accessToken: token,
      })).jkt;
    } catch (err) {
      throw err instanceof DpopError ? err.atTokenEndpoint() : err;
    }
  }
  const result = await verifyToken(ctx, token);
  if (!result.ok) return jsonResponse({ active: false }, { noStore: true });
  const { claims } = result;
  const jkt = (claims.cnf as { jkt?: unknown } | undefined)?.jkt;
  if (presented !== undefined && jkt !== presented) {
    return jsonResponse({ active: false }, { noStore: true });
  }
  const clientId = claims.client_id ?? claims.azp;
  // RFC 9449 §6.2: a bound token says so, with its cnf.jkt (among the claims).
  const bound = typeof jkt === "string";
  return jsonResponse({
    active: true,
    ...(typeof clientId === "string" ? { client_id: clientId } : {}),
    token_type: bound ? "DPoP" : "Bearer",
    ...claims,
  }, { noStore: true });
}
