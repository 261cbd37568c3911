/**
 * `/_mock/requests`: list (GET, non-destructive, optional `issuer`/`endpoint` filters), clear
 * (DELETE) and the destructive long-poll `take` (POST /_mock/requests/take).
 * @module
 */
import { extendTimeout, timeoutSignalOf } from "@svc/shared/http";
import { HttpError } from "@svc/shared/problem";
import { controlJson } from "./control_deps.ts";
import {
  type CapturedRequest,
  type Endpoint,
  ENDPOINTS,
  MAX_CHANGES_TIMEOUT_MS,
  type RequestFilter,
  type RequestLog,
} from "./request_log.ts";
import { leaseBody } from "./captured_body.ts";
import { readJsonBody, validateObject, validationError } from "./validation.ts";

/** How long a take waits when the body names no `timeoutMs`. */
const DEFAULT_TAKE_TIMEOUT_MS = 1000;
/** Longest accepted `timeoutMs` (one hour). */
const MAX_TAKE_TIMEOUT_MS = 3_600_000;
/** A take raises its request timeout to its own wait plus this, so its 404 always comes first. */
const TAKE_TIMEOUT_MARGIN_MS = 1000;

interface TakeRequest {
  endpoint?: Endpoint;
  issuer?: string;
  timeoutMs?: number;
}

/**
 * POST /_mock/requests/take → the oldest matching CapturedRequest, or 404 after `timeoutMs`.
 *
 * The take's own wait decides: it raises the request timeout to `timeoutMs` plus a margin, so a
 * long wait answers its clean 404 instead of the request timeout's 503. The wait ends early when
 * the client goes away (`req.signal`, which with `unstable: ["no-legacy-abort"]` in deno.json
 * aborts only on disconnect) or on shutdown: a waiter left behind would swallow the next matching
 * request. An entry handed over just as the client left goes back to the log.
 */
export async function takeRequest(req: Request, log: RequestLog): Promise<Response> {
  const body = validateObject<TakeRequest>(await readJsonBody(req), {
    endpoint: { type: "string", enum: ENDPOINTS },
    issuer: { type: "string" },
    timeoutMs: {
      type: "integer",
      check: (v) =>
        (v as number) < 0 || (v as number) > MAX_TAKE_TIMEOUT_MS
          ? `expected 0 to ${MAX_TAKE_TIMEOUT_MS}`
          : undefined,
    },
  });
  const filter: RequestFilter = { endpoint: body.endpoint, issuer: body.issuer };
  const timeoutMs = body.timeoutMs ?? DEFAULT_TAKE_TIMEOUT_MS;
  extendTimeout(req, timeoutMs + TAKE_TIMEOUT_MARGIN_MS);
  const timeout = timeoutSignalOf(req);
  const signal = timeout ? AbortSignal.any([req.signal, timeout]) : req.signal;
  const started = performance.now();
  const entry = await log.take(filter, { timeoutMs, signal });
  if (signal.aborted) {
    if (entry) log.restore(entry); // nobody will read this answer
    throw new HttpError(499, "client_closed_request", "the client went away");
  }
  if (!entry) {
    // A take released early (reset, shutdown) says how long it really waited.
    const waited = Math.round(performance.now() - started);
    throw new HttpError(
      404,
      "no_matching_request",
      waited + 50 < timeoutMs
        ? `no matching request: the wait was ended after ${waited}ms (reset or shutdown)`
        : `no matching request within ${timeoutMs}ms`,
    );
  }
  return controlJson(entry);
}

/**
 * GET /_mock/requests?issuer=&endpoint= → `{count, requests}`, written one entry at a time: each
 * entry's base64 and text exist only while it is sent, so a listing of a full log costs about one
 * entry's JSON at once rather than all of them (with 64 MiB of bodies, ~150 MiB of strings).
 */
export function listRequests(req: Request, log: RequestLog): Response {
  const params = new URL(req.url).searchParams;
  const endpoint = params.get("endpoint") ?? undefined;
  if (endpoint !== undefined && !(ENDPOINTS as readonly string[]).includes(endpoint)) {
    throw validationError([{
      location: "query.endpoint",
      message: `expected one of ${ENDPOINTS.join(", ")}`,
      value: endpoint,
    }]);
  }
  const requests = log.list({
    issuer: params.get("issuer") ?? undefined,
    endpoint: endpoint as Endpoint | undefined,
  });
  return new Response(jsonListing(requests), {
    headers: { "content-type": "application/json", "x-mock-oidc": "testing-only" },
  });
}

/**
 * `{"count":N,"requests":[…]}` as a stream that serialises each entry when it is pulled. Each
 * entry's body is leased until it is sent, so a reset meanwhile still lists what was asked for.
 */
function jsonListing(requests: CapturedRequest[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const leases = requests.map(leaseBody);
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next === 0) {
        controller.enqueue(encoder.encode(`{"count":${requests.length},"requests":[`));
      }
      if (next === requests.length) {
        controller.enqueue(encoder.encode("]}"));
        controller.close();
        return;
      }
      const entry = JSON.stringify(requests[next]);
      leases[next]();
      controller.enqueue(encoder.encode(next++ === 0 ? entry : "," + entry));
    },
    cancel() {
      for (const end of leases) end();
    },
  }, { highWaterMark: 0 });
}

/** DELETE /_mock/requests → `{cleared: true}`. */
export function clearRequests(log: RequestLog): Response {
  log.clear();
  return controlJson({ cleared: true });
}

function queryInteger(params: URLSearchParams, name: string, max: number, fallback: number) {
  const raw = params.get(name);
  if (raw === null) return fallback;
  if (!/^\d{1,16}$/.test(raw) || Number(raw) > max) {
    throw validationError([{
      location: `query.${name}`,
      message: `expected an integer from 0 to ${max}`,
      value: raw,
    }]);
  }
  return Number(raw);
}

/**
 * GET /_mock/requests/changes?after=&timeoutMs= → `{version, count}` once the log's change count
 * differs from `after`, or unchanged after `timeoutMs`. Non-destructive: the console's long poll,
 * which then lists; a take would steal requests from the tests that wait on them.
 */
export async function requestChanges(req: Request, log: RequestLog): Promise<Response> {
  const params = new URL(req.url).searchParams;
  const after = queryInteger(params, "after", Number.MAX_SAFE_INTEGER, -1);
  const timeoutMs = queryInteger(params, "timeoutMs", MAX_CHANGES_TIMEOUT_MS, 0);
  extendTimeout(req, timeoutMs + TAKE_TIMEOUT_MARGIN_MS);
  const timeout = timeoutSignalOf(req);
  const signal = timeout ? AbortSignal.any([req.signal, timeout]) : req.signal;
  const version = await log.changes.wait(after, { timeoutMs, signal });
  return controlJson({ version, count: log.size });
}
