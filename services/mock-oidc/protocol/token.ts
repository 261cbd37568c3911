/**
 * `POST /{issuer}/token`: authenticate the client, then dispatch on `grant_type`.
 *
 * @module
 */

import { authenticateClient, type ClientAuth } from "./client_auth.ts";
import type { IssuerContext } from "./deps.ts";
import { readForm } from "./form.ts";
import { authorizationCodeGrant } from "./grants/authorization_code.ts";
import { clientCredentialsGrant } from "./grants/client_credentials.ts";
import { deviceCodeGrant } from "./grants/device_code.ts";
import { jwtBearerGrant } from "./grants/jwt_bearer.ts";
import { passwordGrant } from "./grants/password.ts";
import { refreshTokenGrant } from "./grants/refresh_token.ts";
import { tokenExchangeGrant } from "./grants/token_exchange.ts";
import { invalidRequest, OAuthError } from "./oauth_error.ts";
import { enforceAtToken, heldClient } from "./client_registry.ts";
import { jsonResponse } from "./responses.ts";
import { DpopError } from "./dpop_rules.ts";
import { lazyModuleAt } from "@svc/shared/lazy-module";

// Loaded by the first request that carries a client assertion of a held client (with jose).
const assertions = lazyModuleAt<typeof import("./client_assertion.ts")>(
  import.meta.resolve("./client_assertion.ts"),
);
// Loaded by the first request that carries a DPoP proof.
const dpop = lazyModuleAt<typeof import("./dpop.ts")>(import.meta.resolve("./dpop.ts"));

type Grant = (
  ctx: IssuerContext,
  params: URLSearchParams,
  client: ClientAuth,
) => Promise<Record<string, unknown>>;

/** Grant handlers by `grant_type`: one per name of `GRANT_TYPES` (what discovery advertises). */
export const GRANTS: Record<string, Grant> = {
  "authorization_code": authorizationCodeGrant,
  "refresh_token": refreshTokenGrant,
  "client_credentials": clientCredentialsGrant,
  "password": passwordGrant,
  "urn:ietf:params:oauth:grant-type:jwt-bearer": jwtBearerGrant,
  "urn:ietf:params:oauth:grant-type:token-exchange": tokenExchangeGrant,
  "urn:ietf:params:oauth:grant-type:device_code": deviceCodeGrant,
};

/** Handle a token request. */
export async function handleToken(ctx: IssuerContext): Promise<Response> {
  const params = await readForm(ctx.req);
  const client = authenticateClient(ctx.req, params, {
    issuerUrl: ctx.issuerUrl,
    endpointUrl: `${ctx.baseUrl}/token`,
  });
  const grantType = params.get("grant_type");
  if (!grantType) throw invalidRequest("missing required parameter grant_type");
  const grant = Object.hasOwn(GRANTS, grantType) ? GRANTS[grantType] : undefined;
  if (!grant) {
    throw new OAuthError(400, "unsupported_grant_type", `grant_type ${grantType} is not supported`);
  }
  const proof = ctx.req.headers.get("dpop");
  let held;
  if (client.clientId !== undefined) {
    held = await heldClient(ctx, client.clientId, 401);
    if (held) {
      // An assertion of the registered method is verified first (a mismatch is reported below).
      if (client.assertion && client.method === held.metadata.token_endpoint_auth_method) {
        await (await assertions()).verifyClientAssertion(ctx, held, client);
      }
      enforceAtToken(held, client, grantType);
    }
  }
  if (proof === null) {
    if (held?.metadata.dpop_bound_access_tokens === true) {
      throw new OAuthError(
        400,
        "invalid_dpop_proof",
        `client ${held.clientId} registered dpop_bound_access_tokens: a DPoP proof is required`,
      );
    }
    const body = await grant(ctx, params, client);
    ctx.deps.onTokenIssued?.(grantType);
    return jsonResponse(body, { noStore: true });
  }
  // RFC 9449 §5: the tokens are bound to the proof's key.
  const { verifyProof } = await dpop();
  let verified;
  try {
    // A nonce challenge of the control plane is used up by the first proof it applies to.
    const demandNonce = ctx.deps.state.dpopChallenges.take(ctx.issuerId, client.clientId);
    verified = await verifyProof(ctx, {
      proof,
      method: "POST",
      url: `${ctx.baseUrl}/token`,
      demandNonce,
    });
  } catch (err) {
    throw err instanceof DpopError ? err.atTokenEndpoint() : err;
  }
  const bindRefresh = client.method === "none";
  const body = await grant({ ...ctx, dpop: { jkt: verified.jkt, bindRefresh } }, params, client);
  ctx.deps.onTokenIssued?.(grantType);
  const res = jsonResponse(body, { noStore: true });
  if (verified.nonce) res.headers.set("DPoP-Nonce", verified.nonce);
  return res;
}
