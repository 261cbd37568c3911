/**
 * A cached background readiness probe: a check runs on an interval (each run bounded in time),
 * its outcome is cached, and `/readyz` answers from the cache without ever waiting on a
 * dependency. A success stays valid for a staleness window; a failure makes the service not
 * ready at once with a short reason; the shutdown-started signal makes it `draining`. Every
 * change of state is logged and passed to `onChange`.
 *
 * Reasons: {@linkcode STARTING} (no probe has finished yet), {@linkcode DRAINING}, `stale` (the
 * last success is older than the window; `staleReason` renames it), and whatever the check
 * throws as a {@linkcode NotReadyError} (`catalog_missing`, `s3_misconfigured`, …); any other
 * error becomes `reasonOf(error)`, `unavailable` by default.
 *
 * @module
 */
import type { Logger } from "../observe/log.ts";
import { runEvery } from "./delay.ts";

/** Reason while no probe has finished yet. */
export const STARTING = "starting";
/** Reason once the shutdown has started. */
export const DRAINING = "draining";

/** A readiness state. */
export type Readiness = { ready: true } | { ready: false; reason: string };

/** Thrown by a check to say why the service is not ready, in a stable word. */
export class NotReadyError extends Error {
  /** The not-ready reason, e.g. `catalog_missing`. */
  readonly reason: string;
  /**
   * Creates the error.
   * @param reason the stable reason reported by `/readyz`
   * @param message detail for the log (never sent to clients)
   */
  constructor(reason: string, message = `not ready: ${reason}`, options?: ErrorOptions) {
    super(message, options);
    this.name = "NotReadyError";
    this.reason = reason;
  }
}

/** Options of {@linkcode createReadinessProbe}. */
export interface ReadinessProbeOptions {
  /** Resolves when ready; throws (ideally a {@linkcode NotReadyError}) when not. */
  check: (signal: AbortSignal) => Promise<void> | void;
  /** Time between the starts of two probes. @default {10000} */
  intervalMs?: number;
  /** How long a success stays valid. @default {30000} */
  stalenessMs?: number;
  /** Bound of one check; its signal aborts then and the probe fails. @default {intervalMs} */
  timeoutMs?: number;
  /** Reason for an error that is not a {@linkcode NotReadyError}. @default {() => "unavailable"} */
  reasonOf?: (error: unknown) => string;
  /** Reason once the last success is older than `stalenessMs`. @default {"stale"} */
  staleReason?: string;
  /** The shutdown-started signal (`Lifecycle.signal`): once aborted, the state is `draining`. */
  shutdownSignal?: AbortSignal;
  /** Called with each new state and the one before. */
  onChange?: (state: Readiness, previous: Readiness) => void;
  /** Each change is logged as `readiness changed` with `ready` and `reason`. */
  logger?: Logger;
  /** Monotonic clock in ms. @default {performance.now} */
  now?: () => number;
}

/** A readiness probe; run {@linkcode ReadinessProbe.run} as a background task. */
export interface ReadinessProbe {
  /** The cached state; never waits. */
  current(): Readiness;
  /** Runs the check once now and caches its outcome (startup, tests). */
  probe(): Promise<Readiness>;
  /** Probes every `intervalMs` until `signal` aborts (a {@linkcode Task}). */
  run(signal: AbortSignal): Promise<void>;
  /** `/readyz`: 200 `{status:"ready"}` or 503 `{status:"not_ready",reason}`; HEAD has no body. */
  handler(req: Request): Response;
}

/**
 * Creates a readiness probe. Nothing runs until {@linkcode ReadinessProbe.run} or
 * {@linkcode ReadinessProbe.probe} is called; until then the state is `starting`.
 *
 * @example Usage
 * ```ts
 * import { createReadinessProbe, NotReadyError } from "@svc/shared/lifecycle";
 * import assert from "node:assert/strict";
 * let catalog = false;
 * const probe = createReadinessProbe({
 *   check: () => {
 *     if (!catalog) throw new NotReadyError("catalog_missing");
 *   },
 *   intervalMs: 10_000,
 *   stalenessMs: 30_000,
 * });
 * assert.deepEqual(probe.current(), { ready: false, reason: "starting" });
 * await probe.probe();
 * const res = probe.handler(new Request("http://x/readyz"));
 * assert.equal(res.status, 503);
 * assert.deepEqual(await res.json(), { status: "not_ready", reason: "catalog_missing" });
 * catalog = true;
 * assert.deepEqual(await probe.probe(), { ready: true });
 * // in a service: lifecycle.spawn("readiness", probe.run);
 * ```
 * @throws {RangeError} when an interval, window or timeout is not a positive number.
 */
