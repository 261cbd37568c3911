/**
 * The operational rows every service's route table starts with: `/healthz`, `/readyz`, `/metrics`
 * (when it shares the listener), `/openapi.json`, `/openapi.yaml` and `/docs`. Each answers
 * `GET` and `HEAD`; any other method gets the table's 405 with `Allow: GET, HEAD`.
 *
 * @module
 */
import { healthHandler, readinessHandler } from "./health.ts";
import type { Route } from "./route.ts";
import { type Metrics, metricsHandler } from "../observe/metrics.ts";
import { openapiRoutes } from "./openapi.ts";

/** Options of {@linkcode operationalRoutes}. */
export interface OperationalRoutesOptions {
  /** `/readyz`. @default always ready, no checks */
  readiness?: (req: Request) => Response | Promise<Response>;
  /** Serves `/metrics` on this table (a service with no dedicated metrics listener). */
  metrics?: Metrics;
  /** Serves `/openapi.*` and `/docs`: the document (or a function building it once) and title. */
  openapi?: { document: object | (() => object | Promise<object>); title: string };
  /** OpenAPI operations by path (`/healthz`, `/docs`, …); paths without one are undocumented. */
  docs?: Readonly<Record<string, Record<string, unknown>>>;
}

const READ = ["GET", "HEAD"] as const;

/**
 * The operational route-table rows.
 *
 * @example Usage
 * ```ts
 * import { createRouter, localInfo } from "@svc/shared/http";
 * import { operationalRoutes } from "@svc/shared/operational";
 * import assert from "node:assert/strict";
 *
 * const router = createRouter(operationalRoutes({}));
 * assert.equal((await router.handler(new Request("http://x/healthz"), localInfo())).status, 200);
 * await assert.rejects(
 *   async () => await router.handler(new Request("http://x/healthz", { method: "DELETE" }), localInfo()),
 *   (err: { status: number }) => err.status === 405,
 * );
 * ```
 */
export function operationalRoutes(options: OperationalRoutesOptions): Route[] {
  const docs = options.docs ?? {};
  const readiness = options.readiness ?? readinessHandler({});
  const doc = (pattern: string) => docs[pattern] ? { openapi: docs[pattern] } : {};
  const row = (pattern: string, handler: Route["handler"]): Route => ({
    method: READ,
    pattern,
    handler,
    ...doc(pattern),
  });
  const routes = [
    row("/healthz", () => healthHandler()),
    row("/readyz", (req) => readiness(req)),
  ];
  if (options.metrics) routes.push({ ...metricsRoute(options.metrics), ...doc("/metrics") });
  if (options.openapi) {
    routes.push(
      ...openapiRoutes(options.openapi.document, { title: options.openapi.title, docs }),
    );
  }
  return routes;
}

/**
 * The `GET`/`HEAD` `/metrics` row alone, for a dedicated metrics listener's table.
 *
 * @example Usage
 * ```ts
 * import { createRouter, localInfo } from "@svc/shared/http";
 * import { createMetrics } from "@svc/shared/metrics";
 * import { metricsRoute } from "@svc/shared/operational";
 * import assert from "node:assert/strict";
 *
 * const router = createRouter([metricsRoute(createMetrics({ service: "svc" }))]);
 * const res = await router.handler(new Request("http://x/metrics"), localInfo());
 * assert.match(await res.text(), /http_requests_total/);
 * ```
 */
export function metricsRoute(metrics: Metrics): Route {
  const serve = metricsHandler(metrics);
  return { method: READ, pattern: "/metrics", handler: (req, ctx) => serve(req, ctx.info) };
}
