/**
 * Which issuer and endpoint a protocol path names, for the parts of the service that read a path
 * without routing it (the captured-request log). An issuer id may have several segments
 * (`/realms/x/token`), so the endpoint suffix decides, as in the route table (`routes.ts`, whose
 * rows `routes_test.ts` checks against {@linkcode ISSUER_SUFFIXES}): the first fixed suffix that
 * ends the path, the issuer being everything before it (`/a/register/token` is the token endpoint
 * of issuer `a/register`); `register/{client}` only when no fixed suffix does.
 *
 * @module
 */

/** The suffixes of `/{issuer}/…` rows, in the table's order (`register/*` stands for the client). */
const ISSUER_SUFFIXES = [
  ".well-known/openid-configuration",
  "authorize",
  "token",
  "userinfo",
  "introspect",
  "revoke",
  "endsession",
  "jwks",
  ".well-known/oauth-authorization-server",
  "device_authorization",
  "device",
  "register",
  "par",
  "debugger",
  "debugger/callback",
  "register/*",
] as const;

/** The RFC 8414 path-insertion prefix: the issuer comes last. */
export const RFC8414_PREFIX = "/.well-known/oauth-authorization-server/";

/**
 * The still-encoded issuer part and the suffix of a protocol path, or `undefined` when no suffix
 * ends it. RFC 8414's `/.well-known/oauth-authorization-server/{issuer}` has the suffix
 * `.well-known/oauth-authorization-server`.
 */
export function splitIssuerPath(path: string): { issuer: string; suffix: string } | undefined {
  if (path.startsWith(RFC8414_PREFIX)) {
    return {
      issuer: path.slice(RFC8414_PREFIX.length),
      suffix: ".well-known/oauth-authorization-server",
    };
  }
  for (const suffix of ISSUER_SUFFIXES) {
    if (suffix === "register/*") {
      const m = /^\/(.+)\/register\/[^/]+$/.exec(path);
      if (m) return { issuer: m[1], suffix };
      continue;
    }
    if (path.length > suffix.length + 2 && path.endsWith(`/${suffix}`)) {
      return { issuer: path.slice(1, -suffix.length - 1), suffix };
    }
  }
  return undefined;
}
