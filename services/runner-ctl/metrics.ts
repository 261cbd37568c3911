/**
 * runner-ctl's metrics, pushed over OTLP/HTTP (the kit's exporter) since the controller has no
 * listening port. Off unless `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` (or `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * to which `/v1/metrics` is added) is set; `OTEL_METRIC_EXPORT_INTERVAL` and
 * `OTEL_METRIC_EXPORT_TIMEOUT` (ms) as the OpenTelemetry SDK reads them. Names follow the
 * OpenTelemetry semantic conventions where one exists (`cicd.worker.count`, `cicd.system.errors`,
 * `http.client.request.duration`); the others are `runner_ctl.*`. Every instrument, its unit and
 * attributes: docs/runner-ctl.md#metrics.
 *
 * @module
 */
import type { Attributes, Meter } from "@opentelemetry/api";
import { lazyModuleAt } from "@svc/shared/lazy-module";
import type { Logger } from "@svc/shared/log";
import type { EnvLookup } from "@svc/shared/settings";
import type { RunnerState } from "./controller/pool.ts";

/** What the controller reports as it goes (all no-ops when metrics are off). */
export interface ControllerMetrics {
  /** A job started on one of our runners, `ms` after it was queued. */
  jobQueued(ms: number): void;
  /** A runner reported Ready, `ms` after its creation began. */
  runnerStarted(ms: number): void;
  /** A job completed after `ms` on its runner, with GitHub's result. */
  jobCompleted(ms: number, result: string | undefined): void;
  /** A runner (or the image check) failed before a job, of `kind`. */
  failure(kind: string): void;
  /** An Incus operation ended. */
  incusOperation(operation: string, ms: number, error?: unknown): void;
  /** A GitHub HTTP call ended (a response, or an error before one). */
  githubCall(method: string, url: string, ms: number, status?: number, error?: unknown): void;
  /** The listener's poll returned (a message or none) at `epochMs`. */
  polled(epochMs: number): void;
}

/** Metrics off. */
export const NO_METRICS: ControllerMetrics = {
  jobQueued() {},
  runnerStarted() {},
  jobCompleted() {},
  failure() {},
  incusOperation() {},
  githubCall() {},
  polled() {},
};

