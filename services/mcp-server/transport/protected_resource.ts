/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP endpoint, and the 401 challenge
 * that points clients at it (MCP authorization: `WWW-Authenticate: Bearer resource_metadata=…`).
 * @module
 */

/** Path of the metadata document (served also with the `/mcp` suffix form of RFC 9728 §3.1). */
export const METADATA_PATH = "/.well-known/oauth-protected-resource";

/** The metadata document for the MCP endpoint at `origin`. */
export function protectedResourceMetadata(origin: string, issuer: string): Record<string, unknown> {
  return {
    resource: `${origin}/mcp`,
    authorization_servers: [issuer],
    bearer_methods_supported: ["header"],
    resource_name: "mcp-server",
  };
}

/** 401 with a Bearer challenge naming the metadata URL (`invalid_token` when one was sent). */
export function unauthorizedResponse(origin: string, invalid: boolean): Response {
  const params = [`resource_metadata="${origin}${METADATA_PATH}"`];
  if (invalid) params.push('error="invalid_token"');
  const body = invalid
    ? { error: "invalid_token", error_description: "The access token is invalid or expired" }
    : { error: "invalid_request", error_description: "A bearer access token is required" };
  return Response.json(body, {
    status: 401,
    headers: { "www-authenticate": `Bearer ${params.join(", ")}`, "cache-control": "no-store" },
  });
}
