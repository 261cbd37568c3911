/**
 * RFC 6749 errors of the protocol endpoints: a JSON body `{error, error_description}` with the
 * code in its correct case, `Cache-Control: no-store`, and `WWW-Authenticate` on 401.
 *
 * @module
 */

/** A protocol error; {@linkcode oauthErrorResponse} renders it. */
export class OAuthError extends Error {
  readonly status: number;
  readonly error: string;
  readonly headers: HeadersInit | undefined;

  constructor(
    status: number,
    error: string,
    description: string,
    options: { headers?: HeadersInit } = {},
  ) {
    super(description);
    this.name = "OAuthError";
    this.status = status;
    this.error = error;
    this.headers = options.headers;
  }
}

/** `400 invalid_request`. */
export function invalidRequest(description: string): OAuthError {
  return new OAuthError(400, "invalid_request", description);
}

/** `400 invalid_grant`. */
export function invalidGrant(description: string): OAuthError {
  return new OAuthError(400, "invalid_grant", description);
}

/** `401 invalid_client` with a Basic challenge. */
export function invalidClient(description: string): OAuthError {
  return new OAuthError(401, "invalid_client", description, {
    headers: { "WWW-Authenticate": 'Basic realm="mock-oidc"' },
  });
}

/** `401 invalid_token` with a Bearer challenge (RFC 6750). */
export function invalidToken(description: string): OAuthError {
  const quoted = description.replace(/["\\]/g, "");
  return new OAuthError(401, "invalid_token", description, {
    headers: {
      "WWW-Authenticate": `Bearer error="invalid_token", error_description="${quoted}"`,
    },
  });
}

/** Render an OAuthError as an RFC 6749 JSON response. */
export function oauthErrorResponse(err: OAuthError): Response {
  const headers = new Headers(err.headers);
  headers.set("Content-Type", "application/json");
  headers.set("Cache-Control", "no-store");
  return new Response(JSON.stringify({ error: err.error, error_description: err.message }), {
    status: err.status,
    headers,
  });
}
