/**
 * Operational rows of the route table, outside every issuer namespace: the kit's `/healthz`,
 * `/readyz` (ready, no checks, until the shutdown starts: then 503 `draining`), `/metrics` when
 * it shares the API listener, `/docs` and `/openapi.{json,yaml}`, plus mock-oidc's `/isalive`
 * liveness alias. Part of `serving/`: what serves the process rather than the protocol.
 * @module
 */
import { healthHandler, readinessHandler } from "@svc/shared/health";
import type { Route } from "@svc/shared/http";
import type { Metrics } from "@svc/shared/metrics";
import { operationalRoutes as kitOperationalRoutes } from "@svc/shared/operational";
import { OPERATIONAL_DOCS } from "../openapi/openapi_operations.ts";

export interface OperationalOptions {
  version: string;
  /** Serve `/metrics` here (when `--metrics-addr` is empty). */
  metrics?: Metrics;
  /** The OpenAPI document, built on first request. */
  document: () => object | Promise<object>;
  /** The lifecycle's shutdown-started signal (`/readyz` turns `draining`). */
  shutdownSignal?: AbortSignal;
}

/** The operational rows. */
export function operationalRoutes(options: OperationalOptions): Route[] {
  return [
    {
      method: ["GET", "HEAD"],
      pattern: "/isalive",
      handler: () => healthHandler(),
      openapi: OPERATIONAL_DOCS["/isalive"],
    },
    // The kit's /favicon.ico (204) gives way to mock-oidc's own, which answers as upstream does.
    ...kitOperationalRoutes({
      readiness: readinessHandler({}, { shutdownSignal: options.shutdownSignal }),
      metrics: options.metrics,
      openapi: { document: options.document, title: "mock-oidc" },
      docs: OPERATIONAL_DOCS,
    }).filter((r) => r.pattern !== "/favicon.ico"),
  ];
}
