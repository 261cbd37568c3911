import { HttpError } from "../problem.ts";

/**
 * Reads a request body up to `limit` bytes. A declared `Content-Length` over the limit is refused
 * before reading; a chunked body is cut off as soon as it passes the limit.
 *
 * @example Usage
 * ```ts
 * import { readBody } from "@svc/shared/http";
 * const bytes = await readBody(new Request("http://x", { method: "POST", body: "hi" }), { limit: 1024 });
 * ```
 * @throws {HttpError} 413 with code `body_too_large`; 408 `body_timeout` when `timeoutMs` passes
 * before the whole body has arrived (the server's read timeout); 400 `body_unreadable` when the
 * body stream fails (malformed chunked encoding, a reset mid-body).
 */
export async function readBody(
  req: Request,
  options: { limit: number; timeoutMs?: number },
): Promise<Uint8Array> {
  const { limit, timeoutMs } = options;
  const tooLarge = () =>
    new HttpError(413, "body_too_large", `Cannot read request body: larger than ${limit} bytes`);
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    await req.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (req.body === null) return new Uint8Array(0);
  const reader = req.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = timeoutMs === undefined ? undefined : new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new HttpError(408, "body_timeout", "Cannot read request body: it arrived too slowly"));
      reader.cancel().catch(() => {});
    }, timeoutMs);
  });
  try {
    return await readChunks(reader, limit, tooLarge, expired);
  } catch (err) {
    if (err instanceof HttpError) throw err;
    // The stream itself failed: a malformed chunked encoding, or the client reset mid-body.
    throw new HttpError(400, "body_unreadable", "Cannot read request body: the stream broke off", {
      cause: err,
    });
  } finally {
    clearTimeout(timer);
  }
}

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
  return await readChunks(
    stream.getReader(),
    limit,
    () => new HttpError(413, "body_too_large", `Cannot read body: larger than ${limit} bytes`),
  );
}

async function readChunks(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  limit: number,
  tooLarge: () => HttpError,
  expired?: Promise<never>,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } =
      await (expired ? Promise.race([reader.read(), expired]) : reader.read());
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
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
      title: "Bad Request",
      cause: err,
    });
  }
}
