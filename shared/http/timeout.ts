import type { Handler } from "./handler.ts";
import { HttpError } from "../problem.ts";

interface Deadline {
  signal: AbortSignal;
  /** Moves the deadline to `ms` from now when that is later than the current one. */
  extend(ms: number): void;
}

const deadlines = new WeakMap<Request, Deadline>();

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
    let expiresAt = performance.now() + ms;
    let reject!: (err: unknown) => void;
    const fire = () => {
      // First, so work waiting on the signal stops before the 503 reaches the client.
      deadline.abort();
      reject(
        new HttpError(503, "request_timeout", "Cannot answer: the request took too long", {
          title: "Service Unavailable",
        }),
      );
    };
    const expired = new Promise<never>((_, rej) => {
      reject = rej;
      timer = setTimeout(fire, ms);
    });
    deadlines.set(req, {
      signal: deadline.signal,
      extend(extra) {
        const at = performance.now() + extra;
        if (at <= expiresAt || deadline.signal.aborted) return;
        expiresAt = at;
        clearTimeout(timer);
        timer = setTimeout(fire, extra);
      },
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
  return deadlines.get(req)?.signal;
}

/**
 * Raises the request timeout of one request so that it expires no sooner than `ms` from now.
 * A long poll whose own wait is longer than the service's request timeout calls it, so it
 * answers at its own deadline instead of with the timeout's 503. Returns false outside of
 * {@linkcode withTimeout} (no timeout applies then).
 *
 * @example Usage
 * ```ts
 * import { extendTimeout, withTimeout } from "@svc/shared/http";
 * const handler = withTimeout(async (req) => {
 *   extendTimeout(req, 200);
 *   await new Promise((r) => setTimeout(r, 100));
 *   return new Response("late but on time");
 * }, { ms: 50 });
 * const res = await handler(new Request("http://x/"), {} as Deno.ServeHandlerInfo<Deno.NetAddr>);
 * if (res.status !== 200) throw new Error("the extended request timed out");
 * ```
 */
export function extendTimeout(req: Request, ms: number): boolean {
  const deadline = deadlines.get(req);
  deadline?.extend(ms);
  return deadline !== undefined;
}
