/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP endpoint, and the Bearer
 * challenges (RFC 6750 §3) that point clients at it: 401 when the token is missing or not valid
 * for this resource, 403 `insufficient_scope` when it lacks a required scope. Both carry
 * `resource_metadata` and `scope` (MCP authorization 2025-11-25: the client asks for exactly
 * the scopes the challenge names).
 * @module
 */
import { EndpointError } from "./endpoint_error.ts";

/** Path of the metadata document (served also with the `/mcp` suffix form of RFC 9728 §3.1). */
export const METADATA_PATH = "/.well-known/oauth-protected-resource";

/** Path of the MCP endpoint. */
export const MCP_PATH = "/mcp";

/** The canonical resource URI of the MCP endpoint at `origin` (RFC 8707 §2: no fragment). */
export function resourceUri(origin: string): string {
  return `${origin}${MCP_PATH}`;
}

/** The metadata document for the MCP endpoint at `origin`. */
export function protectedResourceMetadata(
  origin: string,
  issuer: string,
  scopes: readonly string[] = [],
): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    resource: resourceUri(origin),
    "authorization_servers": [issuer],
    "bearer_methods_supported": ["header"],
    "resource_name": "mcp-server",
  };
  if (scopes.length > 0) doc.scopes_supported = [...scopes];
  return doc;
}

/** What a challenge says. */
export interface ChallengeOptions {
  /** Origin of the metadata URL. */
  origin: string;
  /** Scopes a token needs (`scope=`; omitted when empty). */
  scopes: readonly string[];
}

function challenge(options: ChallengeOptions, error?: string): string {
  const params = [`resource_metadata="${options.origin}${METADATA_PATH}"`];
  if (options.scopes.length > 0) params.push(`scope="${options.scopes.join(" ")}"`);
  if (error) params.push(`error="${error}"`);
  return `Bearer ${params.join(", ")}`;
}

/** 401 with a Bearer challenge naming the metadata URL (`invalid_token` when one was sent). */
export function unauthorizedError(options: ChallengeOptions, invalid: boolean): EndpointError {
  const body = invalid
    ? { error: "invalid_token", error_description: "The access token is invalid or expired" }
    : { error: "invalid_request", error_description: "A bearer access token is required" };
  return new EndpointError(401, body.error, body, {
    "www-authenticate": challenge(options, invalid ? "invalid_token" : undefined),
    "cache-control": "no-store",
  });
}

/** 403 `insufficient_scope` (RFC 6750 §3.1) naming the scopes a token needs. */
export function insufficientScopeError(options: ChallengeOptions): EndpointError {
  const body = {
    error: "insufficient_scope",
    "error_description": `The access token lacks the required scope: ${options.scopes.join(" ")}`,
  };
  return new EndpointError(403, body.error, body, {
    "www-authenticate": challenge(options, "insufficient_scope"),
    "cache-control": "no-store",
  });
}

/** Whether a token's scopes include every required one. */
export function hasScopes(granted: readonly string[], required: readonly string[]): boolean {
  return required.every((scope) => granted.includes(scope));
}
