/**
 * Request draining for a graceful shutdown: counts requests until their responses are fully
 * handed to the socket, and once accepting stops answers new requests with a 503 problem and
 * `Connection: close` (so keep-alive clients move to another instance), then waits until the
 * count reaches zero or the grace period is over.
 *
 * Closing a keep-alive connection while its client is sending the next request is a reset for
 * that client, so the drain also waits, within the grace period, until every connection that was
 * recently busy has been told to close: its next request is answered 503 with `Connection: close`
 * (a response still in flight when the drain starts gets `Connection: close` too). Connections are
 * told apart by their remote address (`Deno.serve` exposes no connection object); one that has
 * been idle for `closeNoticeMs` is not waited for. Last, the drain waits until no request has
 * arrived for `quietMs` (at most until `closeNoticeMs` after it began), so a client that opened a
 * new connection right after its 503 is answered rather than cut.
 *
 * What stays possible (Deno 2.9 gives no way to stop accepting without closing the listener): a
 * connection the kernel accepted in the instant the listener closes is reset, and so is one that
 * sends on an idle keep-alive connection at that instant. A client that keeps reconnecting after
 * its 503 can meet that instant; one that goes elsewhere after its 503, as a load-balanced client
 * does, cannot. Measured on Deno 2.9.6 (loopback, 2 cores): 16 keep-alive clients sending during
 * a shutdown, back to back or paced, got zero resets in every one of 20+ shutdowns (before this
 * drain: up to 7 of 16 paced clients cut without an answer); 16 clients that reconnect at once
 * after each 503 still saw 4–16 resets per shutdown, at most one each, all at the listener's close
 * (`tests/bench/shutdown_resets`, figures in `tests/bench/RESULTS.md`).
 *
 * @module
 */
import type { Handler } from "../http/handler.ts";
import { errorResponse, HttpError } from "../http/problem.ts";
import { delay } from "./delay.ts";

/** The in-flight requests of a server. */
export interface Drain {
  /** Wraps a listener's handler so its requests are counted (and refused once draining). */
  track(handler: Handler): Handler;
  /** Requests still being answered. */
  inFlight(): number;
  /**
   * Refuses new requests from now on and waits until every counted request has finished, every
   * recently busy keep-alive connection has been told to close and no request arrived for
   * `quietMs`, or until `graceMs` has passed; resolves `true` when no request was still in flight
   * (a clean drain), `false` when time ran out on one.
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
  /**
   * A keep-alive connection whose last request is older than this is taken as idle: the drain
   * does not wait for it to be told to close. @default {1000}
   */
  closeNoticeMs?: number;
  /**
   * The drain ends only once no request has arrived for this long, or `closeNoticeMs` after it
   * began. @default {50}
   */
  quietMs?: number;
  /** Clock in milliseconds. @default {performance.now} */
  now?: () => number;
}

const POLL_MS = 5;

function refusal(): Response {
  return errorResponse(
    new HttpError(503, "shutting_down", "Cannot accept requests: the server is shutting down", {
      headers: { Connection: "close" },
    }),
  );
}

function closing(res: Response): Response {
  try {
    res.headers.set("connection", "close");
  } catch {
    // immutable headers (a proxied response): the connection then closes without the notice
  }
  return res;
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
  const { refuse, closeNoticeMs = 1000, quietMs = 50, now = () => performance.now() } = options;
  let draining = false;
  let inFlight = 0;
  let listeners = 0;
  let lastArrival = -Infinity;
  let lastSweep = now();
  // Connection (listener + remote address) → time of its last request; entries older than
  // `closeNoticeMs` are swept at most once per `closeNoticeMs`, which bounds the map.
  const busy = new Map<string, number>();

  function connectionOf(listener: number, addr: Deno.Addr | undefined): string | undefined {
    // In-process calls (port 0) and unix sockets have no connection to tell apart.
    return addr?.transport === "tcp" && addr.port > 0
      ? `${listener} ${addr.hostname} ${addr.port}`
      : undefined;
  }

  function sweep(at: number): void {
    lastSweep = at;
    for (const [key, last] of busy) if (at - last >= closeNoticeMs) busy.delete(key);
  }

  // One callback for every request (a closure per request is garbage each leaves behind).
  const done = () => {
    inFlight--;
  };

  /** The 503 of a request that arrives while draining. */
  async function refused(
    req: Request,
    info: Deno.ServeHandlerInfo,
    connection: string | undefined,
  ): Promise<Response> {
    if (connection !== undefined) busy.delete(connection);
    await req.body?.cancel().catch(() => {});
    return closing(refuse ? await refuse(req, info) : refusal());
  }

  /** A response that goes out once draining has begun tells its client to close. */
  function leaving(res: Response, connection: string | undefined): Response {
    if (!draining) return res;
    if (connection !== undefined) busy.delete(connection);
    return closing(res);
  }

  function track(handler: Handler): Handler {
    const listener = listeners++;
    // Not async: a handler that answers at once is answered at once (no promise, no frame).
    return function tracked(req, info) {
      const at = now();
      lastArrival = at;
      // The peer is read once here (each read is a call into the runtime that builds a new
      // object) and handed on with `completed` in a plain info, which every layer below reads
      // (the access log's `remote`), even after the response is over.
      const remoteAddr = info.remoteAddr;
      const connection = connectionOf(listener, remoteAddr);
      if (draining) return refused(req, info, connection);
      if (connection !== undefined) {
        busy.set(connection, at);
        if (at - lastSweep >= closeNoticeMs) sweep(at);
      }
      inFlight++;
      // `completed` settles when the response has been handed over (or the client went away).
      const completed = info.completed;
      completed.then(done, done);
      let res: Response | Promise<Response>;
      try {
        res = handler(req, { remoteAddr, completed });
      } catch (err) {
        return Promise.reject(err);
      }
      if (res instanceof Response) return leaving(res, connection);
      return res.then((r) => leaving(r, connection));
    };
  }

  function settled(at: number, since: number): boolean {
    if (inFlight > 0) return false;
    sweep(at);
    // Clients that keep reconnecting after their 503 never leave a quiet moment: bounded.
    return busy.size === 0 && (at - lastArrival >= quietMs || at - since >= closeNoticeMs);
  }

  async function drain(graceMs: number): Promise<boolean> {
    draining = true;
    const since = now();
    const deadline = since + graceMs;
    while (!settled(now(), since) && now() < deadline) {
      await delay(Math.max(0, Math.min(POLL_MS, deadline - now())));
    }
    return inFlight === 0;
  }

  return { track, inFlight: () => inFlight, drain };
}
