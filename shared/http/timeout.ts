import { createContextKey, getContext, setContext } from "./context.ts";
import type { Handler } from "./handler.ts";
import { HttpError } from "./problem.ts";

/**
 * One request's deadline: fired by the shared queue, or by its own timer once extended. The kit's
 * default stack extends it into its one per-request record (`stack.ts`), which answers the 503
 * itself; {@linkcode withTimeout} races the handler's answer against it.
 */
export class Deadline {
  /** When it passes (`performance.now()` time). */
  expiresAt: number;
  /** Still waiting in the queue (not answered, not expired, not extended). */
  queued = true;
  /** Answered or expired: nothing more happens. */
  settled = false;
  /** Rejects the request's answer with the 503; set by {@linkcode Deadline.race}. */
  #reject?: (err: unknown) => void;
  #controller?: AbortController;
  #timer?: ReturnType<typeof setTimeout>;
  #leaveQueue: (d: Deadline) => void;

  /**
   * A deadline at `expiresAt` that leaves `queue` once answered or extended; without a queue, one
   * that never passes.
   */
  constructor(expiresAt: number, queue?: DeadlineQueue) {
    this.expiresAt = expiresAt;
    this.#leaveQueue = queue?.leave ?? noQueue;
    if (!queue) this.queued = false;
  }

  /** Created on first use: most requests never ask for it. */
  get signal(): AbortSignal {
    return (this.#controller ??= new AbortController()).signal;
  }

  /**
   * The handler's answer, unless the deadline passes first: then the `request_timeout` error. A
   * late answer or failure settles nothing and is never left unhandled.
   */
  race(answer: Promise<Response>): Promise<Response> {
    return new Promise<Response>((resolve, reject) => {
      this.#reject = reject;
      answer.then((res) => {
        this.finish();
        resolve(res);
      }, (err) => {
        this.finish();
        reject(err);
      });
    });
  }

  /** What happens when the deadline passes first: by default the raced answer rejects. */
  protected expired(err: HttpError): void {
    this.#reject?.(err);
  }

  /** Fires the deadline (once): the signal aborts, then {@linkcode Deadline.expired}. */
  expire(): void {
    if (this.settled) return;
    this.settled = true;
    // First, so work waiting on the signal stops before the 503 reaches the client.
    (this.#controller ??= new AbortController()).abort();
    this.expired(timeoutError());
  }

  /** Moves the deadline to `ms` from now when that is later than the current one. */
  extend(ms: number): void {
    const at = performance.now() + ms;
    if (at <= this.expiresAt || this.settled) return;
    this.expiresAt = at;
    this.#leaveQueue(this); // the queue is ordered by the common timeout; this one has its own
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.expire(), ms);
  }

  /** The request was answered: the deadline no longer applies. */
  finish(): void {
    this.settled = true;
    // Only when extended: even an empty `clearTimeout` loads the Node timers (see DeadlineQueue).
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#leaveQueue(this);
  }
}

function noQueue(): void {}

/**
 * The deadlines of one `withTimeout`, in arrival order. Every request gets the same timeout, so
 * they also expire in that order: one timer for the oldest replaces a timer per request (whose
 * creation cost more than the rest of the stack together).
 *
 * The timer is an `AbortSignal.timeout`, not a `setTimeout`: in Deno 2.9 a process's first
 * `setTimeout` loads the Node timers (≈ 20 ms of CPU), which would make a service's first request
 * pay for it. Such a timer cannot be cleared or unref'd; it wakes at most {@linkcode MAX_WAKE_MS}
 * ahead, so with no request left it keeps a process that would otherwise end up for at most that
 * long (a service ends through `Deno.exit`, and `deno test` does not wait for it).
 */
export class DeadlineQueue {
  /**
   * Arrival order, in places `#head` to `#tail`; places before `#head` are cleared, so the queue
   * keeps no request alive. Emptied, it starts again at place 0 of the same array: one that was
   * truncated instead would get a new backing store at the next request, each time requests come
   * one at a time.
   */
  #queue: (Deadline | undefined)[] = [];
  #head = 0;
  #tail = 0;
  #live = 0;
  /** The armed wake-up; one that fires after being replaced does nothing. */
  #timer?: AbortSignal;

