/**
 * Request objects (RFC 9101): an authorization request's parameters as a signed JWT, the
 * `request` parameter at `authorize` or in a pushed request (`par.ts`). Only the object's
 * parameters count (§6.3); the request's own `client_id` must be the object's. For a client the
 * provider holds to its metadata the signature is verified: with its `jwks` / `jwks_uri`
 * (`client_assertion.ts`), or, an HMAC, its `client_secret`; an unregistered client's object is
 * only decoded, as its client assertions are.
 *
 * Loaded by the first authorization request that carries `request`.
 *
 * @module
 */

import { compactVerify } from "jose";
import { base64url, decodeJwt } from "../tokens/jwt.ts";
import { verifyWithKeys } from "./client_assertion.ts";
import { ASSERTION_KEY_ALGORITHMS, ASSERTION_SECRET_ALGORITHMS } from "./client_metadata.ts";
import { heldClient } from "./client_registry.ts";
import type { IssuerContext } from "./deps.ts";
import { OAuthError } from "./oauth_error.ts";

/** Clock skew allowed on `exp` and `nbf`, seconds. */
const SKEW_S = 30;

/** `400 invalid_request_object` (RFC 9101 §7), never redirected. */
function invalidObject(description: string): OAuthError {
  return new OAuthError(400, "invalid_request_object", description);
}

/** The parameters of the request object in `query` (`request`), checked; throws on failure. */
export async function requestObjectParameters(
  ctx: IssuerContext,
  query: URLSearchParams,
): Promise<URLSearchParams> {
  const clientId = query.get("client_id");
  if (!clientId) {
    throw new OAuthError(400, "invalid_request", "missing required parameter client_id");
  }
  const compact = query.get("request")!;
  const jwt = decodeJwt(compact);
  if (!jwt) throw invalidObject("request is not a JWT");
  const { header, claims } = jwt;
  if (claims.client_id !== clientId) {
    throw invalidObject("request object client_id must be the request's client_id");
  }
  const held = await heldClient(ctx, clientId);
  if (held) {
    const keyed = held.metadata.jwks !== undefined || held.metadata.jwks_uri !== undefined;
    const allowed: readonly string[] = keyed
      ? ASSERTION_KEY_ALGORITHMS
      : held.clientSecret !== undefined
      ? ASSERTION_SECRET_ALGORITHMS
      : [];
    if (allowed.length === 0) {
      throw invalidObject(`client ${clientId} has neither keys nor a secret to verify it with`);
    }
    if (typeof header.alg !== "string" || !allowed.includes(header.alg)) {
      throw invalidObject(`request object alg must be one of ${allowed.join(", ")}`);
    }
    const token = `${jwt.signingInput}.${base64url(jwt.signature)}`;
    let verified: boolean;
    try {
      verified = keyed
        ? await verifyWithKeys(ctx, held, token, header)
        : await compactVerify(token, new TextEncoder().encode(held.clientSecret!)).then(
          () => true,
          () => false,
        );
    } catch (err) {
      if (err instanceof OAuthError) throw invalidObject(err.message);
      throw err;
    }
    if (!verified) throw invalidObject("request object signature does not verify");
  }
  if (claims.iss !== undefined && claims.iss !== clientId) {
    throw invalidObject("request object iss must be the client_id");
  }
  if (claims.aud !== undefined) {
    const auds = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!auds.includes(ctx.issuerUrl)) {
      throw invalidObject("request object aud must name the issuer");
    }
  }
  const now = ctx.deps.clock.now() / 1000;
  if (typeof claims.exp === "number" && now >= claims.exp + SKEW_S) {
    throw invalidObject("request object has expired");
  }
  if (typeof claims.nbf === "number" && claims.nbf > now + SKEW_S) {
    throw invalidObject("request object is not yet valid (nbf)");
  }
  // §6.3: the object's parameters only (JWT claims that are not parameters dropped).
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(claims)) {
    if (["iss", "aud", "exp", "nbf", "iat", "jti"].includes(name)) continue;
    if (Array.isArray(value)) {
      for (const v of value) params.append(name, String(v));
    } else if (
      typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ) {
      params.set(name, String(value));
    } else if (typeof value === "object" && value !== null) {
      params.set(name, JSON.stringify(value)); // e.g. claims, authorization_details
    }
  }
  return params;
}
