/**
 * What went wrong with a storage request, in a fixed vocabulary, from the errors
 * `@aws-sdk/client-s3` throws. Classified by HTTP status first and by the error name only where a
 * body carried one (the SDK names an error from its XML body's `Code`): HEAD errors have no body,
 * so a HEAD 403 is `denied` whatever its reason.
 *
 * @module
 */
import { proxyError } from "../errors.ts";
import type { HttpError } from "@svc/shared/problem";

/** Stable codes of storage failures; also the `error.kind` of logs and metrics. */
export type StoreErrorCode =
  | "not_found"
  | "denied"
  | "misconfigured"
  | "unavailable"
  | "timeout"
  | "changed"
  | "aborted"
  | "failed";

/** A storage request failed; `code` says how, `cause` keeps the SDK's error (never logged raw). */
export class StoreError extends Error {
  /** Stable code callers switch on. */
  readonly code: StoreErrorCode;
  /** A permission the process lacks, naming the host or path and how to grant it (safe to log). */
  readonly permission?: string;
  constructor(
    code: StoreErrorCode,
    message: string,
    options: { cause?: unknown; permission?: string } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "StoreError";
    this.code = code;
    if (options.permission) this.permission = options.permission;
  }
}

/**
 * The missing permission behind `err` (a {@linkcode StoreError} or an error caused by one), for
 * log records; `undefined` otherwise.
 */
export function permissionOf(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof StoreError && e.permission) return e.permission;
  }
  return undefined;
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNABORTED",
]);
const DENIED_NAMES = new Set([
  "AccessDenied",
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "ExpiredToken",
  "InvalidToken",
  "TokenRefreshRequired",
  "AuthorizationHeaderMalformed",
  "InvalidSecurity",
  "CredentialsProviderError",
]);

interface SdkLikeError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

/**
 * Classifies anything a storage call threw.
 *
 * @example Usage
 * ```ts
 * import { classifyStoreError } from "./errors.ts";
 * classifyStoreError({ name: "NoSuchKey", $metadata: { httpStatusCode: 404 } }); // "not_found"
 * classifyStoreError({ name: "Error", code: "ECONNREFUSED" }); // "unavailable"
 * ```
 */
export function classifyStoreError(err: unknown): StoreErrorCode {
  if (err instanceof StoreError) return err.code;
  if (typeof err !== "object" || err === null) return "failed";
  const { name = "", code = "", $metadata } = err as SdkLikeError;
  if (name === "AbortError") return "aborted";
  const status = $metadata?.httpStatusCode;
  if (status === undefined || status < 300) {
    // The Node handler renames ECONNRESET and EPIPE errors "TimeoutError": the code decides.
    if (NETWORK_CODES.has(code)) return "unavailable";
    if (name === "TimeoutError" || code === "ETIMEDOUT") return "timeout";
    if (/socket hang up|ECONNRESET|ECONNREFUSED/.test(String(err))) return "unavailable";
    if (DENIED_NAMES.has(name)) return "denied";
    return "failed";
  }
  if (status === 404) return name === "NoSuchBucket" ? "misconfigured" : "not_found";
  if (status === 401 || status === 403 || DENIED_NAMES.has(name)) return "denied";
  // Redirects are not followed (fetch_handler.ts): wrong region or endpoint, never retried.
  if ((status >= 300 && status < 400 && status !== 304) || name === "PermanentRedirect") {
    return "misconfigured";
  }
  if (status === 412 || status === 416) return "changed";
  if (status === 504 || name === "RequestTimeout") return "timeout";
  if (status >= 500 || status === 429 || name === "SlowDown") return "unavailable";
  return "failed";
}

/**
 * The client-facing error of a storage failure (docs/image-proxy.md#status-codes).
 *
 * @example Usage
 * ```ts
 * import { storeHttpError } from "./errors.ts";
 * storeHttpError("denied").status; // 502
 * ```
 */
export function storeHttpError(code: StoreErrorCode, cause?: StoreError): HttpError {
  const err = httpErrorOf(code);
  if (cause) Object.defineProperty(err, "cause", { value: cause });
  return err;
}

function httpErrorOf(code: StoreErrorCode): HttpError {
  switch (code) {
    case "not_found":
      return proxyError("not_found", "Cannot read object: it does not exist");
    case "denied":
      return proxyError(
        "unauthorized_upstream",
        "Cannot read object: storage rejected the proxy's credentials",
      );
    case "unavailable":
    case "changed":
      return proxyError("unavailable", "Cannot read object: storage is unavailable", {
        headers: { "Retry-After": "1" },
      });
    case "timeout":
      return proxyError("deadline_exceeded", "Cannot read object: storage timed out");
    default:
      return proxyError("internal_failure", "Cannot read object: storage failed");
  }
}
