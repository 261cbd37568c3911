// TEMPORARY stand-in for @svc/shared/metrics (same API) until the kit lands on main.
import { Counter, Histogram, Registry } from "prom-client";
import type { Handler } from "./http.ts";
export interface Metrics {
  registry: Registry;
  httpRequests: Counter;
  httpDuration: Histogram;
}
export function createMetrics(options: { service: string }): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: options.service });
  const httpRequests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests",
    labelNames: ["method", "route", "status"],
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration",
    labelNames: ["method", "route", "status"],
    registers: [registry],
  });
  return { registry, httpRequests, httpDuration };
}
export function withHttpMetrics(
  handler: Handler,
  metrics: Metrics,
  options: { route: (req: Request) => string },
): Handler {
  return async (req, info) => {
    const start = performance.now();
    const res = await handler(req, info);
    const labels = { method: req.method, route: options.route(req), status: String(res.status) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, (performance.now() - start) / 1000);
    return res;
  };
}
export function metricsHandler(metrics: Metrics): Handler {
  return async () =>
    new Response(await metrics.registry.metrics(), {
      headers: { "content-type": metrics.registry.contentType },
    });
}
