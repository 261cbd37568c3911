/**
 * Read and write timeouts applied around a handler, because `Deno.serve` (2.9) has none of its
 * own: a request body must arrive within the read timeout, and a response body must be taken by
 * the client within the write timeout. {@linkcode startServer} (`@svc/shared/server`) applies
 * both from its `timeouts` option.
 *
 * Header-read and keep-alive idle timeouts cannot be built this way: `Deno.serve` hands over a
 * request only once its head has arrived and never exposes the connection, and (measured on
 * 2.9.6) it keeps a connection that sends nothing, half a head, or nothing after a response open
 * for as long as the client likes. Put a reverse proxy in front where that matters.
 *
 * @module
 */
import { HttpError } from "./problem.ts";
import type { Handler } from "./handler.ts";

/** Thrown into a response body the client did not take within the write timeout. */
export class WriteTimeoutError extends Error {
  /**
   * Creates the error for a response cut off after `ms` milliseconds.
   * @param ms The write timeout that passed, for the message.
   */
  constructor(ms: number) {
    super(`Cannot send response: the client did not read it within ${ms}ms`);
    this.name = "WriteTimeoutError";
  }
}

/**
 * Bounds the time a request body may take to arrive: counted from the moment the handler gets the
 * request, reading a body that is not complete within `ms` fails with an {@linkcode HttpError}
 * 408 `body_timeout` (the same error `readBody`'s own `timeoutMs` gives), whoever reads it.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { localInfo, withReadTimeout } from "@svc/shared/http";
 *
 * const handler = withReadTimeout(async (req) => new Response(await req.text()), { ms: 5_000 });
 * const res = await handler(new Request("http://x/", { method: "POST", body: "hi" }), localInfo());
 * assert.equal(await res.text(), "hi");
 * ```
 * @param options.ms The bound in milliseconds; 0 turns it off.
 */
export function withReadTimeout(handler: Handler, options: { ms: number }): Handler {
  const { ms } = options;
  if (!(ms > 0)) return handler;
  return function readTimeout(req, info) {
    if (req.body === null) return handler(req, info);
    const source = req.body.getReader();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let open = true;
    const end = () => {
      open = false;
      clearTimeout(timer);
    };
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        timer = setTimeout(() => {
          if (!open) return;
          end();
          controller.error(
            new HttpError(408, "body_timeout", "Cannot read request body: it arrived too slowly"),
          );
          source.cancel().catch(() => {});
        }, ms);
      },
      async pull(controller) {
        try {
          const { done, value } = await source.read();
          if (!open) return;
          if (done) {
            end();
            controller.close();
          } else controller.enqueue(value);
        } catch (err) {
          if (open) controller.error(err);
          end();
        }
      },
      cancel(reason) {
        end();
        return source.cancel(reason);
      },
    }, { highWaterMark: 0 });
    return handler(new Request(req, { body }), info);
  };
}

/** Largest piece of a response body handed to the runtime at once. */
const SLICE = 64 * 1024;

/**
 * The read's result if it settles without waiting for I/O, else "later". An in-memory body's read
 * settles within two microtasks, so a few turns of the microtask queue tell (no timer, no extra
 * promise race); anything else gets one macrotask's chance.
 */
async function settledSoon<T>(read: Promise<T>): Promise<T | "later"> {
  let settled: { value: T } | undefined;
  read.then((value) => settled = { value }, () => {});
  for (let i = 0; i < 4 && !settled; i++) await null;
  if (settled) return settled.value;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const macrotask = new Promise<"later">((r) => timer = setTimeout(() => r("later"), 0));
  try {
    return await Promise.race([read, macrotask]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads what a response body has ready without waiting (a string or bytes body is ready in full),
 * stopping one chunk after `limit` bytes.
 */
async function readReady(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  limit: number,
): Promise<{
  chunks: Uint8Array[];
  size: number;
  done: boolean;
  next?: Promise<ReadableStreamReadResult<Uint8Array>>;
}> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let over = false;
  for (;;) {
    if (size > limit) {
      if (over) return { chunks, size, done: false };
      over = true; // one more look, to learn whether the body ends here
    }
    const next = reader.read();
    const result = await settledSoon(next);
    if (result === "later") return { chunks, size, done: false, next };
    if (result.done) return { chunks, size, done: true };
    chunks.push(result.value);
    size += result.value.byteLength;
  }
}

function concat(chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  if (chunks.length === 1 && chunks[0].buffer instanceof ArrayBuffer) {
    return chunks[0] as Uint8Array<ArrayBuffer>;
  }
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * Bounds the time the client may take to receive a response body: counted from the moment the
 * handler returns, a body the socket has not taken within `ms` is cut off with a
 * {@linkcode WriteTimeoutError} and `Deno.serve` closes the connection. A body that is ready at
 * once and small (up to `readyBytes`) is sent as bytes: it fits the socket's buffers, so no
 * client can hold it up. Larger bodies go out in slices of at most 64 KiB (a ready one keeps its
 * `Content-Length`), so the socket's backpressure applies; streams (downloads, server-sent
 * events) keep streaming, each chunk passed on as it comes.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { localInfo, withWriteTimeout } from "@svc/shared/http";
 *
 * const handler = withWriteTimeout(() => new Response("hello"), { ms: 10_000 });
 * const res = await handler(new Request("http://x/"), localInfo());
 * assert.equal(await res.text(), "hello");
 * ```
 * @param options.ms The bound in milliseconds; 0 turns it off.
 * @param options.readyBytes Largest ready body sent as bytes. @default {65536}
 */
export function withWriteTimeout(
  handler: Handler,
  options: { ms: number; readyBytes?: number },
): Handler {
  const { ms, readyBytes = 64 * 1024 } = options;
  if (!(ms > 0)) return handler;
  return async function writeTimeout(req, info) {
    const res = await handler(req, info);
    if (res.body === null || res.status === 101) return res;
    const reader = res.body.getReader();
    const ready = await readReady(reader, readyBytes);
    const init = { status: res.status, statusText: res.statusText, headers: res.headers };
    if (ready.done && ready.size <= readyBytes) {
      return new Response(ready.chunks.length ? concat(ready.chunks) : null, init);
    }
    if (ready.done && !init.headers.has("content-length")) {
      init.headers = new Headers(init.headers);
      init.headers.set("content-length", String(ready.size));
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    let pending = ready.next;
    const queued = ready.chunks;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        timer = setTimeout(() => {
          controller.error(new WriteTimeoutError(ms));
          reader.cancel().catch(() => {});
        }, ms);
      },
      async pull(controller) {
        try {
          let chunk = queued.shift();
          if (!chunk) {
            const { done, value } = await (pending ?? reader.read());
            pending = undefined;
            if (done) {
              clearTimeout(timer);
              return controller.close();
            }
            chunk = value;
          }
          // One huge chunk would be taken by the runtime's write buffer whole, out of reach of
          // the bound; slices keep the socket's backpressure in play.
          if (chunk.byteLength > SLICE) {
            queued.unshift(chunk.subarray(SLICE));
            chunk = chunk.subarray(0, SLICE);
          }
          controller.enqueue(chunk);
        } catch (err) {
          clearTimeout(timer);
          controller.error(err);
        }
      },
      cancel(reason) {
        clearTimeout(timer);
        return reader.cancel(reason);
      },
    }, { highWaterMark: 0 });
    return new Response(body, init);
  };
}
