/**
 * The errors of the MCP endpoint whose bodies are not problems: the RFC 6750 bearer errors
 * (`{"error": …, "error_description": …}` with a `WWW-Authenticate` challenge) and the JSON-RPC
 * errors answered before the MCP SDK sees a request (an `Origin` refused, a body that is not JSON,
 * the issuer unreachable). Each is an `HttpError` with a stable `code` and a body of its own
 * ({@linkcode EndpointError.toResponse}), thrown by the route's wrappers and rendered by the kit's
 * one error boundary, as every problem is.
 *
 * @module
 */
import { HttpError } from "@svc/shared/problem";

/** An `HttpError` that carries its own JSON body (not a problem). */
export class EndpointError extends HttpError {
  /** The response body, as the wire format of its kind spells it. */
  readonly body: Readonly<Record<string, unknown>>;
  /**
   * Creates the error.
   * @param status The HTTP status.
   * @param code The stable code, e.g. `invalid_token`.
   * @param body The response body.
   * @param headers Response headers (e.g. `WWW-Authenticate`).
   */
  constructor(
    status: number,
    code: string,
    body: Record<string, unknown>,
    headers?: HeadersInit,
  ) {
    super(status, code, undefined, { headers });
    this.name = "EndpointError";
    this.body = body;
  }

  /** The body as JSON, with the error's status and headers. */
  override toResponse(): Response {
    return Response.json(this.body, { status: this.status, headers: this.headers });
  }
}

/**
 * A JSON-RPC error answered with HTTP `status` (`id` null: the request was not read as JSON-RPC).
 * @param status The HTTP status.
 * @param code The stable code of the error.
 * @param rpcCode The JSON-RPC error code, e.g. -32700.
 * @param message The JSON-RPC error message.
 */
export function jsonRpcError(
  status: number,
  code: string,
  rpcCode: number,
  message: string,
): EndpointError {
  return new EndpointError(status, code, {
    jsonrpc: "2.0",
    error: { code: rpcCode, message },
    id: null,
  });
}
