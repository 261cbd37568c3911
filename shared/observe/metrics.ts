/**
 * Prometheus metrics: one registry per service (never a global one, so tests and several apps
 * in one process stay apart), HTTP request counts and latencies per route, and a
 * handler for the text exposition.
 *
 * @module
 */
import {
  Counter,
  Gauge,
  Histogram,
  type Labels,
  mergeSnapshots,
  Metric,
  type MetricSnapshot,
  Registry,
} from "./prometheus.ts";
import type { Handler } from "../http/handler.ts";
import { methodLabel } from "../http/method_label.ts";
import { uncaughtCounts } from "../lifecycle/uncaught_guard.ts";

export { Counter, Gauge, Histogram, mergeSnapshots, Metric, Registry };
export type {
  HistogramOptions,
  Labels,
  MetricOptions,
  MetricSnapshot,
  Series,
} from "./prometheus.ts";

/** A service's metrics. Services add their own instruments to `registry`. */
export interface Metrics {
  /** Every instrument, exposed as Prometheus text by `/metrics`. */
  registry: Registry;
  /** `http_requests_total` by method, route label and status. */
  httpRequests: Counter<"method" | "route" | "status">;
  /** `http_request_duration_seconds` by method and route label. */
  httpDuration: Histogram<"method" | "route">;
}

/** A counter whose one value is read from `read` whenever it is exposed or snapshot. */
class ReadCounter extends Counter {
  readonly #read: () => number;
  constructor(options: { name: string; help: string; registers: Registry[] }, read: () => number) {
    super(options);
    this.#read = read;
  }
  #sync(): void {
    this.reset();
    this.inc(this.#read());
  }
  override render(defaults: Record<string, string>): string {
    this.#sync();
    return super.render(defaults);
  }
  override snapshot(): MetricSnapshot {
    this.#sync();
    return super.snapshot();
  }
}

/**
 * Creates a registry with the HTTP instruments, and the process guard's counts
 * (`process_unhandled_rejections_total`, `process_uncaught_exceptions_total`: programming errors
 * that were logged and survived, see `installUncaughtGuard`).
 *
 * @example Usage
 * ```ts
 * import { createMetrics } from "@svc/shared/metrics";
 * const metrics = createMetrics({ service: "todo_api" });
 * metrics.httpRequests.inc({ method: "GET", route: "/v1/todos", status: "200" });
 * ```
 */
export function createMetrics(options: { service: string }): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: options.service });
  const httpRequests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time to produce the response head, by method and route",
    labelNames: ["method", "route"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new ReadCounter({
    name: "process_unhandled_rejections_total",
    help: "Promise rejections nobody handled, logged by the process guard (the process lived on)",
    registers: [registry],
  }, () => uncaughtCounts().rejections);
  new ReadCounter({
    name: "process_uncaught_exceptions_total",
    help:
      "Exceptions thrown outside any caller, logged by the process guard (the process lived on)",
    registers: [registry],
  }, () => uncaughtCounts().exceptions);
  return { registry, httpRequests, httpDuration };
}

/**
 * Counts and times every request. `route` maps a request to a low-cardinality route label
 * (`/{issuer}/token`, not the concrete path); the method label is {@linkcode methodLabel}'s
 * bounded vocabulary (`_OTHER` for unknown methods), so no client can grow the series count.
 *
 * @example Usage
 * ```ts
 * import { createMetrics, withHttpMetrics } from "@svc/shared/metrics";
 * const metrics = createMetrics({ service: "svc" });
 * const handler = withHttpMetrics(() => new Response("ok"), metrics, { route: () => "/" });
 * ```
 */
export function withHttpMetrics(
  handler: Handler,
  metrics: Metrics,
  options: { route: (req: Request) => string },
): Handler {
  const record = httpRecorder(metrics);
  return async function httpMetrics(req, info) {
    const start = performance.now();
    const route = options.route(req);
    let status = 500;
    try {
      const res = await handler(req, info);
      status = res.status;
      return res;
    } finally {
      record(route, req.method, status, (performance.now() - start) / 1000);
    }
  };
}

/**
 * Records one answered request in `http_requests_total` and `http_request_duration_seconds`:
 * what {@linkcode withHttpMetrics} does once the answer is there, for the kit's default stack,
 * which times requests in its own per-request record. The label objects of each route, method and
 * status are made once (all three come from bounded vocabularies: the table's labels,
 * {@linkcode methodLabel}'s, HTTP statuses), so a request allocates none.
 */
export function httpRecorder(
  metrics: Metrics,
): (route: string, method: string, status: number, seconds: number) => void {
  type L = Labels<"method" | "route" | "status">;
  type Entry = { labels: L; byStatus: Map<number, L> };
  const byRoute = new Map<string, Map<string, Entry>>();
  return function record(route, method, status, seconds) {
    const label = methodLabel(method);
    let byMethod = byRoute.get(route);
    if (!byMethod) byRoute.set(route, byMethod = new Map());
    let entry = byMethod.get(label);
    // Frozen: the metrics then find their series by the object's identity (`seriesFor`).
    if (!entry) {
      entry = { labels: Object.freeze({ method: label, route }), byStatus: new Map() };
      byMethod.set(label, entry);
    }
    let withStatus = entry.byStatus.get(status);
    if (!withStatus) {
      withStatus = Object.freeze({ ...entry.labels, status: String(status) });
      entry.byStatus.set(status, withStatus);
    }
    metrics.httpDuration.observe(entry.labels, seconds);
    metrics.httpRequests.inc(withStatus);
  };
}

/**
 * `GET /metrics` in the Prometheus text format.
 *
 * @example Usage
 * ```ts
 * import { createMetrics, metricsHandler } from "@svc/shared/metrics";
 * const handler = metricsHandler(createMetrics({ service: "svc" }));
 * ```
 */
export function metricsHandler(metrics: Metrics): Handler {
  return async function metricsRoute() {
    return new Response(await metrics.registry.metrics(), {
      headers: { "content-type": metrics.registry.contentType },
    });
  };
}
