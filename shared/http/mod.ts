/**
 * The route table ({@linkcode createRouter}), the default middleware stack around it
 * ({@linkcode withDefaultStack}), and the cross-cutting HTTP wrappers it is made of, one concern
 * per file: errors → problems, request ids, CORS, body limits, access log, per-request timeout,
 * body read and write timeouts, client IP, the bounded method label.
 *
 * @example A service's handler: one route table inside the default stack
 * ```ts
 * import { createRouter, localInfo, type Route, withDefaultStack } from "@svc/shared/http";
 * import { createLogger } from "@svc/shared/log";
 * import { createMetrics } from "@svc/shared/metrics";
 * import { operationalRoutes } from "@svc/shared/operational";
 * import assert from "node:assert/strict";
 *
 * const metrics = createMetrics({ service: "demo" });
 * const routes: Route[] = [
 *   // /healthz, /readyz, /openapi.json, /openapi.yaml, /docs: GET and HEAD, 405 otherwise
 *   ...operationalRoutes({
 *     openapi: { document: () => ({ openapi: "3.0.3", paths: {} }), title: "demo" },
 *   }),
 *   {
 *     method: "GET",
 *     pattern: "/v1/items/:id",
 *     handler: (_req, ctx) => Response.json({ id: ctx.params.id }),
 *     openapi: { operationId: "get-item", responses: { "200": { description: "The item." } } },
 *   },
 * ];
 * const handler = withDefaultStack(createRouter(routes), {
 *   logger: createLogger({ write: () => {} }),
 *   metrics, // labels: method (bounded), route ("/v1/items/{id}"), status
 *   requestTimeoutMs: 15_000,
 * });
 * const res = await handler(new Request("http://x/healthz", { method: "DELETE" }), localInfo());
 * assert.equal(res.status, 405);
 * assert.equal(res.headers.get("allow"), "GET, HEAD");
 * ```
 * @module
 */
export { type Handler, localInfo } from "./handler.ts";
export {
  type ContextKey,
  createContextKey,
  ensureContext,
  getContext,
  setContext,
} from "./context.ts";
export { withErrors } from "./errors.ts";
export { requestIdOf, withRequestId } from "./request_id.ts";
export { type CorsOptions, withCors } from "./cors.ts";
export {
  PAGE_BACKED_MIN,
  readBody,
  readJson,
  readStream,
  readText,
  withBodyBytes,
} from "./body.ts";
export { withAccessLog } from "./access_log.ts";
export { extendTimeout, timeoutSignalOf, withTimeout } from "./timeout.ts";
export { clientIp } from "./client_ip.ts";
export { withReadTimeout, withWriteTimeout, WriteTimeoutError } from "./io_timeouts.ts";
export {
  type RateDecision,
  RateLimiter,
  type RateLimiterOptions,
  type RateLimitOptions,
  withRateLimit,
} from "./rate_limit.ts";
export {
  createRouter,
  type FallbackContext,
  notFoundError,
  openapiPaths,
  type Route,
  type RouteContext,
  type RouteHandler,
  type RouteMatch,
  type Router,
  type RouterOptions,
} from "./route.ts";
export { type DefaultStackOptions, type Middleware, withDefaultStack } from "./stack.ts";
export { methodLabel } from "./method_label.ts";
export { withValidTarget } from "./valid_target.ts";
export { type FirstAnswer, firstAnswer, type FirstAnswerOptions } from "./first_answer.ts";
