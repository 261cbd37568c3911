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
 * Largest chunk handed to the server. Storage reads (at most 64 KiB each from Deno's `fetch`) are
 * gathered into chunks of this size, so the per-chunk costs (stream hops, the server's write, the
 * garbage they leave) are paid once per 256 KiB; in tests/bench/image_proxy 256 KiB cost less CPU
 * than 64 KiB, 512 KiB or 1 MiB.
 */
const CHUNK_BYTES = 256 * 1024;

/**
 * How long a chunk's first bytes may wait for more before the chunk is handed on anyway: a slow
 * store's bytes reach the client within one storage read, not once 256 KiB have trickled in.
 */
const GATHER_MS = 20;

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
  /** Largest chunk gathered from a byte stream. @default {CHUNK_BYTES} */
  chunkBytes?: number;
  /** Gathering stops once a chunk's first bytes are this old. @default {GATHER_MS} */
  gatherMs?: number;
  /**
   * Detach each chunk's buffer once the consumer has taken it and asked for more, so its memory
   * is freed when the consumer is done with it rather than at the next garbage collection. Only
   * for a consumer that hands every chunk on to native code as it takes it, as `Deno.serve`'s
   * response writer does; a JavaScript consumer that keeps chunks (`Response.arrayBuffer()`)
   * would see them emptied. Applies to byte-stream storage bodies (the relay's own buffers).
   * @default {false}
   */
  freeTakenChunks?: boolean;
}

/** Reads the next chunk from storage: `undefined` at its end. */
type ChunkReader = (limit: number, onRead: () => void) => Promise<Uint8Array | undefined>;

/**
 * A byte stream (Deno's `fetch` bodies are) is read into buffers the relay allocates, several
 * reads gathered into one chunk of up to `limit` bytes, for at most `gatherMs` after its first
 * bytes arrived; any other stream chunk by chunk, as is. `onRead` marks the start of each storage
 * read (the upstream idle clock).
 */
function chunkReader(upstream: ReadableStream<Uint8Array>, gatherMs: number): {
  next: ChunkReader;
  cancel: () => void;
  /** Whether chunks are the relay's own buffers (only those may be detached). */
  owned: boolean;
} {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = upstream.getReader({ mode: "byob" });
  } catch {
    // not a byte stream
  }
  if (byob === undefined) {
    const reader = upstream.getReader();
    return {
      next: async (_limit, onRead) => {
        onRead();
        const { done, value } = await reader.read();
        return done ? undefined : value;
      },
      cancel: () => reader.cancel().catch(() => {}),
      owned: false,
    };
  }
  const reader = byob;
  return {
    next: async (limit, onRead) => {
      let buffer = new Uint8Array(limit);
      let filled = 0;
      let firstAt = 0;
      while (filled < limit) {
        onRead();
        const { done, value } = await reader.read(buffer.subarray(filled));
        if (value === undefined) break; // cancelled
        buffer = new Uint8Array(value.buffer); // the read transferred the buffer
        if (filled === 0) firstAt = performance.now();
        filled += value.byteLength;
        if (done || (filled > 0 && performance.now() - firstAt >= gatherMs)) break;
      }
      return filled === 0 ? undefined : buffer.subarray(0, filled);
    },
    cancel: () => reader.cancel().catch(() => {}),
    owned: true,
  };
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
  const { expectedBytes, upstreamIdleMs, writeIdleMs, abortUpstream, onEnd } = options;
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  // Bytes read ahead of the client: one chunk, so storage reads overlap socket writes and memory
  // stays bounded (this, the chunk being filled, and what the server is writing).
  const readAhead = chunkBytes;
  const source = chunkReader(upstream, options.gatherMs ?? GATHER_MS);
  const freeTaken = (options.freeTakenChunks ?? false) && source.owned;
  // Chunks handed to the server's queue and not yet known to have left it (owned buffers only).
  const handed: Uint8Array[] = [];
  let handedBytes = 0;
  let read = 0; // bytes taken from storage
  let ended = false;
  let upstreamDone = false;
  // One watchdog per transfer, re-armed by timestamps: a storage read or a pull costs a clock read,
  // never a timer or a promise of its own.
  let waitingSince = -1; // a read from storage is pending since then
  let pulledAt = performance.now(); // the client last took bytes then
  const readStarted = () => waitingSince = performance.now();
  const tick = Math.max(5, Math.min(1_000, Math.min(upstreamIdleMs, writeIdleMs) / 4));
  const watchdog = setInterval(() => {
    const now = performance.now();
    if (waitingSince >= 0 && now - waitingSince > upstreamIdleMs) end("upstream_timeout");
    else if (waitingSince < 0 && queued() > 0 && now - pulledAt > writeIdleMs) {
      end("write_timeout");
    }
  }, tick);
  let out!: ReadableStreamDefaultController<Uint8Array>;
  const queued = () => readAhead - (out.desiredSize ?? readAhead);

  function end(outcome: RelayOutcome, error?: unknown) {
    if (ended) return;
    ended = true;
    clearInterval(watchdog);
    const bytes = read - (outcome === "complete" ? 0 : queued());
    if (outcome !== "complete") {
      abortUpstream();
      source.cancel();
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

  /**
   * `freeTakenChunks`: detaches the buffers the consumer has taken. `Deno.serve` passes a chunk to
   * its native writer in the same call that takes it from this stream's queue, and the writer
   * holds its own reference to the memory until the bytes are on the socket; dropping the JS one
   * frees the memory once written instead of at the next garbage collection (waiting for the
   * collector kept RSS tens of MB higher: tests/bench/image_proxy). Called only after an `await`,
   * so no taken chunk can still be on its way to the writer.
   */
  function release() {
    let taken = handedBytes - queued();
    while (handed.length > 0 && handed[0].byteLength <= taken) {
      const chunk = handed.shift()!;
      taken -= chunk.byteLength;
      handedBytes -= chunk.byteLength;
      (chunk.buffer as ArrayBuffer).transfer(0);
    }
  }

  function finish(controller: ReadableStreamDefaultController<Uint8Array>) {
    // Storage is done; the transfer is, once the client has taken the read-ahead.
    if (queued() === 0) {
      controller.close();
      end("complete");
    }
  }

  return new ReadableStream<Uint8Array>({
    start(controller) {
      out = controller;
    },
    async pull(controller) {
      pulledAt = performance.now();
      if (ended) return;
      if (upstreamDone) return finish(controller);
      let chunk;
      try {
        // One byte more than announced is asked for, so an overlong body shows at once.
        chunk = await source.next(Math.min(chunkBytes, expectedBytes - read + 1), readStarted);
      } catch (err) {
        return end("upstream_error", err);
      } finally {
        waitingSince = -1;
      }
      if (ended) return;
      if (freeTaken) release();
      if (chunk === undefined) {
        if (read !== expectedBytes) return end("length_mismatch");
        upstreamDone = true;
        return finish(controller);
      }
      if (read + chunk.byteLength > expectedBytes) return end("length_mismatch");
      read += chunk.byteLength;
      controller.enqueue(chunk);
      if (freeTaken) {
        handed.push(chunk);
        handedBytes += chunk.byteLength;
      }
    },
    cancel(reason) {
      end("client_abort", reason);
    },
  }, new ByteLengthQueuingStrategy({ highWaterMark: readAhead }));
}
