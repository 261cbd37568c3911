/**
 * RFC 6749 errors of the protocol endpoints: an `HttpError` whose body is not a problem but
 * `{error, error_description}` with the code in its correct case, with `Cache-Control: no-store`
 * and `WWW-Authenticate` on 401. Thrown by the endpoints and rendered by the one error boundary,
 * like every other error (the kit's `errorResponse` sends {@linkcode OAuthError.toResponse}).
 *
 * @module
 */
import { HttpError } from "@svc/shared/problem";

/** A protocol error: `code` is the RFC 6749 `error`, the message its `error_description`. */
export class OAuthError extends HttpError {
  /**
   * @param status The HTTP status.
   * @param code The RFC 6749 error code (`invalid_grant`, …), the body's `error`.
   * @param description The body's `error_description`.
   * @param options Response headers (`WWW-Authenticate`).
   */
  constructor(
    status: number,
    code: string,
    description: string,
    options: { headers?: HeadersInit } = {},
  ) {
    super(status, code, description, { headers: options.headers });
    this.name = "OAuthError";
  }

  /** The RFC 6749 JSON body (§5.2), never cached. */
  override toResponse(): Response {
    const headers = new Headers(this.headers);
    headers.set("Content-Type", "application/json");
    headers.set("Cache-Control", "no-store");
    return new Response(JSON.stringify({ error: this.code, error_description: this.message }), {
      status: this.status,
      headers,
    });
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
