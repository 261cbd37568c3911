/**
 * `GET /{issuer}/jwks`: the issuer's public key, serialised once per issuer.
 *
 * @module
 */

import type { IssuerContext } from "./deps.ts";

/** Handle a JWKS request. */
export async function handleJwks(ctx: IssuerContext): Promise<Response> {
  const key = await ctx.deps.keys.issuerKey(ctx.issuerId);
  return new Response(key.jwksJson, { headers: { "Content-Type": "application/json" } });
}
