/**
 * Temporary stand-in for the parts of `@svc/shared` the control plane uses, written to the
 * contract's signatures so that switching to the kit is a change of this file only.
 * @module
 */

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
  readonly type?: string;
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
    this.type = options.type;
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Content Too Large",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
};

export function problemResponse(problem: Problem, init: { headers?: HeadersInit } = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/problem+json");
  const body = {
    type: problem.type ?? "about:blank",
    title: problem.title ?? STATUS_TEXT[problem.status] ?? "Error",
    ...problem,
  };
  return new Response(JSON.stringify(body), { status: problem.status, headers });
}

export function errorResponse(err: unknown, _options: { instance?: string } = {}): Response {
  if (err instanceof HttpError) {
    return problemResponse({
      ...err.extra,
      type: err.type,
      title: err.title,
      status: err.status,
      detail: err.message,
      ...(err.errors ? { errors: err.errors } : {}),
    }, { headers: err.headers });
  }
  return problemResponse({ status: 500, title: "Internal Server Error" });
}

const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  "μs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export function parseDuration(text: string): number {
  const match = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(text);
  if (text === "0") return 0;
  if (!match) throw new RangeError(`Cannot parse duration: "${text}"`);
  let total = 0;
  for (
    const part of text.slice(match[1].length).matchAll(
      /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g,
    )
  ) {
    total += Number(part[1]) * UNITS[part[2]];
  }
  return match[1] === "-" ? -total : total;
}

export async function readBody(req: Request, options: { limit: number }): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > options.limit) {
    throw new HttpError(413, "body_too_large", "Request body too large");
  }
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req.body) {
    size += chunk.byteLength;
    if (size > options.limit) throw new HttpError(413, "body_too_large", "Request body too large");
    chunks.push(chunk);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
