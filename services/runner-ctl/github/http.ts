/**
 * One HTTP call to GitHub or the Actions service with the conventions both share: JSON bodies
 * with a possible byte order mark, `typeName` errors, and retries of connection errors, 429 and
 * 5xx (not 501) with exponential backoff between `retry.initial` and `retry.maximum`, honouring
 * `Retry-After` (as go-retryablehttp does for the reference clients: at most 4 retries).
 *
 * @module
 */
import { delay } from "@svc/shared/lifecycle";
import { ActionsError, errorOfResponse, stripBom } from "./errors.ts";

/** Backoff bounds (`retry.initial`, `retry.maximum`) in milliseconds. */
export interface RetryPolicy {
  initialMs: number;
  maximumMs: number;
  /** Retries after the first attempt. @default {4} */
  retries?: number;
}

/** Shared dependencies of every call. */
export interface HttpDeps {
  fetch: typeof fetch;
  userAgent: string;
  retry: RetryPolicy;
  /** Per-call time limit. @default {60000} */
  callTimeoutMs?: number;
  /** Waits between retries; injected so tests do not sleep. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Random source in [0, 1) for backoff jitter (each wait is drawn from [backoff/2, backoff], so
   * controllers sharing a scale set do not retry in step). Without one, waits are exact.
   */
  random?: () => number;
}

/** One call. */
export interface CallOptions {
  /** What the call does, for error messages ("create a message session"). */
  what: string;
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** JSON-encoded when not a string. */
  body?: unknown;
  /** Also retry 401 and 403 (runner-registration does: fresh tokens are briefly refused). */
  retryUnauthorized?: boolean;
  signal?: AbortSignal;
  /** Overrides the per-call time limit (long polls). */
  timeoutMs?: number;
}

/** A successful response with its body text (BOM stripped). */
export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
}

/** Sleeps `ms`, or rejects with the reason when `signal` aborts (the kit's `delay`). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, { signal });
}

/** Backoff before retry `attempt` (0-based): initial·2^attempt, capped at maximum. */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maximumMs, policy.initialMs * 2 ** Math.min(attempt, 30));
}

/** `ms` with "equal jitter" from `deps.random`: a value in [ms/2, ms]; exact without a source. */
export function jittered(deps: Pick<HttpDeps, "random">, ms: number): number {
  return deps.random ? ms / 2 + deps.random() * (ms / 2) : ms;
}

function retryAfterMs(headers: Headers): number | undefined {
  const v = headers.get("retry-after");
  if (v === null) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * GitHub's REST rate limit: 403 (or 429) with `x-ratelimit-remaining: 0` means "wait until
 * `x-ratelimit-reset`" (epoch seconds), not "forbidden". The wait, if known, else 0.
 */
function rateLimitedMs(status: number, headers: Headers, now: number): number | undefined {
  if ((status !== 403 && status !== 429) || headers.get("x-ratelimit-remaining") !== "0") {
    return undefined;
  }
  const reset = headers.get("x-ratelimit-reset");
  return reset !== null && /^\d+$/.test(reset) ? Math.max(0, Number(reset) * 1000 - now) : 0;
}

function retriable(status: number, retryUnauthorized: boolean): boolean {
  return status === 429 || (status >= 500 && status !== 501) ||
    (retryUnauthorized && (status === 401 || status === 403));
}

/**
 * Performs one call with retries.
 *
 * @throws {ActionsError} with the mapped code after the last attempt fails.
 */
export async function call(deps: HttpDeps, options: CallOptions): Promise<CallResult> {
  const sleep = deps.sleep ?? abortableSleep;
  const retries = deps.retry.retries ?? 4;
  const headers: Record<string, string> = { "User-Agent": deps.userAgent, ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["Content-Type"] ??= "application/json";
  }
  for (let attempt = 0;; attempt++) {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? deps.callTimeoutMs ?? 60_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let wait: number | undefined;
    let failure: ActionsError;
    try {
      const res = await deps.fetch(options.url, { method: options.method, headers, body, signal });
      const text = stripBom(await res.text());
      if (res.ok) return { status: res.status, headers: res.headers, text };
      failure = errorOfResponse(options.what, res.status, text);
      const limited = rateLimitedMs(res.status, res.headers, Date.now());
      if (limited === undefined && !retriable(res.status, options.retryUnauthorized ?? false)) {
        throw failure;
      }
      wait = retryAfterMs(res.headers) ?? limited;
    } catch (err) {
      if (err instanceof ActionsError) throw err;
      if (options.signal?.aborted) throw options.signal.reason;
      const timedOut = timeout.aborted;
      failure = new ActionsError(
        timedOut ? "timeout" : "network",
        `Cannot ${options.what}: ${timedOut ? "timed out" : "connection failed"}`,
        { cause: err },
      );
    }
    if (attempt >= retries) throw failure;
    const ms = Math.min(
      deps.retry.maximumMs,
      wait ?? jittered(deps, backoffMs(deps.retry, attempt)),
    );
    await sleep(ms, options.signal);
  }
}

/** Parses a JSON response body. @throws {ActionsError} `bad_response` when it is not JSON. */
export function jsonOf<T>(what: string, result: CallResult): T {
  try {
    return JSON.parse(result.text) as T;
  } catch (cause) {
    throw new ActionsError("bad_response", `Cannot ${what}: the response is not JSON`, { cause });
  }
}
