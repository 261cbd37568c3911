import type { Handler } from "./handler.ts";
import { type Logger, type RequestLineWriter, requestLineWriter } from "../observe/log.ts";
import type { RouteMatch, Router } from "./route.ts";
import { httpRecorder, type Metrics } from "../observe/metrics.ts";
import { PROBE_PATHS } from "./health.ts";
import { errorResponse, HttpError } from "./problem.ts";
import { clientIp } from "./client_ip.ts";
import { type CorsOptions, withCors } from "./cors.ts";
import { assignRequestId, requestIdOf, withIdHeader } from "./request_id.ts";
import { attachDeadline, Deadline, DeadlineQueue, withTimeout } from "./timeout.ts";

/** A middleware: takes a handler, returns one that wraps it. */
export type Middleware = (handler: Handler) => Handler;

/** Options of {@linkcode withDefaultStack}. */
export interface DefaultStackOptions {
  /** Receives the access log and the detail of unexpected errors. */
  logger: Logger;
  /** Counts and times requests per route label; omitted means no HTTP metrics. */
  metrics?: Metrics;
  /** Bound on the time to the response head (503 `request_timeout`); 0 disables. @default 15000 */
  requestTimeoutMs?: number;
  /** Renders anything thrown. @default the kit's problem response, `instance` = path */
  renderError?: (req: Request, err: unknown) => Response | Promise<Response>;
  /**
   * Renders the 400 `invalid_host` of a request whose URL cannot be parsed (the router never sees
   * it, so `renderError`, which may ask the router for the path, is not used).
   * @default the kit's problem response
   */
  renderInvalidTarget?: (req: Request, err: HttpError) => Response | Promise<Response>;
  /**
   * Writes the kit's access log (`request` records with path, route, status, duration, remote).
   * Off for a service whose contract forbids logging paths or client addresses and that writes its
   * own request records. @default {true}
   */
  accessLog?: boolean;
  /** CORS; omitted means no CORS headers at all. */
  cors?: CorsOptions;
  /**
   * Header naming the client address behind a trusted proxy (e.g. `X-Real-IP`): the access log's
   * `remote` comes from it, as rate limiting's client IP does. @default the TCP peer
   */
  trustedProxyHeader?: string;
  /** Paths kept out of the access log. @default {PROBE_PATHS} */
  quietPaths?: ReadonlySet<string>;
  /** Wraps just inside CORS, outside metrics and the access log (e.g. tracing). */
  outer?: Middleware;
  /** Wraps inside the error boundary, outside the timeout (e.g. rate limiting). */
  inner?: Middleware;
}

/**
 * The HTTP stack every service puts around its route table, outermost first: request id, a 400
 * for unparseable targets (an invalid `Host` header, as `withValidTarget` answers it), CORS
 * (when configured), `outer`, metrics (when given), access log (unless switched off), error →
 * problem, `inner`, request timeout (unless 0), then the table. Metrics, the access log and
 * `outer` read the route label from the table, which matches each request once.
 *
 * It behaves as those wrappers (`withRequestId`, `withValidTarget`, `withCors`,
 * `withHttpMetrics`, `withAccessLog`, `withErrors`, `withTimeout`) composed in that order, but is
 * one layer: each request gets one record (`Exchange`) that carries its id, route, start time,
 * client address and deadline, and that records the metrics, writes the access log and sets the
 * request id once the answer is there. Nothing is awaited on the way: a handler that answers
 * synchronously gets its response back without a promise, and one that answers with a promise
 * costs one promise and one pair of callbacks, which later also write the access log. What can be
 * is built once: the metric label objects per route, method and status, the log's options. With
 * `cors` or `outer` the layers outside them are a separate wrapper; with `inner` the timeout is
 * `withTimeout` inside it.
 *
 * @example Usage
 * ```ts
 * import { createRouter, localInfo, withDefaultStack } from "@svc/shared/http";
 * import { createLogger } from "@svc/shared/log";
 * import { createMetrics } from "@svc/shared/metrics";
 * import assert from "node:assert/strict";
 *
 * const router = createRouter([ { method: "GET", pattern: "/hello/:name", handler: (_req, ctx) =>
 * new Response(ctx.params.name) }, ]); const handler = withDefaultStack(router, { logger:
 * createLogger({ write: () => {} }), metrics: createMetrics({ service: "demo" }), }); const res =
 * await handler(new Request("http://x/hello/ada", { method: "DELETE" }), localInfo());
 * assert.equal(res.status, 405); assert.equal(res.headers.get("allow"), "GET, HEAD");
 * assert.ok(res.headers.get("x-request-id"));
 * ```
 */
