/**
 * The proxy's error responses: every failure is an `HttpError` (from the kit) whose `code` is one
 * of the status-table codes (docs/image-proxy.md#status-codes), rendered here, in one place, as
 * `{code, request_id}`.
 *
 * @module
 */
import { HttpError } from "@svc/shared/problem";

/** The stable body codes of the status table (docs/image-proxy.md#status-codes). */
export type ErrorCode =
  | "invalid_input"
  | "not_found"
  | "method_not_allowed"
  | "precondition_failed"
  | "range_not_satisfiable"
  | "internal_failure"
  | "unauthorized_upstream"
  | "stream_limit"
  | "unavailable"
  | "deadline_exceeded";

/** Status of each code, as the status table lists it. */
const STATUS_OF: Record<ErrorCode, number> = {
  "invalid_input": 400,
  "not_found": 404,
  "method_not_allowed": 405,
  "precondition_failed": 412,
  "range_not_satisfiable": 416,
  "internal_failure": 500,
  "unauthorized_upstream": 502,
  "stream_limit": 503,
  "unavailable": 503,
  "deadline_exceeded": 504,
};

/**
 * Builds the error of a status-table code.
 *
 * @example Usage
 * ```ts
 * import { proxyError } from "./errors.ts";
 * proxyError("not_found", "Cannot read object: it does not exist").status; // 404
 * ```
 */
export function proxyError(
  code: ErrorCode,
  detail: string,
  options: { headers?: HeadersInit; cause?: unknown } = {},
): HttpError {
  return new HttpError(STATUS_OF[code], code, detail, options);
}

/**
 * Renders an error as the contract's body `{code, request_id}` (no body for HEAD). Anything that is
 * not an `HttpError` becomes 500 `internal_failure`; the caller logs it.
 */
export function errorBody(
  err: unknown,
  options: { requestId: string; head?: boolean },
): Response {
  const code = errorCodeOf(err);
  const status = STATUS_OF[code];
  const headers = new Headers(err instanceof HttpError ? err.headers : undefined);
  headers.set("content-type", "application/json");
  headers.set("cache-control", "no-store");
  const body = JSON.stringify({ code, request_id: options.requestId });
  return new Response(options.head ? null : body, { status, headers });
}

/**
 * The status-table code of anything thrown: an `HttpError` with one of the codes keeps it,
 * anything else is `internal_failure`.
 *
 * @example Usage
 * ```ts
 * import { errorCodeOf, proxyError } from "./errors.ts";
 * errorCodeOf(proxyError("not_found", "gone")); // "not_found"
 * errorCodeOf(new TypeError("bug")); // "internal_failure"
 * ```
 */
export function errorCodeOf(err: unknown): ErrorCode {
  return err instanceof HttpError && err.code in STATUS_OF
    ? err.code as ErrorCode
    : "internal_failure";
}
