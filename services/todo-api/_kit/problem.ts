// TEMPORARY stand-in for @svc/shared/problem (same API) until the kit lands on main.
export interface ErrorDetail {
  location?: string;
  message: string;
  value?: unknown;
}
export interface Problem {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  instance?: string;
  errors?: ErrorDetail[] | null;
  [ext: string]: unknown;
}
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors?: ErrorDetail[];
  readonly headers?: HeadersInit;
  readonly extra?: Record<string, unknown>;
  readonly title?: string;
  constructor(
    status: number,
    code: string,
    detail?: string,
    options: {
      title?: string;
      type?: string;
      errors?: ErrorDetail[];
      headers?: HeadersInit;
      cause?: unknown;
      extra?: Record<string, unknown>;
    } = {},
  ) {
    super(detail ?? code, { cause: options.cause });
    this.status = status;
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers;
    this.extra = options.extra;
    this.title = options.title;
  }
}
const TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  500: "Internal Server Error",
  503: "Service Unavailable",
};
export function problemResponse(problem: Problem, init: { headers?: HeadersInit } = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/problem+json");
  return new Response(
    JSON.stringify({ type: "about:blank", title: TEXT[problem.status] ?? "Error", ...problem }),
    { status: problem.status, headers },
  );
}
export function errorResponse(
  err: unknown,
  options: {
    logger?: { error(msg: string, f?: Record<string, unknown>): void };
    instance?: string;
  },
): Response {
  if (err instanceof HttpError) {
    return problemResponse({
      ...(err.extra ?? {}),
      status: err.status,
      ...(err.title ? { title: err.title } : {}),
      detail: err.message,
      ...(err.errors ? { errors: err.errors } : {}),
    }, { headers: err.headers });
  }
  options.logger?.error("unhandled error", { error: String(err) });
  return problemResponse({ status: 500, title: "Internal Server Error" });
}