export function withDefaultStack(router: Router, options: DefaultStackOptions): Handler {
  const { logger, metrics, requestTimeoutMs = 15_000, quietPaths = PROBE_PATHS } = options;
  const trusted = options.trustedProxyHeader;
  const renderInvalid = options.renderInvalidTarget ??
    ((_req: Request, err: HttpError) => errorResponse(err));
  // Inside `inner` the timeout stays a wrapper of its own; otherwise each request's record is
  // its deadline.
  const fusedTimeout = !options.inner && requestTimeoutMs > 0;
  const dispatch = options.inner
    ? options.inner(withTimeout(router.handler, { ms: requestTimeoutMs }))
    : router.handler;
  // The outermost part (request id, target check) is the record's too, unless CORS or `outer`
  // sit between it and the rest.
  const split = options.cors !== undefined || options.outer !== undefined;
  const stack: Stack = {
    logger,
    line: requestLineWriter(logger),
    record: metrics ? httpRecorder(metrics) : undefined,
    render: options.renderError ??
      ((req: Request, err: unknown) =>
        errorResponse(err, { logger, instance: router.match(req).url.pathname })),
    accessLog: options.accessLog ?? true,
    quietPaths,
    remote: trusted ? (req, info) => clientIp(req, info, { trustedHeader: trusted }) : undefined,
    dispatch,
    queue: fusedTimeout ? new DeadlineQueue() : undefined,
    timeoutMs: requestTimeoutMs,
    setsId: !split,
  };

  if (!split) {
    return function defaultStack(req, info) {
      const id = assignRequestId(req, ID_HEADER);
      let match: RouteMatch;
      try {
        match = router.match(req); // parses the URL: the target check
      } catch {
        return invalidTarget(req, renderInvalid, id);
      }
      return exchange(stack, req, info, match, id);
    };
  }

  let h: Handler = (req, info) => exchange(stack, req, info, router.match(req), requestIdOf(req));
  if (options.outer) h = options.outer(h);
  if (options.cors) h = withCors(h, options.cors);
  const inside = h;
  return function defaultStack(req, info) {
    const id = assignRequestId(req, ID_HEADER);
    try {
      router.match(req);
    } catch {
      return invalidTarget(req, renderInvalid, id);
    }
    const res = inside(req, info);
    if (res instanceof Response) return withIdHeader(res, ID_HEADER, id);
    return res.then((r) => withIdHeader(r, ID_HEADER, id));
  };
}

// Lower case, as `Headers` keeps names (and sends them): nothing to convert per request.
const ID_HEADER = "x-request-id";

/** The 400 `invalid_host` (no metrics, no access log: the router never saw the request). */
function invalidTarget(
  req: Request,
  render: (req: Request, err: HttpError) => Response | Promise<Response>,
  id: string,
): Response | Promise<Response> {
  const res = render(
    req,
    new HttpError(400, "invalid_host", "Cannot route request: the Host header is not host[:port]"),
  );
  if (res instanceof Response) return withIdHeader(res, ID_HEADER, id);
  return res.then((r) => withIdHeader(r, ID_HEADER, id));
}

