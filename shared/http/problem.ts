/**
 * RFC 9457 problem details: the one `HttpError` type and the one place that turns any thrown
 * value into an `application/problem+json` response.
 *
 * @module
 */
import { STATUS_TEXT } from "./status_text.ts";
import type { Logger } from "../observe/log.ts";

/** Where and why one input was rejected (Huma's ErrorDetail). */
export interface ErrorDetail {
  /** e.g. `body.title`, `query.limit`. */
  location?: string;
  /** Why the input was rejected. */
  message: string;
  /** The rejected value, when it is safe to echo. */
  value?: unknown;
}

/** An RFC 9457 problem body. */
export interface Problem {
  /** URI reference naming the problem type. @default {"about:blank"} */
  type?: string;
  /** Short summary of the problem type. */
  title?: string;
  /** The HTTP status code. */
  status: number;
  /** Explanation of this occurrence. */
  detail?: string;
  /** URI reference of this occurrence. */
  instance?: string;
  /** Every input that was rejected. */
  errors?: ErrorDetail[] | null;
  /** Extension members. */
  [extension: string]: unknown;
}

/** Options of {@linkcode HttpError}. */
export interface HttpErrorOptions {
  /** The problem's title. @default {the status text} */
  title?: string;
  /** The problem's type. @default {"about:blank"} */
  type?: string;
  /** Every input that was rejected. */
  errors?: ErrorDetail[];
  /** Headers added to the response (e.g. `Allow`, `Retry-After`). */
  headers?: HeadersInit;
  /** The underlying error, logged, never shown. */
  cause?: unknown;
  /** Extension members added to the problem body. */
  extra?: Record<string, unknown>;
}

/**
 * An error a client caused (or a deliberate server answer). `code` is stable: callers and tests
 * switch on it; it is not part of the body.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpError } from "@svc/shared/problem";
 * const err = new HttpError(404, "todo_not_found", "Cannot find todo: no todo has this id");
 * assert.equal(err.status, 404);
 * assert.equal(err.code, "todo_not_found");
 * ```
 */
export class HttpError extends Error {
  /** The HTTP status of the response. */
  readonly status: number;
  /** Stable code callers switch on (not part of the body). */
  readonly code: string;
  /** See {@linkcode HttpErrorOptions.title}. */
  readonly title?: string;
  /** See {@linkcode HttpErrorOptions.type}. */
  readonly type?: string;
  /** See {@linkcode HttpErrorOptions.errors}. */
  readonly errors?: ErrorDetail[];
  /** See {@linkcode HttpErrorOptions.headers}. */
  readonly headers?: HeadersInit;
  /** See {@linkcode HttpErrorOptions.extra}. */
  readonly extra?: Record<string, unknown>;
  /**
   * Creates the error; it becomes a problem response where errors are rendered.
   *
   * @param status The HTTP status.
   * @param code The stable code.
   * @param detail The problem's detail. @default {the status text}
   * @param options Title, type, errors, headers, cause, extension members.
   */
  constructor(status: number, code: string, detail?: string, options: HttpErrorOptions = {}) {
    super(detail ?? STATUS_TEXT[status] ?? code, { cause: options.cause });
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.title = options.title;
    this.type = options.type;
    this.errors = options.errors;
    this.headers = options.headers;
    this.extra = options.extra;
  }

  /** The problem body of this error. */
  toProblem(instance?: string): Problem {
    const problem: Problem = {
      ...this.extra,
      type: this.type ?? "about:blank",
      title: this.title ?? STATUS_TEXT[this.status] ?? "Error",
      status: this.status,
      detail: this.message,
    };
    if (instance) problem.instance = instance;
    if (this.errors) problem.errors = boundedErrors(this.errors);
    return problem;
  }

  /**
   * The response of this error, which the error boundary ({@linkcode errorResponse}) sends: its
   * problem with its headers. An error type whose wire body is not a problem (an OAuth 2.0
   * error, RFC 6749 §5.2) overrides it, and is still rendered in that one place.
   *
   * @example An error with a body of its own
   * ```ts
   * import assert from "node:assert/strict";
   * import { errorResponse, HttpError } from "@svc/shared/problem";
   *
   * class OAuthError extends HttpError {
   *   override toResponse(): Response {
   *     return Response.json({ error: this.code, error_description: this.message }, {
   *       status: this.status,
   *     });
   *   }
   * }
   * const res = errorResponse(new OAuthError(400, "invalid_grant", "the code expired"));
   * assert.deepEqual(await res.json(), { error: "invalid_grant", error_description: "the code expired" });
   * ```
   * @param instance The problem's `instance`: the request path.
   * @returns The response to send.
   */
  toResponse(instance?: string): Response {
    return problemResponse(this.toProblem(instance), { headers: this.headers });
  }
}

