/**
 * Cross-cutting HTTP wrappers, one concern per file: errors → problems, request ids, CORS, body
 * limits, access log, per-request timeout, client IP.
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
