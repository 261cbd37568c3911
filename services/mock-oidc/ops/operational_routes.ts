/**
 * Operational routes outside every issuer namespace: `/isalive` and `/healthz` (liveness),
 * `/readyz` (always ready, no checks), `/metrics` when it shares the API listener, `/docs` and
 * `/openapi.{json,yaml}`.
 * @module
 */
import { healthHandler, readinessHandler } from "@svc/shared/health";
import type { Metrics } from "@svc/shared/metrics";
import { metricsHandler } from "@svc/shared/metrics";
import { openapiHandler } from "@svc/shared/openapi";
import { openapiDocument } from "./openapi_doc.ts";

export interface OperationalOptions {
  version: string;
  /** Serve `/metrics` here (when `--metrics-addr` is empty). */
  metrics?: Metrics;
}

/** Answers the operational paths and `undefined` for every other path. */
export function createOperationalRoutes(
  options: OperationalOptions,
): (req: Request) => Promise<Response | undefined> {
  const docs = openapiHandler(openapiDocument(options.version), { title: "mock-oidc" });
  const readiness = readinessHandler({});
  const metrics = options.metrics ? metricsHandler(options.metrics) : undefined;
  const info = {} as Deno.ServeHandlerInfo;
  return async function operational(req) {
    const path = new URL(req.url).pathname;
    const readOnly = req.method === "GET" || req.method === "HEAD";
    if (readOnly && (path === "/isalive" || path === "/healthz")) return healthHandler();
    if (readOnly && path === "/readyz") return await readiness(req);
    if (readOnly && path === "/metrics" && metrics) return await metrics(req, info);
    return await docs(req);
  };
}
