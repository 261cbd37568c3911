import type { Handler } from "./handler.ts";
import type { Logger } from "../observe/log.ts";
import { requestIdOf } from "./request_id.ts";

/**
 * Writes one `request` log line per request once its response has been sent: method, path (no
 * query string, which may carry codes or tokens), route label (when `route` is given), status,
 * duration and request id. `url` lets a route table hand over the URL it already parsed.
 *
 * @example Usage
 * ```ts
 * import { withAccessLog } from "@svc/shared/http";
 * import { createLogger } from "@svc/shared/log";
 * const handler = withAccessLog(() => new Response("ok"), { logger: createLogger() });
 * ```
 */
export function withAccessLog(
  handler: Handler,
  options: {
    logger: Logger;
    skip?: (path: string) => boolean;
    now?: () => number;
    route?: (req: Request) => string;
    url?: (req: Request) => URL;
    /** The client address to log. @default the TCP peer's address */
    remote?: (req: Request, info: Deno.ServeHandlerInfo) => string | undefined;
  },
): Handler {
  const { logger, skip = () => false, now = performance.now.bind(performance), route } = options;
  const urlOf = options.url ?? ((req: Request) => new URL(req.url));
  return async function accessLog(req, info) {
    const start = now();
    const path = urlOf(req).pathname;
    // Read the peer before the response goes out: Deno refuses `remoteAddr` on a finished request.
    const remote = options.remote
      ? options.remote(req, info)
      : "hostname" in info.remoteAddr
      ? info.remoteAddr.hostname
      : undefined;
    const res = await handler(req, info);
    if (!skip(path)) {
      // Read from the request now: once the response is over Deno closes it, and an HTTP/2
      // request's headers then throw even if they were read before. The line itself is written
      // when the response has been handed over; a failure to write it is reported, never left
      // as a rejection nobody handles (which would end the process).
      const method = req.method;
      const label = route?.(req);
      const requestId = requestIdOf(req) || undefined;
      const status = res.status;
      // One callback for both outcomes: `completed` resolves with nothing, or rejects with why.
      const write = (failure?: unknown) => {
        const aborted = failure !== undefined;
        const fields: Record<string, unknown> = {
          method,
          path,
          route: label,
          status,
          durationMs: Math.round((now() - start) * 100) / 100,
          requestId,
          remote,
        };
        if (aborted) fields.aborted = true;
        try {
          logger.info("request", fields);
        } catch {
          // the logger failed: nothing left to report it with
        }
      };
      info.completed.then(write, (err) => write(err ?? "aborted"));
    }
    return res;
  };
}
