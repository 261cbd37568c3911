/**
 * Resource indicators (RFC 8707): the `resource` parameter of the authorization and token
 * requests names where the access token will be used, and becomes its `aud`. Repeatable; each
 * value an absolute URI without a fragment, else `invalid_target`. A later request may narrow
 * the resources granted earlier (code redemption, refresh), never widen them.
 *
 * @module
 */

import { OAuthError } from "./oauth_error.ts";

/** Longest accepted `resource` value, characters (a bound on what goes into a token). */
export const MAX_RESOURCE_LENGTH = 2048;

/** Most `resource` parameters in one request. */
export const MAX_RESOURCES = 16;

/** `400 invalid_target` (RFC 8707 §2). */
function invalidTarget(description: string): OAuthError {
  return new OAuthError(400, "invalid_target", description);
}

/** Whether `value` is an absolute URI (a scheme, RFC 3986 §4.3) without a fragment. */
export function isResourceUri(value: string): boolean {
  if (value.includes("#") || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value)) return false;
  return URL.canParse(value) && !/[\s<>"{}|\\^`]/.test(value);
}

/** The `resource` values of a request, deduplicated in order; throws `invalid_target`. */
export function parseResources(params: URLSearchParams): string[] {
  const values = params.getAll("resource");
  if (values.length > MAX_RESOURCES) {
    throw invalidTarget(`at most ${MAX_RESOURCES} resource parameters are accepted`);
  }
  for (const value of values) {
    if (value.length > MAX_RESOURCE_LENGTH) {
      throw invalidTarget(`resource is longer than ${MAX_RESOURCE_LENGTH} characters`);
    }
    if (!isResourceUri(value)) {
      throw invalidTarget(`resource must be an absolute URI without a fragment: ${value}`);
    }
  }
  return [...new Set(values)];
}

/**
 * The resources of a follow-up request: the requested ones, which must be among those granted
 * earlier when any were; the granted ones when none is requested.
 */
export function narrowResources(requested: string[], granted: string[]): string[] {
  if (requested.length === 0) return granted;
  if (granted.length === 0) return requested;
  const extra = requested.find((r) => !granted.includes(r));
  if (extra !== undefined) {
    throw invalidTarget(`resource was not part of the original grant: ${extra}`);
  }
  return requested;
}
