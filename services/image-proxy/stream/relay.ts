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

/**
 * Bytes read ahead of the client: storage reads overlap socket writes, and memory stays bounded
 * (plus one storage chunk, at most 64 KiB) per download.
 */
export const READ_AHEAD_BYTES = 128 * 1024;

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
  let read = 0; // bytes taken from storage
  let ended = false;
  let upstreamDone = false;
  // One watchdog per transfer instead of a timer per chunk: a chunk costs two clock reads.
  let waitingSince = -1; // a read from storage is pending since then
  let pulledAt = performance.now(); // the client last took bytes then
  const tick = Math.max(5, Math.min(1_000, Math.min(upstreamIdleMs, writeIdleMs) / 4));
  const watchdog = setInterval(() => {
    const now = performance.now();
    if (waitingSince >= 0 && now - waitingSince > upstreamIdleMs) end("upstream_timeout");
    else if (waitingSince < 0 && queued() > 0 && now - pulledAt > writeIdleMs) {
      end("write_timeout");
    }
  }, tick);
  let out!: ReadableStreamDefaultController<Uint8Array>;
  const queued = () => READ_AHEAD_BYTES - (out.desiredSize ?? READ_AHEAD_BYTES);

  function end(outcome: RelayOutcome, error?: unknown) {
    if (ended) return;
    ended = true;
    clearInterval(watchdog);
    const bytes = read - (outcome === "complete" ? 0 : queued());
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

  return new ReadableStream<Uint8Array>({
    start(controller) {
      out = controller;
    },
    async pull(controller) {
      pulledAt = performance.now();
      if (ended) return;
      if (upstreamDone) {
        // Storage is done; the transfer is, once the client has taken the read-ahead.
        if (queued() === 0) {
          controller.close();
          end("complete");
        }
        return;
      }
      waitingSince = pulledAt;
      let result;
      try {
        result = await reader.read();
      } catch (err) {
        return end("upstream_error", err);
      } finally {
        waitingSince = -1;
      }
      if (ended) return;
      if (result.done) {
        if (read !== expectedBytes) return end("length_mismatch");
        upstreamDone = true;
        if (queued() === 0) {
          controller.close();
          end("complete");
        }
        return;
      }
      read += result.value.byteLength;
      if (read > expectedBytes) {
        read -= result.value.byteLength;
        return end("length_mismatch");
      }
      controller.enqueue(result.value);
      onBytes?.(result.value.byteLength);
    },
    cancel(reason) {
      end("client_abort", reason);
    },
  }, new ByteLengthQueuingStrategy({ highWaterMark: READ_AHEAD_BYTES }));
}