/** What every request of one stack shares, built once. */
interface Stack {
  logger: Logger;
  /** The logger's own access-log writer, when it has one (the kit's JSON logger). */
  line?: RequestLineWriter;
  record?: (route: string, method: string, status: number, seconds: number) => void;
  render: (req: Request, err: unknown) => Response | Promise<Response>;
  accessLog: boolean;
  quietPaths: ReadonlySet<string>;
  remote?: (req: Request, info: Deno.ServeHandlerInfo) => string | undefined;
  dispatch: Handler;
  /** The deadlines, when the record is the request's deadline. */
  queue?: DeadlineQueue;
  timeoutMs: number;
  /** The record sets `X-Request-ID` (no CORS or `outer` outside it). */
  setsId: boolean;
}

/**
 * Serves one request through the table: its record is made, the route handler called, and the
 * answer (or the error, or the deadline's 503) finished by the record.
 */
function exchange(
  stack: Stack,
  req: Request,
  info: Deno.ServeHandlerInfo,
  match: RouteMatch,
  id: string,
): Response | Promise<Response> {
  const x = new Exchange(stack, req, info, match, id);
  if (stack.queue) {
    stack.queue.add(x);
    attachDeadline(req, x);
  }
  let answer: Response | Promise<Response>;
  try {
    answer = stack.dispatch(req, info);
  } catch (err) {
    x.finish();
    return x.failed(err);
  }
  if (answer instanceof Response) { // answered at once: no deadline can pass any more
    x.finish();
    return x.answered(answer);
  }
  return x.waitFor(answer);
}

// The executor of every record's promise: it hands the resolving functions to the record being
// made (`Exchange.waitFor` sets it just before), so no closure is made for it.
let making: Exchange | undefined;
function executor(
  resolve: (res: Response | PromiseLike<Response>) => void,
  reject: (err: unknown) => void,
): void {
  making!.resolve = resolve;
  making!.reject = reject;
}

/** One request, from the moment the stack gets it until its access-log line is written. */
class Exchange extends Deadline {
  readonly stack: Stack;
  /** Dropped once answered: the timeout queue may hold the record a little longer. */
  req: Request;
  info: Deno.ServeHandlerInfo;
  readonly id: string;
  readonly route: string;
  readonly path: string;
  readonly start: number;
  readonly remote: string | undefined;
  status = 500;
  /** The answer has been handed on (or failed): a late answer or the deadline do nothing. */
  done = false;
  /** Set when the answer comes later: the promise the stack returned. */
  resolve?: (res: Response | PromiseLike<Response>) => void;
  reject?: (err: unknown) => void;
  /**
   * The one pair of callbacks of this record: first for the handler's answer (while `#pending`),
   * then for `completed`.
   */
  #ok?: (value: Response | void) => void;
  #err?: (err: unknown) => void;
  #pending = false;
  /** The request's method, read before the response is over. */
  method = "";

  constructor(
    stack: Stack,
    req: Request,
    info: Deno.ServeHandlerInfo,
    match: RouteMatch,
    id: string,
  ) {
    const start = performance.now();
    super(start + stack.timeoutMs, stack.queue);
    this.stack = stack;
    this.req = req;
    this.info = info;
    this.id = id;
    this.route = match.route;
    this.path = match.pathname ?? match.url.pathname;
    this.start = start;
    // Read the peer before the response goes out: Deno refuses `remoteAddr` on a finished request.
    this.remote = !stack.accessLog
      ? undefined
      : stack.remote
      ? stack.remote(req, info)
      : "hostname" in info.remoteAddr
      ? info.remoteAddr.hostname
      : undefined;
    if (!stack.queue) this.settled = true; // no deadline: it never passes
  }

  /** The answer is a promise: the stack's is the record's, settled by whichever comes first. */
  waitFor(answer: Promise<Response>): Promise<Response> {
    making = this;
    const promise = new Promise<Response>(executor);
    making = undefined;
    this.#pending = true;
    const ok = this.#ok = (value: Response | void) => this.#next(value);
    const fail = this.#err = (err: unknown) => this.#fail(err);
    answer.then(ok, fail);
    return promise;
  }