  /** Queues a deadline made with this queue (at the common timeout from now). */
  add(deadline: Deadline): void {
    if (this.#tail < this.#queue.length) this.#queue[this.#tail] = deadline;
    else this.#queue.push(deadline);
    this.#tail++;
    this.#live++;
    if (this.#timer === undefined) this.#arm(performance.now());
  }

  /** Takes a deadline out of the queue (answered, expired or extended). */
  leave = (deadline: Deadline): void => {
    if (!deadline.queued) return;
    deadline.queued = false;
    // Requests mostly finish in arrival order: the answered ones at the head go at once.
    this.#dropAnswered();
    if (--this.#live > 0) return;
    this.#head = 0;
    this.#tail = 0;
    // The timer stays armed: when it fires with nothing queued, it simply ends. Arming a new one
    // for the next request instead would cost a timer per request whenever requests come one at
    // a time.
  };

  #dropAnswered(): void {
    const queue = this.#queue;
    while (this.#head < this.#tail && !queue[this.#head]!.queued) queue[this.#head++] = undefined;
    this.#compact();
  }

  /** Past 1024 cleared places, the live part moves to a new array. */
  #compact(): void {
    if (this.#head <= 1024) return;
    this.#queue = this.#queue.slice(this.#head, this.#tail);
    this.#tail -= this.#head;
    this.#head = 0;
  }

  #tick = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    while (this.#head < this.#tail) {
      const next = this.#queue[this.#head]!;
      if (next.queued && next.expiresAt > now) break;
      this.#queue[this.#head++] = undefined;
      if (next.queued) {
        this.leave(next);
        next.expire();
      }
    }
    this.#compact();
    if (this.#live > 0) this.#arm(now);
  };

  #arm(now: number): void {
    this.#dropAnswered();
    const next = this.#head < this.#tail ? this.#queue[this.#head] : undefined;
    if (!next) return;
    const wake = AbortSignal.timeout(Math.min(MAX_WAKE_MS, Math.max(0, next.expiresAt - now)));
    this.#timer = wake;
    wake.addEventListener("abort", () => this.#timer === wake && this.#tick(), { once: true });
  }
}

/** Longest wait of the queue's timer: it wakes and re-arms while requests are in flight. */
const MAX_WAKE_MS = 1000;

const DEADLINE = createContextKey<Deadline>("deadline");

/** Makes `deadline` the one {@linkcode timeoutSignalOf} and {@linkcode extendTimeout} act on. */
export function attachDeadline(req: Request, deadline: Deadline): void {
  setContext(req, DEADLINE, deadline);
}

function timeoutError(): HttpError {
  return new HttpError(503, "request_timeout", "Cannot answer: the request took too long");
}

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
  const queue = new DeadlineQueue();
  // Per request: one promise for the answer and the two callbacks on the handler's (this runs
  // for every request of every service; each promise and closure is garbage a request leaves).
  return function timeout(req, info) {
    const deadline = new Deadline(performance.now() + ms, queue);
    setContext(req, DEADLINE, deadline);
    queue.add(deadline);
    let answer: Response | Promise<Response>;
    try {
      answer = handler(req, info);
    } catch (err) {
      deadline.finish();
      return Promise.reject(err);
    }
    if (answer instanceof Response) { // answered at once: no deadline can pass any more
      deadline.finish();
      return answer;
    }
    return deadline.race(Promise.resolve(answer));
  };
}

/**
 * Aborts when {@linkcode withTimeout} gives up on this request, so long waits (e.g. a long poll)
 * can stop instead of running on in the background; `undefined` outside of `withTimeout`.
 * Unlike `req.signal` it does not make Deno 2.9 print its legacy-abort warning.
 */
export function timeoutSignalOf(req: Request): AbortSignal | undefined {
  return getContext(req, DEADLINE)?.signal;
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
  const deadline = getContext(req, DEADLINE);
  deadline?.extend(ms);
  return deadline !== undefined;
}
