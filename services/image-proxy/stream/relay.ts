/**
 * The response body of an object download: pulls chunks from storage only as fast as the client
 * takes them, and ends the transfer when either side stalls. There is no whole-download timeout
 * (images may be arbitrarily large); instead:
 *
 * - upstream idle: a read from storage that yields nothing for `upstreamIdleMs` aborts the
 *   storage request;
 * - write idle: a chunk the client does not take within `writeIdleMs` ends the transfer.
 *
 * Any failure after the headers ends the body early. Every object response announces its
 * `Content-Length`, so the server then closes the connection instead of finishing the message:
 * the client sees a truncated transfer, never a spliced or padded one. (Ending early rather than
 * erroring the stream: Deno prints the stack of a body stream's error to stderr, which would
 * break the JSON-only output.) A body shorter or longer than announced is such a failure too.
 *
 * @module
 */

/** How a relayed transfer ended. */
export type RelayOutcome =
  | "complete"
  | "client_abort"
  | "upstream_error"
  | "upstream_timeout"
  | "write_timeout"
  | "length_mismatch";

/** Options of {@linkcode relay}. */
export interface RelayOptions {
  /** Bytes the response announced (`Content-Length`). */
  expectedBytes: number;
  upstreamIdleMs: number;
  writeIdleMs: number;
  /** Aborts the storage request (its socket), on any early end. */
  abortUpstream: () => void;
  /** Called exactly once, when the transfer ends for any reason. */
  onEnd: (result: { outcome: RelayOutcome; bytes: number; error?: unknown }) => void;
  /** Called with each chunk's size as it is handed to the client. */
  onBytes?: (n: number) => void;
}

/**
 * Wraps a storage body into a response body with stall bounds.
 *
 * @example Usage
 * ```ts
 * import { relay } from "./relay.ts";
 * const upstream = new Response("hello").body!;
 * const body = relay(upstream, {
 *   expectedBytes: 5,
 *   upstreamIdleMs: 30_000,
 *   writeIdleMs: 30_000,
 *   abortUpstream: () => {},
 *   onEnd: ({ outcome }) => console.assert(outcome === "complete"),
 * });
 * await new Response(body).text(); // "hello"
 * ```
 */
export function relay(
  upstream: ReadableStream<Uint8Array>,
  options: RelayOptions,
): ReadableStream<Uint8Array> {
  const { expectedBytes, upstreamIdleMs, writeIdleMs, abortUpstream, onEnd, onBytes } = options;
  const reader = upstream.getReader();
  let bytes = 0;
  let ended = false;
  let writeTimer: ReturnType<typeof setTimeout> | undefined;
  let out!: ReadableStreamDefaultController<Uint8Array>;

  function end(outcome: RelayOutcome, error?: unknown) {
    if (ended) return;
    ended = true;
    clearTimeout(writeTimer);
    if (outcome !== "complete") {
      abortUpstream();
      reader.cancel().catch(() => {});
      if (outcome !== "client_abort") {
        try {
          out.close();
        } catch {
          // already closed or errored
        }
      }
    }
    onEnd({ outcome, bytes, error });
  }

  async function readWithin(ms: number) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<"stalled">((r) => timer = setTimeout(() => r("stalled"), ms));
    try {
      return await Promise.race([reader.read(), stalled]);
    } finally {
      clearTimeout(timer);
    }
  }

  return new ReadableStream<Uint8Array>({
    start(controller) {
      out = controller;
    },
    async pull(controller) {
      clearTimeout(writeTimer);
      if (ended) return;
      let result;
      try {
        result = await readWithin(upstreamIdleMs);
      } catch (err) {
        return end("upstream_error", err);
      }
      if (ended) return;
      if (result === "stalled") return end("upstream_timeout");
      if (result.done) {
        if (bytes !== expectedBytes) return end("length_mismatch");
        controller.close();
        return end("complete");
      }
      bytes += result.value.byteLength;
      if (bytes > expectedBytes) return end("length_mismatch");
      controller.enqueue(result.value);
      onBytes?.(result.value.byteLength);
      writeTimer = setTimeout(() => end("write_timeout"), writeIdleMs);
    },
    cancel(reason) {
      end("client_abort", reason);
    },
  }, { highWaterMark: 0 });
}
