/**
 * What the bearer verifier takes from `jose`, in a module of its own so that `bearer.ts` can
 * import it by URL on first use (`@svc/shared/lazy-module`): the server's start and its health
 * routes need none of the JWT library. Listed in mcp-server's `include` (deploy/services.ts), which
 * also embeds `jose` in a compiled binary.
 * @module
 */
export { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify } from "jose";
