import { createContextKey, getContext, setContext } from "./context.ts";
import { HttpError } from "./problem.ts";
import { CoarseDeadline, coarseTimeout } from "./coarse_timer.ts";

/** Where {@linkcode withBodyBytes} puts the bytes `readBody` hands back. */
const READ_BODY = createContextKey<Uint8Array>("readBody");

/**
 * A request like `req` (method, URL, headers, abort signal) whose body was already read into
 * `bytes`: {@linkcode readBody} on it returns those very bytes, without copying them again, so a
 * middleware that reads a body (to record it, say) can hand the same bytes on to the handler.
 * Its `body` stream still gives them (a copy, made only if that stream is read). The method must
 * be one `new Request` takes (`TRACE`, `TRACK`, `CONNECT` and lowercase names other than the
 * standard ones are not).
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { readBody, withBodyBytes } from "@svc/shared/http";
 *
 * const req = new Request("http://x/", { method: "POST", body: "hi" });
 * const bytes = await readBody(req, { limit: 1024 });
 * const forwarded = withBodyBytes(req, bytes);
 * assert.equal(await readBody(forwarded, { limit: 1024 }), bytes);
 * ```
 * @throws {TypeError} when `new Request` refuses the method.
 */
export function withBodyBytes(req: Request, bytes: Uint8Array): Request {
  const bodiless = req.method === "GET" || req.method === "HEAD" || bytes.byteLength === 0;
  const forwarded = new Request(req.url, {
    method: req.method,
    headers: req.headers,
    signal: req.signal,
    body: bodiless ? null : new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(bytes.slice());
        controller.close();
      },
    }),
  });
  setContext(forwarded, READ_BODY, bytes);
  return forwarded;
}

/**
 * Reads a request body up to `limit` bytes, into one buffer of exactly its size (a declared
 * `Content-Length` is allocated up front; a chunked body is joined once at the end). A declared
 * `Content-Length` over the limit is refused before reading; a chunked body is cut off as soon as
 * it passes the limit. A request made by {@linkcode withBodyBytes} gives back its bytes as they
 * are.
 *
 * @example Usage
 * ```ts
 * import { readBody } from "@svc/shared/http";
 * const bytes = await readBody(new Request("http://x", { method: "POST", body: "hi" }), { limit: 1024 });
 * ```
 * @param options.releaseChunks Detach each chunk's buffer once it is copied, so its memory goes
 * back now rather than at the next garbage collection (which, for memory outside the V8 heap,
 * may come only after tens of MiB). Only for bodies whose chunks nobody else keeps: a
 * `Deno.serve` request's, not one that was cloned or tee'd (both branches share the chunks) or
 * whose producer enqueues a buffer it reuses. @default false
 * @param options.pageBacked Give a body of {@linkcode PAGE_BACKED_MIN} bytes or more a resizable
 * `ArrayBuffer`, which V8 maps from the OS page by page instead of taking from malloc: once freed
 * (collected, or detached), its memory leaves the process, where glibc would keep a freed
 * 1 MiB malloc block for reuse. Some APIs refuse views of resizable buffers (WebCrypto,
 * per WebIDL), so only for bodies kept a while and read as bytes or text. @default false
 * @throws {HttpError} 413 with code `body_too_large`; 408 `body_timeout` when `timeoutMs` passes
 * before the whole body has arrived (the server's read timeout; with `Connection: close`, so the
 * server drops the connection instead of waiting for the rest); 400 `body_unreadable` when the
 * body stream fails (malformed chunked encoding, a reset mid-body).
 */
