import type { Handler } from "./handler.ts";
import { HttpError } from "../problem.ts";

const deadlines = new WeakMap<Request, AbortSignal>();

/**
 * Bounds the time a handler may take to produce its response (Go's `http.TimeoutHandler`):
 * after `ms` the client gets a 503 problem with code `request_timeout`. The handler keeps running
 * in the background (JavaScript cannot cancel it); its late result is discarded. Streaming bodies
 * are not cut: the bound covers the time to the response head.
 *
 * @example Usage
 * ```ts
 * import { withTimeout } from "@svc/shared/http";
 * const handler = withTimeout(() => new Response("ok"), { ms: 15_000 });
 * ```
 */
export function withTimeout(handler: Handler, options: { ms: number }): Handler {
  const { ms } = options;
  if (!(ms > 0)) return handler;
  return function timeout(req, info) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new AbortController();
    deadlines.set(req, deadline.signal);
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          // First, so work waiting on the signal stops before the 503 reaches the client.
          deadline.abort();
          reject(
            new HttpError(503, "request_timeout", "Cannot answer: the request took too long", {
              title: "Service Unavailable",
            }),
          );
        },
        ms,
      );
    });
    const work = Promise.resolve().then(() => handler(req, info));
    work.catch(() => {}); // a late failure after the timeout must not become unhandled
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  };
}

/**
 * Aborts when {@linkcode withTimeout} gives up on this request, so long waits (e.g. a long poll)
 * can stop instead of running on in the background; `undefined` outside of `withTimeout`.
 * Unlike `req.signal` it does not make Deno 2.9 print its legacy-abort warning.
 */
export function timeoutSignalOf(req: Request): AbortSignal | undefined {
  return deadlines.get(req);
}
