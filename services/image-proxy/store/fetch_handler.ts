/**
 * The S3 client's HTTP handler: the SDK's fetch handler over Deno's native `fetch`, whose response
 * bodies are web streams with real backpressure (the Node handler's bodies went through a Node
 * stream → web stream bridge that buffered ahead of the client and halved throughput).
 *
 * Three fixes on top of it: redirects are never followed (`fetch` follows them by default, so a
 * store answering `307 Location: <anywhere>` made the proxy fetch that host, forwarding the
 * `X-Amz-Security-Token` and serving what it answered as the object; the 3xx now reaches the SDK
 * as an error, classified `misconfigured`); a timed-out request is aborted (the SDK's handler
 * only stops waiting, leaving the connection to hang); and Deno's network `TypeError`s become
 * errors with an `ECONNRESET` code, which the SDK's retry strategy treats as transient (it
 * recognises only browsers' wording) and which the store classifies as `unavailable`.
 *
 * @module
 */
import { FetchHttpHandler } from "@smithy/fetch-http-handler";

type Handle = FetchHttpHandler["handle"];

/**
 * Creates the handler.
 *
 * @example Usage
 * ```ts
 * import { storageFetchHandler } from "./fetch_handler.ts";
 * const requestHandler = storageFetchHandler({ timeoutMs: 30_000 });
 * requestHandler.destroy();
 * ```
 */
export function storageFetchHandler(options: { timeoutMs: number }): FetchHttpHandler {
  const inner = new FetchHttpHandler({
    requestTimeout: options.timeoutMs,
    // Storage's answers never pick a host: the only host reached is the configured endpoint.
    requestInit: () => ({ redirect: "manual" }),
  });
  const handle: Handle = async (request, handlerOptions = {}) => {
    const own = new AbortController();
    const given = handlerOptions.abortSignal as AbortSignal | undefined;
    const abortSignal = given ? AbortSignal.any([given, own.signal]) : own.signal;
    try {
      return await inner.handle(request, { ...handlerOptions, abortSignal });
    } catch (err) {
      own.abort();
      if (err instanceof TypeError) {
        throw Object.assign(new Error("Cannot reach storage", { cause: err }), {
          name: "NetworkError",
          code: "ECONNRESET",
        });
      }
      throw err;
    }
  };
  // Delegates everything else to the SDK's handler (its `config` stays private to it).
  return new Proxy(inner, {
    get: (target, key) => key === "handle" ? handle : Reflect.get(target, key, target),
  });
}