/** The collector URL of the standard variables, or undefined (metrics off). */
export function otlpMetricsUrl(env: EnvLookup): string | undefined {
  const read = (name: string) => {
    try {
      return env(name)?.trim() || undefined;
    } catch (err) {
      if (err instanceof Deno.errors.NotCapable) return undefined;
      throw err;
    }
  };
  const specific = read("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
  if (specific) return specific;
  const base = read("OTEL_EXPORTER_OTLP_ENDPOINT");
  return base ? `${base.replace(/\/+$/, "")}/v1/metrics` : undefined;
}

/** A positive integer of milliseconds from `name`, or `fallback`. */
export function envMs(env: EnvLookup, name: string, fallback: number): number {
  let v: string | undefined;
  try {
    v = env(name);
  } catch {
    v = undefined;
  }
  const n = Number(v);
  return v !== undefined && v.trim() !== "" && Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

/** Job results GitHub sends; anything else is counted as `other` (bounded cardinality). */
const RESULTS = new Set(["succeeded", "failed", "canceled", "cancelled", "skipped", "abandoned"]);

/** `cicd.worker.state` of each runner state. */
const WORKER_STATE: Record<RunnerState, "available" | "busy" | "offline"> = {
  creating: "offline",
  booting: "offline",
  idle: "available",
  busy: "busy",
  done: "offline",
  removing: "offline",
};

/** What the observable instruments read at each export. */
export interface ObservedState {
  /** Runners per state. */
  runners(): Record<RunnerState, number>;
  /** Failures in a row (the failure backoff's level). */
  backoffLevel(): number;
}

/** The instruments on `meter`, with `scaleSet` on every point. */
export function meteredController(
  meter: Meter,
  scaleSet: string,
  observed: ObservedState,
): ControllerMetrics {
  const base: Attributes = { "runner_ctl.scale_set": scaleSet };
  const seconds = (ms: number) => Math.max(0, ms) / 1000;
  const queue = meter.createHistogram("runner_ctl.job.queue.duration", {
    unit: "s",
    description: "Time from a job being queued to its start on one of our runners",
  });
  const startup = meter.createHistogram("runner_ctl.runner.startup.duration", {
    unit: "s",
    description: "Time from the start of a runner's creation to its Ready report",
  });
  const job = meter.createHistogram("runner_ctl.job.duration", {
    unit: "s",
    description: "Time from a job's start to its completion on one of our runners",
  });
  const errors = meter.createCounter("cicd.system.errors", {
    unit: "{error}",
    description: "Runner failures before a job, by class",
  });
  const incus = meter.createHistogram("runner_ctl.incus.operation.duration", {
    unit: "s",
    description: "Incus operations (create, start, stop, delete), by outcome",
  });
  const http = meter.createHistogram("http.client.request.duration", {
    unit: "s",
    description: "GitHub HTTP calls (the long poll included)",
  });
  let lastPoll: number | undefined;
  meter.createObservableUpDownCounter("cicd.worker.count", {
    unit: "{count}",
    description: "Runners by state",
  }).addCallback((o) => {
    for (const [state, n] of Object.entries(observed.runners()) as [RunnerState, number][]) {
      o.observe(n, {
        ...base,
        "cicd.worker.state": WORKER_STATE[state],
        "runner_ctl.runner.state": state,
      });
    }
  });
  meter.createObservableGauge("runner_ctl.failure_backoff.level", {
    unit: "{failure}",
    description: "Runner failures in a row (the failure backoff's level; 0 when reset)",
  }).addCallback((o) => o.observe(observed.backoffLevel(), base));
  meter.createObservableGauge("runner_ctl.listener.last_poll", {
    unit: "s",
    description: "Time (Unix seconds) the listener's last poll returned",
  }).addCallback((o) => {
    if (lastPoll !== undefined) o.observe(lastPoll / 1000, base);
  });
  const outcome = (error: unknown): Attributes =>
    error === undefined ? {} : { "error.type": errorType(error) };
  return {
    jobQueued: (ms) => queue.record(seconds(ms), base),
    runnerStarted: (ms) => startup.record(seconds(ms), base),
    jobCompleted: (ms, result) =>
      job.record(seconds(ms), {
        ...base,
        "cicd.pipeline.result": result && RESULTS.has(result) ? result : "other",
      }),
    failure: (kind) =>
      errors.add(1, { ...base, "cicd.system.component": "runner", "error.type": kind }),
    incusOperation: (operation, ms, error) =>
      incus.record(seconds(ms), {
        ...base,
        "runner_ctl.incus.operation": operation,
        ...outcome(error),
      }),
    githubCall: (method, url, ms, status, error) => {
      let host = "unknown";
      try {
        host = new URL(url).hostname;
      } catch { /* not a URL: unknown */ }
      http.record(seconds(ms), {
        ...base,
        "http.request.method": method,
        "server.address": host,
        ...(status === undefined ? {} : { "http.response.status_code": status }),
        ...(error !== undefined
          ? outcome(error)
          : status !== undefined && status >= 400
          ? { "error.type": String(status) }
          : {}),
      });
    },
    polled: (epochMs) => void (lastPoll = epochMs),
  };
}

function errorType(error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError") return "timeout";
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number" && status > 0) return String(status);
    return error.name;
  }
  return "_OTHER";
}

/** Wraps `fetch` so every call is measured. */
export function measuredFetch(inner: typeof fetch, metrics: ControllerMetrics): typeof fetch {
  return async (input, init) => {
    const started = performance.now();
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const url = input instanceof Request ? input.url : String(input);
    try {
      const res = await inner(input, init);
      metrics.githubCall(method, url, performance.now() - started, res.status);
      return res;
    } catch (err) {
      metrics.githubCall(method, url, performance.now() - started, undefined, err);
      throw err;
    }
  };
}

// By URL (the kit's `lazyModuleAt`): a literal `import("@svc/shared/otlp-metrics")` would have
// `deno run` resolve the OpenTelemetry SDK's packages on every start, though metrics are off by
// default (as image-proxy's serve.ts says); the compile include is derived from this declaration.
const otlpMetricsModule = lazyModuleAt<typeof import("@svc/shared/otlp-metrics")>(
  import.meta.resolve("@svc/shared/otlp-metrics"),
);

/** Options of {@linkcode startMetrics}. */
export interface StartMetricsOptions {
  env: EnvLookup;
  logger: Logger;
  serviceName: string;
  serviceVersion: string;
}

/** The exporter when an endpoint is set (the SDK loads only then), else undefined. */
export async function startMetrics(
  o: StartMetricsOptions,
): Promise<{ meter: Meter; url: string; shutdown(): Promise<void> } | undefined> {
  const url = otlpMetricsUrl(o.env);
  if (!url) return undefined;
  const { createOtlpMetrics } = await otlpMetricsModule();
  const metrics = createOtlpMetrics({
    url,
    serviceName: o.serviceName,
    serviceVersion: o.serviceVersion,
    intervalMs: envMs(o.env, "OTEL_METRIC_EXPORT_INTERVAL", 60_000),
    timeoutMs: envMs(o.env, "OTEL_METRIC_EXPORT_TIMEOUT", 30_000),
    logger: o.logger.child({ component: "metrics" }),
  });
  return { meter: metrics.meter, url, shutdown: () => metrics.shutdown() };
}