export function createReadinessProbe(options: ReadinessProbeOptions): ReadinessProbe {
  const {
    check,
    intervalMs = 10_000,
    stalenessMs = 30_000,
    timeoutMs = intervalMs,
    reasonOf = () => "unavailable",
    staleReason = "stale",
    shutdownSignal,
    onChange,
    logger,
    now = () => performance.now(),
  } = options;
  for (const [name, value] of Object.entries({ intervalMs, stalenessMs, timeoutMs })) {
    if (!(value > 0 && Number.isFinite(value))) {
      throw new RangeError(`Cannot create readiness probe: ${name} must be a positive number`);
    }
  }
  let lastSuccessAt: number | undefined;
  let failure: string | undefined;
  let reported: Readiness = { ready: false, reason: STARTING };
  let staleTimer: ReturnType<typeof setTimeout> | undefined;
  let running = false;

  function current(): Readiness {
    if (shutdownSignal?.aborted) return { ready: false, reason: DRAINING };
    if (failure !== undefined) return { ready: false, reason: failure };
    if (lastSuccessAt === undefined) return { ready: false, reason: STARTING };
    if (now() - lastSuccessAt > stalenessMs) return { ready: false, reason: staleReason };
    return { ready: true };
  }

  function report(): Readiness {
    const next = current();
    const changed = next.ready !== reported.ready ||
      (!next.ready && !reported.ready && next.reason !== reported.reason);
    if (changed) {
      const previous = reported;
      reported = next;
      logger?.info("readiness changed", next.ready ? { ready: true } : { ...next });
      onChange?.(next, previous);
    }
    return next;
  }
  shutdownSignal?.addEventListener("abort", () => report(), { once: true });

  async function probe(stop?: AbortSignal): Promise<Readiness> {
    const bound = AbortSignal.timeout(timeoutMs);
    const signal = stop ? AbortSignal.any([stop, bound]) : bound;
    try {
      await Promise.race([
        Promise.resolve().then(() => check(signal)),
        new Promise((_, reject) => {
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
      ]);
      lastSuccessAt = now();
      failure = undefined;
      if (running) {
        clearTimeout(staleTimer);
        // One past the window: the first instant at which the success no longer counts.
        staleTimer = setTimeout(report, stalenessMs + 1);
      }
    } catch (error) {
      if (stop?.aborted) return current(); // stopping: the outcome no longer matters
      failure = error instanceof NotReadyError ? error.reason : reasonOf(error);
      logger?.debug("readiness probe failed", { reason: failure, err: error });
    }
    return report();
  }

  async function run(signal: AbortSignal): Promise<void> {
    running = true;
    try {
      await runEvery(() => probe(signal).then(() => {}), { intervalMs, signal, now });
    } finally {
      running = false;
      clearTimeout(staleTimer);
    }
  }

  function handler(req: Request): Response {
    const state = current();
    const body = state.ready ? { status: "ready" } : { status: "not_ready", reason: state.reason };
    return new Response(req.method === "HEAD" ? null : JSON.stringify(body), {
      status: state.ready ? 200 : 503,
      headers: { "content-type": "application/json", "cache-control": "no-store" },
    });
  }

  return { current, probe: () => probe(), run, handler };
}

/** OpenAPI 3.0 schema of the {@linkcode ReadinessProbe.handler} body (200 and 503 alike). */
export const READINESS_PROBE_SCHEMA = {
  type: "object",
  required: ["status"],
  properties: {
    status: { type: "string", enum: ["ready", "not_ready"] },
    reason: { type: "string", description: "Why the service is not ready (503 only)" },
  },
} as const;