/**
 * Builds an `application/problem+json` response.
 *
 * @example Usage
 * ```ts
 * import { problemResponse } from "@svc/shared/problem";
 * const res = problemResponse({ status: 404, detail: "no such issuer" });
 * res.headers.get("content-type"); // "application/problem+json"
 * ```
 */
export function problemResponse(problem: Problem, init: { headers?: HeadersInit } = {}): Response {
  const body: Problem = {
    type: "about:blank",
    ...problem,
    title: problem.title ?? STATUS_TEXT[problem.status] ?? "Error",
  };
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/problem+json");
  return new Response(problemJson(body), { status: problem.status, headers });
}

/** Deepest `errors[].value` kept in a problem body; deeper parts become a marker string. */
export const MAX_PROBLEM_VALUE_DEPTH = 16;
/** Most array items or object keys kept per level of an `errors[].value`. */
export const MAX_PROBLEM_VALUE_WIDTH = 32;

/**
 * Serializes a problem whatever its `errors[].value` holds: an echoed request value can be
 * nested 100 000 deep (JSON.stringify would overflow the stack), huge, or not JSON at all
 * (BigInt, cycles). Values are cut at {@linkcode MAX_PROBLEM_VALUE_DEPTH} levels and
 * {@linkcode MAX_PROBLEM_VALUE_WIDTH} entries per level; long strings at 1 024 characters.
 *
 * @example Usage
 * ```ts
 * import { problemJson } from "@svc/shared/problem";
 * let deep: unknown = 1;
 * for (let i = 0; i < 100_000; i++) deep = [deep];
 * const text = problemJson({ status: 422, errors: [{ location: "body", message: "x", value: deep }] });
 * if (!text.includes('"status":422')) throw new Error("not serialized");
 * ```
 */
export function problemJson(problem: Problem): string {
  if (!problem.errors) return JSON.stringify(problem);
  return JSON.stringify({ ...problem, errors: boundedErrors(problem.errors) });
}

/** The first 100 error details with their values cut as {@linkcode problemJson} describes. */
export function boundedErrors(errors: readonly ErrorDetail[]): ErrorDetail[] {
  return errors.slice(0, 100).map((e) =>
    "value" in e ? { ...e, value: bounded(e.value, MAX_PROBLEM_VALUE_DEPTH) } : e
  );
}

function bounded(value: unknown, depth: number): unknown {
  if (typeof value === "string") {
    return value.length > 1024 ? `${value.slice(0, 1024)}…` : value;
  }
  if (typeof value === "bigint") return value.toString();
  if (value === null || typeof value !== "object") {
    return typeof value === "function" || typeof value === "symbol" ? String(value) : value;
  }
  if (depth <= 0) return Array.isArray(value) ? "[…]" : "{…}";
  if (Array.isArray(value)) {
    return value.slice(0, MAX_PROBLEM_VALUE_WIDTH).map((v) => bounded(v, depth - 1));
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).slice(0, MAX_PROBLEM_VALUE_WIDTH)) {
    out[key] = bounded((value as Record<string, unknown>)[key], depth - 1);
  }
  return out;
}

/**
 * The problem (and response headers) for anything thrown by a handler: an `HttpError` becomes
 * its own problem; anything else becomes a 500 that shows no internals (the detail goes to the
 * log). Services that decorate error bodies (e.g. Huma's `$schema`) start from this.
 *
 * @example Usage
 * ```ts
 * import { HttpError, problemOf } from "@svc/shared/problem";
 * problemOf(new HttpError(404, "todo_not_found")).problem.status; // 404
 * ```
 */
export function problemOf(
  err: unknown,
  options: { logger?: Logger; instance?: string } = {},
): { problem: Problem; headers?: HeadersInit } {
  if (err instanceof HttpError) {
    return { problem: err.toProblem(options.instance), headers: err.headers };
  }
  options.logger?.error("unhandled error", {
    err: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : err,
    instance: options.instance,
  });
  return {
    problem: {
      type: "about:blank",
      status: 500,
      title: "Internal Server Error",
      detail: "The server could not handle this request; the error was logged",
      ...(options.instance ? { instance: options.instance } : {}),
    },
  };
}

/**
 * Turns anything thrown by a handler into a response: an `HttpError` becomes its own response
 * ({@linkcode HttpError.toResponse}: its problem, unless its type has a body of its own); anything
 * else becomes a 500 problem that shows no internals (the detail goes to the log).
 *
 * @example Usage
 * ```ts
 * import { errorResponse, HttpError } from "@svc/shared/problem";
 * errorResponse(new HttpError(400, "bad_input", "Cannot parse body")).status; // 400
 * errorResponse(new Error("db password wrong")).status; // 500, body says nothing of it
 * ```
 */
export function errorResponse(
  err: unknown,
  options: { logger?: Logger; instance?: string } = {},
): Response {
  if (err instanceof HttpError) return err.toResponse(options.instance);
  const { problem, headers } = problemOf(err, options);
  return problemResponse(problem, { headers });
}
