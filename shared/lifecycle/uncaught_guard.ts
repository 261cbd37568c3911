/**
 * The process-level guard against programming errors that nobody awaited: an unhandled promise
 * rejection (or an exception thrown in a timer or event callback) is logged as one `error` line,
 * counted, and the process keeps serving. Without it, Deno ends the process on the first one,
 * and a request that can trigger one (work that runs after a response: access logs, metrics,
 * stream accounting) is a remote kill switch.
 *
 * {@linkcode installUncaughtGuard} is called by the kit's `runMain` for the whole life of a
 * service's entry point, so every service is guarded and in-process tests (which never go through
 * `runMain`) still fail on an unhandled rejection, as they should. Lines go to the logger most
 * recently lent by {@linkcode reportUncaughtTo} (a lifecycle lends its own), else to a JSON line
 * on stderr. Counts are process-wide ({@linkcode uncaughtCounts}); the kit's Prometheus metrics
 * expose them as `process_unhandled_rejections_total` and `process_uncaught_exceptions_total`.
 *
 * Attribution: the event carries only the rejection's reason, not the request that caused it
 * (an `unhandledrejection` event is dispatched after the microtask queue drains, outside the
 * request's async context, so an AsyncLocalStorage would not know it either, and would cost on
 * every request). The line carries `request_id` when the reason, or an error in its `cause`
 * chain, has a string `requestId` property (work that knows its request can tag what it throws);
 * otherwise `request_id` is `"unknown"`. The kit's own after-response work catches and logs its
 * errors with the request id itself, so what reaches the guard is a bug elsewhere.
 *
 * The logger's "flush on unhandled rejection" listener (`@svc/shared/log`) keeps running: it
 * flushes buffered lines on the same events, whether or not the guard lets the process live.
 *
 * @module
 */
import { createLogger, type Logger, stderrWriter } from "../observe/log.ts";

/** How many uncaught errors the guard has seen in this process. */
export interface UncaughtCounts {
  /** Unhandled promise rejections. */
  rejections: number;
  /** Exceptions thrown in callbacks nobody called from a `try` (timers, event listeners). */
  exceptions: number;
}

const counts: UncaughtCounts = { rejections: 0, exceptions: 0 };
const loggers: Logger[] = [];
let installs = 0;
let fallback: Logger | undefined;

/** The counts so far, process-wide (a copy). */
export function uncaughtCounts(): UncaughtCounts {
  return { ...counts };
}

/** The `requestId` of `reason` or of an error in its `cause` chain, else `"unknown"`. */
export function requestIdOfReason(reason: unknown): string {
  let e = reason;
  for (let depth = 0; depth < 5 && typeof e === "object" && e !== null; depth++) {
    const id = (e as { requestId?: unknown }).requestId;
    if (typeof id === "string" && id !== "") return id;
    e = (e as { cause?: unknown }).cause;
  }
  return "unknown";
}

/**
 * What may be logged of an unexpected error: its name chain and where it was thrown (stack frames
 * name files and lines, never data), never its message (it may quote a key or a header).
 */
function describe(reason: unknown): Record<string, unknown> {
  const names: string[] = [];
  for (let e = reason; e instanceof Error && names.length < 4; e = e.cause) names.push(e.name);
  const stack = reason instanceof Error ? reason.stack ?? "" : "";
  const frames = stack.split("\n").filter((l) => /^\s+at /.test(l)).slice(0, 3)
    .map((l) => l.trim());
  return {
    "error.type": names.length ? names.join(" < ") : typeof reason,
    ...(frames.length ? { "error.at": frames } : {}),
  };
}

function report(kind: "rejection" | "exception", reason: unknown): void {
  if (kind === "rejection") counts.rejections++;
  else counts.exceptions++;
  const logger = loggers.at(-1) ??
    (fallback ??= createLogger({ write: stderrWriter(), fields: { component: "process" } }));
  try {
    logger.error(
      kind === "rejection" ? "unhandled rejection" : "uncaught exception",
      { request_id: requestIdOfReason(reason), ...describe(reason), kept_serving: true },
    );
  } catch {
    // a logger that throws must not turn the guard into the crash it prevents
  }
}

function onRejection(event: PromiseRejectionEvent): void {
  event.preventDefault();
  report("rejection", event.reason);
}

function onError(event: ErrorEvent): void {
  event.preventDefault();
  report("exception", event.error);
}

/**
 * Installs the guard on `globalThis`; returns its removal. Nested installs share one listener
 * pair (each rejection is logged once); the listeners go when the last install is removed.
 *
 * @example Usage
 * ```ts
 * import { installUncaughtGuard, uncaughtCounts } from "@svc/shared/lifecycle";
 * const remove = installUncaughtGuard();
 * const before = uncaughtCounts().rejections;
 * const seen = new Promise((r) => addEventListener("unhandledrejection", r, { once: true }));
 * void Promise.reject(new Error("nobody awaits this"));
 * await seen; // the guard's listener, added first, has run
 * remove();
 * if (uncaughtCounts().rejections !== before + 1) throw new Error("not counted");
 * ```
 */
export function installUncaughtGuard(): () => void {
  if (installs++ === 0) {
    globalThis.addEventListener("unhandledrejection", onRejection);
    globalThis.addEventListener("error", onError);
  }
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    if (--installs === 0) {
      globalThis.removeEventListener("unhandledrejection", onRejection);
      globalThis.removeEventListener("error", onError);
    }
  };
}

/**
 * Lends `logger` to the guard until the returned function is called: the guard's lines then carry
 * the service's fields and format. The most recent loan still open is used.
 *
 * @example Usage
 * ```ts
 * import { reportUncaughtTo } from "@svc/shared/lifecycle";
 * import { createLogger } from "@svc/shared/log";
 * const giveBack = reportUncaughtTo(createLogger({ fields: { service: "svc" } }));
 * giveBack();
 * ```
 */
export function reportUncaughtTo(logger: Logger): () => void {
  loggers.push(logger);
  let returned = false;
  return () => {
    if (returned) return;
    returned = true;
    const at = loggers.lastIndexOf(logger);
    if (at >= 0) loggers.splice(at, 1);
  };
}
