/**
 * Request capture middleware for the API listener: records each protocol request in the
 * request log with its exact raw body bytes, then hands the protocol handler a request that
 * reads back those same bytes. Not installed at all in dedicated-control-listener mode.
 * @module
 */
import { readBody, withBodyBytes } from "@svc/shared/http";
import type { CapturedRequest, RequestLog } from "./request_log.ts";
import { holdBody, leaseBody } from "./captured_body.ts";
import type { Handler } from "@svc/shared/http";
import { splitIssuerPath } from "../protocol/issuer_path.ts";
import { dpopNoteOf } from "../protocol/dpop_challenges.ts";

/** Largest protocol request body captured (and forwarded). */
const CAPTURE_BODY_LIMIT = 1024 * 1024;

/** Methods `new Request()` takes unchanged. */
const REBUILDABLE = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]);

const EXCLUDED_EXACT = new Set(["/", "/healthz", "/readyz", "/isalive", "/metrics", "/docs"]);

/**
 * Routes never captured: the control plane, operational routes, docs and favicon, plus the
 * static files, which belong to no issuer.
 */
export function isExcludedFromCapture(path: string): boolean {
  return EXCLUDED_EXACT.has(path) || path === "/favicon.ico" || path.startsWith("/_mock") ||
    path.startsWith("/openapi") || path.startsWith("/docs/") || path.startsWith("/static/");
}

export interface CaptureOptions {
  log: RequestLog;
  /** Wall clock for `receivedAt`, in ms. @default Date.now */
  now?: () => number;
  /** @default crypto.randomUUID */
  randomId?: () => string;
}

function multiMap(entries: Iterable<[string, string]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of entries) (out[name] ??= []).push(value);
  return out;
}

function headerMap(headers: Headers): Record<string, string[]> {
  const out = multiMap([...headers].filter(([name]) => name !== "set-cookie"));
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  return out;
}

/**
 * The issuer id a protocol path addresses: what precedes its endpoint suffix (several segments
 * allowed; RFC 8414 discovery puts it last), else the first segment.
 */
export function issuerOfPath(path: string): string {
  const raw = splitIssuerPath(path)?.issuer ?? path.split("/")[1] ?? "";
  return raw.split("/").map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  }).join("/");
}

/** Builds the CapturedRequest for `req` whose body bytes were already read. */
export function captureOf(
  req: Request,
  bytes: Uint8Array,
  options: { id: string; receivedAt: Date },
): CapturedRequest {
  const url = new URL(req.url);
  const entry: CapturedRequest = {
    id: options.id,
    receivedAt: options.receivedAt.toISOString(),
    issuer: issuerOfPath(url.pathname),
    method: req.method,
    path: url.pathname,
    url: req.url,
    query: multiMap(url.searchParams),
    headers: headerMap(req.headers),
  };
  if (bytes.length > 0) holdBody(entry, bytes);
  return entry;
}

/** Wraps the protocol handler so every non-excluded request is appended to `options.log`. */
export function withCapture(handler: Handler, options: CaptureOptions): Handler {
  const record = captureRun(options);
  return function capture(req, info) {
    const path = new URL(req.url).pathname;
    if (isExcludedFromCapture(path)) return handler(req, info);
    return record(req, (forwarded) => handler(forwarded, info));
  };
}

/**
 * Records one request the provider sends itself (the debugger's PAR, token and userinfo calls,
 * made in-process: `ProtocolDeps.captureInProcess`) in `options.log` as {@linkcode withCapture}
 * records a received one, with its DPoP outcome; `run` answers it.
 */
export function captureInProcess(
  options: CaptureOptions,
): (req: Request, run: (req: Request) => Promise<Response>) => Promise<Response> {
  return captureRun(options);
}

function captureRun(
  options: CaptureOptions,
): (req: Request, run: (req: Request) => Response | Promise<Response>) => Promise<Response> {
  const now = options.now ?? Date.now;
  const randomId = options.randomId ?? (() => crypto.randomUUID());
  return async function record(req, run) {
    // Deno hands the body over in 64 KiB chunks of its own: freed as soon as they are copied.
    // A large body kept in the log lives in pages of its own, which leave the process when the
    // log drops it (see captured_body.ts).
    const bytes = await readBody(req, {
      limit: CAPTURE_BODY_LIMIT,
      releaseChunks: true,
      pageBacked: true,
    });
    const entry = captureOf(req, bytes, { id: randomId(), receivedAt: new Date(now()) });
    // The handler reads the very bytes the log keeps: they stay valid until it is done, even if
    // the log drops the entry meanwhile.
    const done = leaseBody(entry);
    try {
      options.log.append(entry);
      // `new Request` refuses TRACE, TRACK and CONNECT and upper-cases `get`: no protocol route
      // takes such a method, so the original request goes on to its 405 as it came.
      // `readBody` on the forwarded request gives these bytes back: no second copy.
      const forwarded = REBUILDABLE.has(req.method) ? withBodyBytes(req, bytes) : req;
      try {
        return answered(await run(forwarded), entry);
      } finally {
        // A DPoP proof's key and whether it verified, however the request was answered; a
        // console that listed the entry while it was answered lists it again.
        const dpop = dpopNoteOf(forwarded);
        if (dpop) {
          entry.dpop = dpop;
          options.log.changes.bump();
        }
      }
    } finally {
      done();
    }
  };
}

function answered(res: Response, entry: CapturedRequest): Response {
  // A fault's answer names it: the entry says which fault answered the request.
  const fault = res.headers.get("x-mock-oidc-fault");
  if (fault !== null) entry.fault = fault;
  return res;
}
