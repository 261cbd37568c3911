/**
 * Access-token audience and subject rules of upstream's default callback.
 *
 * @module
 */

/** Scopes that name OpenID Connect claims rather than an API audience. */
const OIDC_SCOPES = new Set([
  "openid",
  "profile",
  "email",
  "address",
  "phone",
  "offline_access",
]);

/**
 * Access-token `aud`, first that applies: RFC 8693 `audience` params; the requested scope minus
 * OIDC scopes (may be empty when only OIDC scopes were asked for); `["default"]`.
 */
export function defaultAudience(params: URLSearchParams, scope: string[] | undefined): string[] {
  const audience = params.getAll("audience").flatMap((a) => a.split(" ")).filter(Boolean);
  if (audience.length > 0) return audience;
  if (scope && scope.length > 0) return scope.filter((s) => !OIDC_SCOPES.has(s));
  return ["default"];
}

/** Split a space-delimited `scope` parameter. */
export function parseScope(value: string | null | undefined): string[] {
  return value ? value.split(" ").filter(Boolean) : [];
}
