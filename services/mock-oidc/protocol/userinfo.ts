/**
 * `GET|POST /{issuer}/userinfo`: returns every claim of a valid access token. Failures are 401
 * `invalid_token` with a `WWW-Authenticate` challenge (upstream sent none). A DPoP-bound token
 * (`cnf.jkt`) must come as `Authorization: DPoP` with a proof of its key (RFC 9449 §7); as
 * `Bearer` it is refused with a `DPoP` challenge.
 *
 * @module
 */

import { lazyModuleAt } from "@svc/shared/lazy-module";
import type { IssuerContext } from "./deps.ts";
import { DpopError } from "./dpop_rules.ts";
import { readForm } from "./form.ts";
import { invalidToken, OAuthError } from "./oauth_error.ts";
import { jsonResponse } from "./responses.ts";
import { verifyToken } from "./verify_token.ts";

// Loaded by the first request that presents a token with the DPoP scheme.
const dpop = lazyModuleAt<typeof import("./dpop.ts")>(import.meta.resolve("./dpop.ts"));

/** Handle a userinfo request. */
export async function handleUserinfo(ctx: IssuerContext): Promise<Response> {
  const header = ctx.req.headers.get("authorization");
  let token: string | undefined;
  const scheme = header ? /^(bearer|dpop) /i.exec(header)?.[1].toLowerCase() : undefined;
  if (scheme) token = header!.slice(scheme.length + 1).trim();
  if (!token && ctx.req.method === "POST") {
    token = (await readForm(ctx.req)).get("access_token") ?? undefined;
  }
  if (!token) {
    throw new OAuthError(401, "invalid_token", "missing Bearer access token", {
      headers: { "WWW-Authenticate": 'Bearer realm="mock-oidc"' },
    });
  }
  let jkt: string | undefined;
  if (scheme === "dpop") {
    const proof = ctx.req.headers.get("dpop");
    try {
      if (proof === null) {
        throw new DpopError("invalid_dpop_proof", "the DPoP scheme needs a DPoP proof header");
      }
      const { verifyProof } = await dpop();
      jkt = (await verifyProof(ctx, {
        proof,
        method: ctx.req.method,
        url: `${ctx.baseUrl}/userinfo`,
        accessToken: token,
      })).jkt;
    } catch (err) {
      throw err instanceof DpopError ? err.atResource() : err;
    }
  }
  const result = await verifyToken(ctx, token);
  if (!result.ok) throw invalidToken(result.reason);
  const bound = (result.claims.cnf as { jkt?: unknown } | undefined)?.jkt;
  if (typeof bound === "string" && jkt === undefined) {
    throw new DpopError(
      "invalid_token",
      "the access token is DPoP-bound: present it with Authorization: DPoP and a proof",
    ).atResource();
  }
  if (jkt !== undefined && bound !== jkt) {
    throw new DpopError(
      "invalid_dpop_proof",
      "the DPoP proof's key is not the key the access token is bound to",
    ).atResource();
  }
  return jsonResponse(result.claims, { noStore: true });
}
