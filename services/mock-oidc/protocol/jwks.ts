/**
 * `GET /{issuer}/jwks`: the issuer's public keys (serialised once per issuer until it rotates),
 * cacheable for a minute: clients' JWKS caching meets what real providers send.
 *
 * @module
 */

import type { IssuerContext } from "./deps.ts";

/** The JWKS answer's `Cache-Control`. */
const JWKS_CACHE_CONTROL = "public, max-age=60";

/** Handle a JWKS request. */
export async function handleJwks(ctx: IssuerContext): Promise<Response> {
  return new Response(await ctx.deps.keys.jwksJson(ctx.issuerId), {
    headers: { "Content-Type": "application/json", "Cache-Control": JWKS_CACHE_CONTROL },
  });
}