  #next(value: Response | void): void {
    if (!this.#pending) return this.#log(undefined); // `completed`
    this.#pending = false;
    if (this.done) return; // the deadline answered first: a late answer is discarded
    this.finish();
    this.#settle(value as Response);
  }

  #fail(err: unknown): void {
    if (!this.#pending) return this.#log(err ?? "aborted"); // `completed` rejected
    this.#pending = false;
    if (this.done) return; // a late failure is never left unhandled
    this.finish();
    this.#settle(undefined, err);
  }

  /** Hands the answer (or the error's problem) to the promise the stack returned. */
  #settle(res: Response | undefined, err?: unknown): void {
    let out: Response | Promise<Response>;
    try {
      out = res !== undefined ? this.answered(res) : this.failed(err);
    } catch (thrown) {
      this.reject!(thrown);
      return;
    }
    this.resolve!(out); // a promise (a renderer's): adopted, answer or failure
  }

  /** The deadline passed first: the 503 goes through the error boundary like any error. */
  protected override expired(err: HttpError): void {
    if (this.done || this.resolve === undefined) return;
    this.#settle(undefined, err);
  }

  /** The error boundary: what was thrown becomes the service's problem response. */
  failed(err: unknown): Response | Promise<Response> {
    this.done = true;
    let rendered: Response | Promise<Response>;
    try {
      rendered = this.stack.render(this.req, err);
    } catch (thrown) {
      this.#unanswered();
      return Promise.reject(thrown);
    }
    if (rendered instanceof Response) return this.answered(rendered);
    return rendered.then((res) => this.answered(res), (thrown) => {
      this.#unanswered();
      throw thrown;
    });
  }

  /** The renderer failed: counted as a 500, no access log (as the separate wrappers did). */
  #unanswered(): void {
    this.stack.record?.(this.route, this.req.method, 500, (performance.now() - this.start) / 1000);
  }

  /** The answer is there: metrics, the access log once it has been sent, the request id. */
  answered(res: Response): Response {
    this.done = true;
    const { stack } = this;
    this.status = res.status;
    stack.record?.(
      this.route,
      this.req.method,
      this.status,
      (performance.now() - this.start) / 1000,
    );
    if (stack.accessLog && !stack.quietPaths.has(this.path)) {
      // Read from the request now: once the response is over Deno closes it, and an HTTP/2
      // request's headers then throw even if they were read before.
      this.method = this.req.method;
      if (this.#ok && !this.#pending) this.info.completed.then(this.#ok, this.#err);
      else {
        // answered at once, or by the deadline while the handler's answer is still to come
        this.info.completed.then(() => this.#log(undefined), (err) => this.#log(err ?? "aborted"));
      }
    }
    this.req = this.info = undefined!;
    return stack.setsId ? withIdHeader(res, ID_HEADER, this.id) : res;
  }

  /**
   * Writes the `request` line once the response has been handed over (or the client went away:
   * `aborted`); a failure to write it is never left as a rejection nobody handles.
   */
  #log(failure: unknown): void {
    const durationMs = Math.round((performance.now() - this.start) * 100) / 100;
    const line = this.stack.line;
    if (line) {
      try {
        line(
          this.method,
          this.path,
          this.route,
          this.status,
          durationMs,
          this.id,
          this.remote,
          failure !== undefined,
        );
      } catch {
        // the logger failed: nothing left to report it with
      }
      return;
    }
    const fields: Record<string, unknown> = {
      method: this.method,
      path: this.path,
      route: this.route,
      status: this.status,
      durationMs,
      requestId: this.id || undefined,
      remote: this.remote,
    };
    if (failure !== undefined) fields.aborted = true;
    try {
      this.stack.logger.info("request", fields);
    } catch {
      // the logger failed: nothing left to report it with
    }
  }
}
