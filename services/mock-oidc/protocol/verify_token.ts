/**
 * Self-verification of tokens this issuer signed (userinfo, introspect, revoke): signature with
 * the issuer key, `iss` = this request's issuer URL, `exp`/`nbf` against the process clock, not
 * revoked. Any `typ` is accepted, so `at+jwt` tokens verify (upstream rejected them).
 *
 * @module
 */

import { decodeJwt, verifySignature } from "../tokens/jwt.ts";
import type { IssuerContext } from "./deps.ts";

/** Outcome of verification: the claims, or why not. */
export type Verification =
  | { ok: true; claims: Record<string, unknown> }
  | { ok: false; reason: string };

/** Verify `token` as issued by `ctx`'s issuer. */
export async function verifyToken(ctx: IssuerContext, token: string): Promise<Verification> {
  const jwt = decodeJwt(token);
  if (!jwt) return { ok: false, reason: "token is not a JWT" };
  const kid = typeof jwt.header.kid === "string" ? jwt.header.kid : undefined;
  const key = await ctx.deps.keys.verificationKey(ctx.issuerId, kid);
  if (!key) return { ok: false, reason: "unknown kid" };
  if (!(await verifySignature(key, jwt))) return { ok: false, reason: "invalid signature" };
  const { claims } = jwt;
  if (claims.iss !== ctx.issuerUrl) return { ok: false, reason: "iss does not match the issuer" };
  const now = ctx.deps.clock.now() / 1000;
  if (typeof claims.exp !== "number" || claims.exp <= now) {
    return { ok: false, reason: "token has expired" };
  }
  if (typeof claims.nbf === "number" && claims.nbf > now) {
    return { ok: false, reason: "token is not yet valid" };
  }
  if (typeof claims.jti === "string" && ctx.deps.state.revoked.has(claims.jti)) {
    return { ok: false, reason: "token has been revoked" };
  }
  return { ok: true, claims };
}
