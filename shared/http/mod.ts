/**
 * The route table ({@linkcode createRouter}), the default middleware stack around it
 * ({@linkcode withDefaultStack}), and the cross-cutting HTTP wrappers it is made of, one concern
 * per file: errors → problems, request ids, CORS, body limits, access log, per-request timeout,
 * body read and write timeouts, client IP, the bounded method label.
 *
 * @example Composing wrappers
 * ```ts
 * import { withAccessLog, withCors, withErrors, withRequestId } from "@svc/shared/http";
 * import { createLogger } from "@svc/shared/log";
 * const logger = createLogger();
 * const app = () => new Response("ok");
 * const handler = withRequestId(withAccessLog(withCors(withErrors(app, { logger })), { logger }));
 * ```
 * @module
 */
export { type Handler, localInfo } from "./handler.ts";
export { withErrors } from "./errors.ts";
export { requestIdOf, withRequestId } from "./request_id.ts";
export { type CorsOptions, withCors } from "./cors.ts";
export { readBody, readJson } from "./body.ts";
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
