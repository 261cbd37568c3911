/**
 * Request draining for a graceful shutdown: counts requests until their responses are fully
 * handed to the socket, and once accepting stops answers new requests with a 503 problem and
 * `Connection: close` (so keep-alive clients move to another instance), then waits until the
 * count reaches zero or the grace period is over.
 *
 * @module
 */
import type { Handler } from "../http/handler.ts";
import { errorResponse, HttpError } from "../problem.ts";
import { delay } from "./delay.ts";

/** The in-flight requests of a server. */
export interface Drain {
  /** Wraps a listener's handler so its requests are counted (and refused once draining). */
  track(handler: Handler): Handler;
  /** Requests still being answered. */
  inFlight(): number;
  /**
   * Refuses new requests from now on and waits until every counted request has finished or
   * `graceMs` has passed; resolves `true` for a clean drain, `false` when time ran out.
   */
  drain(graceMs: number): Promise<boolean>;
}

/** Options of {@linkcode createDrain}. */
export interface DrainOptions {
  /**
   * Answers requests that arrive while draining, for services whose error bodies are not
   * problems (`Connection: close` is added to its response).
   * @default a 503 problem with code `shutting_down`
   */
  refuse?: Handler;
}

/**
 * Creates a drain for one or more listeners.
 *
 * @example Usage
 * ```ts
 * import { createDrain } from "@svc/shared/lifecycle";
 * import assert from "node:assert/strict";
 * const drain = createDrain();
 * const handler = drain.track(() => new Response("ok"));
 * assert.equal(await drain.drain(1_000), true);
 * const info = { completed: Promise.resolve() } as Deno.ServeHandlerInfo;
 * assert.equal((await handler(new Request("http://x/"), info)).status, 503);
 * ```
 */
export function createDrain(options: DrainOptions = {}): Drain {
  const { refuse } = options;
  let draining = false;
  let inFlight = 0;
  let idle: (() => void) | undefined;

  function track(handler: Handler): Handler {
    return async function tracked(req, info) {
      if (draining) {
        await req.body?.cancel().catch(() => {});
        if (refuse) {
          const res = await refuse(req, info);
          res.headers.set("connection", "close");
          return res;
        }
        return errorResponse(
          new HttpError(
            503,
            "shutting_down",
            "Cannot accept requests: the server is shutting down",
            {
              headers: { Connection: "close" },
            },
          ),
        );
      }
      inFlight++;
      const done = () => {
        if (--inFlight === 0) idle?.();
      };
      // `completed` settles when the response has been handed over (or the client went away).
      info.completed.then(done, done);
      return await handler(req, info);
    };
  }

  async function drain(graceMs: number): Promise<boolean> {
    draining = true;
    const bound = new AbortController();
    const drained = new Promise<boolean>((resolve) => {
      idle = () => resolve(true);
      if (inFlight === 0) resolve(true);
    });
    const expired = delay(graceMs, { signal: bound.signal }).then(() => false, () => false);
    const clean = await Promise.race([drained, expired]);
    bound.abort();
    return clean;
  }

  return { track, inFlight: () => inFlight, drain };
}
