/**
 * When a service's first answer has gone out: the moment to start start-up work that no first
 * request needs but that would hold one back (loading a large module evaluates on the event loop;
 * a worker thread's start competes for the cores), bounded for when no request comes.
 *
 * @module
 */
import type { Handler } from "./handler.ts";

/** Options of {@linkcode firstAnswer}. */
export interface FirstAnswerOptions {
  /** `answered` resolves this long after the call when no answer has gone out by then. */
  maxWaitMs: number;
  /** `answered` resolves at once when it aborts (a shutdown before any request). */
  signal?: AbortSignal;
  /**
   * What `answered` waits for: the first answer to go out (`"answer"`), or, for start-up work
   * the first request itself waits on (a datastore's open), that request's arrival plus one turn
   * of the event loop, so its handler has run up to its first wait (`"arrival"`).
   * @default {"answer"}
   */
  after?: "answer" | "arrival";
}

/** What {@linkcode firstAnswer} returns. */
export interface FirstAnswer {
  /** `handler`, watched: serve this one. */
  handler: Handler;
  /**
   * Resolves (never rejects) once the first answer has been handed to the socket and one more
   * turn of the event loop has let its bytes go out (with `after: "arrival"`: one turn after the
   * first request came in), after `maxWaitMs`, or when `signal` aborts, whichever comes first.
   */
  answered: Promise<void>;
}

/**
 * Wraps `handler` to tell when its first answer has gone out.
 *
 * @example Usage
 * ```ts
 * import { firstAnswer, localInfo } from "@svc/shared/http";
 * import assert from "node:assert/strict";
 *
 * const first = firstAnswer(() => new Response("ok"), { maxWaitMs: 60_000 });
 * const res = await first.handler(new Request("http://x/healthz"), localInfo());
 * assert.equal(await res.text(), "ok");
 * await first.answered; // now load what the first request did not need
 * ```
 */
export function firstAnswer(handler: Handler, options: FirstAnswerOptions): FirstAnswer {
  const { maxWaitMs, signal, after = "answer" } = options;
  const { promise: answered, resolve } = Promise.withResolvers<void>();
  // Not setTimeout: Deno's first setTimeout loads its Node timers (≈ 25 ms CPU), which a
  // start-up would pay before its first answer.
  const bound = signal
    ? AbortSignal.any([signal, AbortSignal.timeout(maxWaitMs)])
    : AbortSignal.timeout(maxWaitMs);
  const done = () => {
    bound.removeEventListener("abort", done);
    resolve();
  };
  if (bound.aborted) done();
  else bound.addEventListener("abort", done, { once: true });
  let seen = false;
  return {
    answered,
    handler(req, info) {
      if (!seen) {
        seen = true;
        const next = () => AbortSignal.timeout(0).addEventListener("abort", done, { once: true });
        // `completed` settles when the body is handed to the socket (rejects when the client
        // went away); the socket write itself happens on the next turn.
        if (after === "answer") info.completed.then(next, next);
        else next();
      }
      return handler(req, info);
    },
  };
}