export function readBody(
  req: Request,
  options: { limit: number; timeoutMs?: number; releaseChunks?: boolean; pageBacked?: boolean },
): Promise<Uint8Array> {
  // Not async: a body of declared length (every small served body) is read with one promise,
  // no frame of this function's around it; what is thrown here comes back as a rejection.
  try {
    const { limit, releaseChunks, pageBacked } = options;
    const read = getContext(req, READ_BODY);
    if (read) {
      if (read.byteLength > limit) throw tooLarge(limit);
      return Promise.resolve(read);
    }
    const size = declaredSize(req, limit);
    if (size === REFUSED) return refuseDeclared(req, limit);
    // Before `req.body`: on a `Deno.serve` request that getter builds a ReadableStream, after
    // which `arrayBuffer()` collects it chunk by chunk instead of taking the body whole (≈ 20 µs
    // and a dozen objects per request; an absent body reads as empty either way).
    if (size !== undefined && size <= DECLARED_WHOLE_MAX && !releaseChunks && !pageBacked) {
      const read = new DeclaredRead(limit, false);
      return declaredBody(req, read, options.timeoutMs) as Promise<Uint8Array>;
    }
    return streamedBody(req, options, size);
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * Reads a request body as text, decoded from UTF-8 as `TextDecoder` decodes it (a leading BOM
 * dropped, malformed sequences as U+FFFD), with {@linkcode readBody}'s limit, deadline and errors.
 * A body of declared length comes as the text `Deno.serve` decodes, with no byte array made for
 * it; one longer than it declares (only a hand-made `Request` can be) is refused when its text
 * needs more than `limit` bytes even if every U+FFFD in it stood for a single malformed byte.
 *
 * @example Usage
 * ```ts
 * import assert from "node:assert/strict";
 * import { readText } from "@svc/shared/http";
 * const req = new Request("http://x", { method: "POST", body: "héllo" });
 * assert.equal(await readText(req, { limit: 1024 }), "héllo");
 * ```
 * @throws {HttpError} 413 `body_too_large`, 408 `body_timeout`, 400 `body_unreadable`, as
 * {@linkcode readBody} throws them.
 */
export function readText(
  req: Request,
  options: { limit: number; timeoutMs?: number },
): Promise<string> {
  try {
    const { limit, timeoutMs } = options;
    const size = getContext(req, READ_BODY) === undefined ? declaredSize(req, limit) : undefined;
    if (size === REFUSED) return refuseDeclared(req, limit);
    if (size !== undefined && size <= DECLARED_WHOLE_MAX) {
      return declaredBody(req, new DeclaredRead(limit, true), timeoutMs) as Promise<string>;
    }
    return readBody(req, options).then(decodeUtf8);
  } catch (err) {
    return Promise.reject(err);
  }
}

// Stateless without `stream: true`: one decoder serves every body.
const UTF8 = new TextDecoder();
function decodeUtf8(bytes: Uint8Array): string {
  return UTF8.decode(bytes);
}

/** {@linkcode declaredSize} of a declared length over the limit. */
const REFUSED = -1;

/**
 * The declared `Content-Length`, when it is a plain number; {@linkcode REFUSED} when it says more
 * than `limit` bytes (the body is then refused unread).
 */
function declaredSize(req: Request, limit: number): number | undefined {
  const declared = req.headers.get("content-length");
  if (declared === null) return undefined;
  if (Number(declared) > limit) return REFUSED;
  return /^\d+$/.test(declared) ? Number(declared) : undefined;
}

function tooLarge(limit: number): HttpError {
  return new HttpError(
    413,
    "body_too_large",
    `Cannot read request body: larger than ${limit} bytes`,
  );
}

/** A declared length over the limit: the body is dropped unread, then the 413. */
async function refuseDeclared(req: Request, limit: number): Promise<never> {
  await req.body?.cancel().catch(() => {});
  throw tooLarge(limit);
}

/** A body without a usable length (chunked), a large one, or one read chunk by chunk. */
async function streamedBody(
  req: Request,
  options: { limit: number; timeoutMs?: number; releaseChunks?: boolean; pageBacked?: boolean },
  size: number | undefined,
): Promise<Uint8Array> {
  const { limit, timeoutMs, releaseChunks, pageBacked } = options;
  if (req.body === null) return new Uint8Array(0);
  const reader = req.body.getReader();
  // On time out the stream is cancelled, which ends the pending read: no race per read.
  let timedOut = false;
  const cancelTimer = timeoutMs === undefined ? undefined : coarseTimeout(timeoutMs, () => {
    timedOut = true;
    reader.cancel().catch(() => {});
  });
  try {
    const bytes = await readChunks(reader, {
      limit,
      size,
      tooLarge: () => tooLarge(limit),
      releaseChunks,
      pageBacked,
    });
    if (timedOut) throw bodyTimeout();
    return bytes;
  } catch (err) {
    if (timedOut) throw bodyTimeout();
    if (err instanceof HttpError) throw err;
    throw bodyUnreadable(err);
  } finally {
    cancelTimer?.();
  }
}

/** RFC 9110 §15.5.9: a 408 means the server closes the connection, and says so. */
function bodyTimeout(): HttpError {
  return new HttpError(408, "body_timeout", "Cannot read request body: it arrived too slowly", {
    headers: { connection: "close" },
  });
}

/** The stream itself failed: a malformed chunked encoding, or the client reset mid-body. */
function bodyUnreadable(cause: unknown): HttpError {
  return new HttpError(400, "body_unreadable", "Cannot read request body: the stream broke off", {
    cause,
  });
}

/**
 * Largest declared body read whole by `arrayBuffer()`. That read cannot be cancelled, so a client
 * that stalls past the timeout keeps feeding it (up to the declared length) until it gives up;
 * larger bodies take the chunk loop, whose stream is cancelled at the timeout.
 */
const DECLARED_WHOLE_MAX = 64 * 1024;

/**
 * A body of declared length (at most `limit` and {@linkcode DECLARED_WHOLE_MAX}, checked by the
 * caller), as bytes or text: `bytes()` or `text()`, which `Deno.serve` answers without a stream
 * when the body came with the head (every small body), and which never read past the declared
 * length. A read still pending at `timeoutMs` is left to end with its connection, which the 408's
 * `Connection: close` ends; what it holds is bounded by the declared length. A hand-made `Request`
 * whose body is longer than it declares is measured afterwards.
 */
function declaredBody(
  req: Request,
  read: DeclaredRead,
  timeoutMs: number | undefined,
): Promise<Uint8Array | string> {
  opening = read;
  const promise = new Promise<Uint8Array | string>(open);
  opening = undefined;
  if (timeoutMs !== undefined) read.arm(timeoutMs);
  (read.text ? req.text() : req.bytes()).then(
    (value: Uint8Array | string) => read.read(value),
    (err: unknown) => read.failed(err),
  );
  return promise;
}

/**
 * One declared-length read: its own deadline on the coarse timer and the settling functions of
 * the promise `readBody` (or `readText`) returns, in one record (this runs for every small body:
 * no closure for the executor or the timer, only the two callbacks on the body's promise).
 */
class DeclaredRead extends CoarseDeadline {
  resolve: (value: Uint8Array | string) => void = noop;
  reject: (err: unknown) => void = noop;
  readonly limit: number;
  /** Read as text, not bytes. */
  readonly text: boolean;

  constructor(limit: number, text: boolean) {
    super();
    this.limit = limit;
    this.text = text;
  }

  /** The deadline passed first: 408 (a later answer of the read settles nothing). */
  fire(): void {
    this.reject(bodyTimeout());
  }

  read(value: Uint8Array | string): void {
    this.cancel();
    if (typeof value === "string") {
      if (textOverLimit(value, this.limit)) this.reject(tooLarge(this.limit));
      else this.resolve(value);
    } else if (value.byteLength > this.limit) this.reject(tooLarge(this.limit));
    // Whole buffers only, as the chunked read gives them (a view into a larger buffer is copied).
    else if (value.byteOffset === 0 && value.byteLength === value.buffer.byteLength) {
      this.resolve(value);
    } else this.resolve(value.slice());
  }

  failed(err: unknown): void {
    this.cancel();
    this.reject(bodyUnreadable(err));
  }
}

/**
 * Whether decoded text certainly came from more than `limit` bytes: its UTF-8 length, less two
 * bytes for each U+FFFD (which may stand for one malformed byte), is over it. A short text (at
 * most three bytes a UTF-16 unit) is not counted.
 */
function textOverLimit(text: string, limit: number): boolean {
  if (text.length * 3 <= limit) return false;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c === 0xfffd) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes > limit;
}

// The executor of every declared read's promise: it hands the settling functions to the record
// being made (`declaredBody` sets it just before), so no closure is made for it.
let opening: DeclaredRead | undefined;
function open(
  resolve: (value: Uint8Array | string) => void,
  reject: (err: unknown) => void,
): void {
  opening!.resolve = resolve;
  opening!.reject = reject;
}
function noop(): void {}

/**
 * Reads a byte stream (a response body, say) to its end, refusing more than `limit` bytes: the
 * same bounded reading {@linkcode readBody} does for requests.
 *
 * @example Usage
 * ```ts
 * import { readStream } from "@svc/shared/http";
 * const bytes = await readStream(new Response("hello").body!, { limit: 1024 });
 * if (bytes.length !== 5) throw new Error("not read");
 * ```
 * @throws {HttpError} 413 `body_too_large` past the limit (the stream is cancelled).
 */
export async function readStream(
  stream: ReadableStream<Uint8Array>,
  options: { limit: number },
): Promise<Uint8Array> {
  const { limit } = options;
  return await readChunks(stream.getReader(), {
    limit,
    tooLarge: () =>
      new HttpError(413, "body_too_large", `Cannot read body: larger than ${limit} bytes`),
  });
}

/**
 * Reads to the end into one buffer of exactly the body's size: with `size` (a declared length)
 * the chunks are copied into it as they come, so no chunk outlives its read; otherwise they are
 * kept and joined once. Either way the result owns its whole `ArrayBuffer`. With `releaseChunks`,
 * each chunk's buffer is detached once copied (after the last chunk that views it).
 */
async function readChunks(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  options: {
    limit: number;
    tooLarge: () => HttpError;
    size?: number;
    releaseChunks?: boolean;
    pageBacked?: boolean;
  },
): Promise<Uint8Array> {
  const { limit, tooLarge } = options;
  const release = options.releaseChunks ? detach : () => {};
  const allocate = (n: number) =>
    options.pageBacked && n >= PAGE_BACKED_MIN
      ? new Uint8Array(new ArrayBuffer(n, { maxByteLength: n }))
      : new Uint8Array(n);
  let buffer = options.size === undefined ? undefined : allocate(options.size);
  let copied: ArrayBufferLike | undefined; // the buffer of the chunk copied last
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    if (buffer && size + value.byteLength > buffer.byteLength) {
      // More than declared (only a hand-made Request can do this): collect from here on.
      chunks.push(buffer.subarray(0, size));
      buffer = undefined;
    }
    if (copied && copied !== value.buffer) release(copied);
    copied = undefined;
    if (buffer) {
      buffer.set(value, size);
      copied = value.buffer;
    } else chunks.push(value);
    size += value.byteLength;
  }
  if (copied) release(copied);
  if (buffer && size === buffer.byteLength) return buffer;
  if (buffer) chunks.push(buffer.subarray(0, size)); // fewer than declared
  const [only] = chunks;
  const alone = chunks.length === 1 && only.byteOffset === 0 &&
    only.byteLength === only.buffer.byteLength;
  if (alone && !(options.pageBacked && size >= PAGE_BACKED_MIN)) return only;
  const out = allocate(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  for (const c of chunks) release(c.buffer);
  return out;
}

/** Smallest body {@linkcode readBody}'s `pageBacked` maps from the OS (smaller ones use malloc). */
export const PAGE_BACKED_MIN = 64 * 1024;

/** Gives a buffer's memory back now (a detached buffer reads as empty); shared ones are left. */
function detach(buffer: ArrayBufferLike): void {
  if (buffer instanceof ArrayBuffer && !buffer.detached) buffer.transfer(0);
}

/**
 * Reads and parses a JSON body up to `limit` bytes.
 *
 * @example Usage
 * ```ts
 * import { readJson } from "@svc/shared/http";
 * const value = await readJson(new Request("http://x", { method: "POST", body: "{}" }), { limit: 1024 });
 * ```
 * @throws {HttpError} 413 `body_too_large`, or 400 `malformed_json` when the body is not JSON.
 */
export async function readJson(
  req: Request,
  options: { limit: number; timeoutMs?: number },
): Promise<unknown> {
  const bytes = await readBody(req, options);
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (err) {
    throw new HttpError(400, "malformed_json", "Cannot parse request body: malformed JSON", {
      cause: err,
    });
  }
}
