/**
 * The one function through which mcp-server reads anything an outsider influences: an OpenAPI
 * document, every document it references, every call of an operation. {@linkcode readWithin}
 * checks the target against its {@linkcode Bound} before any I/O (an http(s) origin and path
 * prefix, or a directory, symlinks resolved), never follows a redirect, and reads at most
 * `maxBytes` within `timeoutMs`. A refusal says which bound was left, never whether the target
 * exists (docs/mcp-server.md#threat-model).
 *
 * @example
 * ```ts ignore
 * const doc = new URL("https://api.example/openapi.json");
 * const answer = await readWithin(new URL("schemas.json", doc), originBound(doc), {
 *   maxBytes: 1 << 20,
 *   timeoutMs: 10_000,
 * });
 * ```
 * @module
 */

/**
 * Where a read may go: an http(s) origin (scheme, host and port exactly) and a path prefix, or
 * the files under a directory.
 */
export type Bound =
  | {
    /** `scheme://host[:port]`, as `URL.origin` writes it. */
    origin: string;
    /** The path must start with this (`/` for the whole origin; ends with `/`). */
    pathPrefix: string;
  }
  | {
    /** Absolute directory the target's path must be under, as URLs spell it; ends with `/`. */
    directory: string;
    /** The same directory with symlinks resolved; the target's real path must be under it. */
    realDirectory: string;
  };

/** Options of {@linkcode readWithin}. */
export interface ReadOptions {
  /** Largest body read, bytes; a longer one is not read past it. */
  maxBytes: number;
  /** Time to answer and deliver the body (http), ms. */
  timeoutMs: number;
  /** The caller's cancellation; its reason is thrown as is. */
  signal?: AbortSignal;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** http: what to send. @default a GET with no headers */
  request?: { method: string; headers: Headers; body?: string };
}

/** What came back; a file reads as a 200 with no headers. */
export interface Answer {
  status: number;
  statusText: string;
  headers: Headers;
  /** The body, or undefined when it is longer than `maxBytes` (the rest is not read). */
  bytes: Uint8Array | undefined;
}

/** The target is outside its bound; nothing was read or sent. */
export class ReadRefused extends Error {
  /** Stable code: the target is outside the bound. */
  readonly code = "read_refused";
  constructor(message: string) {
    super(message);
    this.name = "ReadRefused";
  }
}

/** The read did not complete: no answer in time, unreachable, or an unreadable file. */
export class ReadFailed extends Error {
  /** Stable code; `timeout`: no answer (or body) within `timeoutMs`. */
  readonly code: "timeout" | "unreachable" | "unreadable";
  constructor(code: ReadFailed["code"], message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ReadFailed";
    this.code = code;
  }
}

/** The bound of a document fetched from `url`: its own origin, any path. */
export function originBound(url: URL, pathPrefix = "/"): Bound {
  return {
    origin: url.origin,
    pathPrefix: pathPrefix.endsWith("/") ? pathPrefix : `${pathPrefix}/`,
  };
}

/**
 * The bound of a document file at `file` (a `file:` URL): the files under its directory.
 * @throws {ReadFailed} when the directory cannot be resolved.
 */
export async function directoryBound(file: URL): Promise<Bound> {
  const directory = decodeURIComponent(new URL(".", file).pathname);
  let real: string;
  try {
    real = await Deno.realPath(directory);
  } catch (err) {
    throw new ReadFailed("unreadable", `cannot read ${directory} (${(err as Error).name})`);
  }
  return { directory, realDirectory: real.endsWith("/") ? real : `${real}/` };
}

/** Why `target` is outside `bound` (checked on the URL alone, before any I/O), or undefined. */
export function boundProblem(target: URL, bound: Bound): string | undefined {
  if ("origin" in bound) {
    if (!/^https?:$/.test(target.protocol) || target.origin !== bound.origin) {
      return `${target.href} is not on ${bound.origin}`;
    }
    if (!target.pathname.startsWith(bound.pathPrefix)) {
      return `${target.href} is not under ${bound.origin}${bound.pathPrefix}`;
    }
    return undefined;
  }
  const path = filePath(target);
  if (path === undefined || !path.startsWith(bound.directory)) {
    return `${target.href} is not under ${bound.directory}`;
  }
  return undefined;
}

/**
 * The path a `file:` URL names, or undefined when it is not a plain local path: another host,
 * an encoded `/`, `\` or NUL, or a `.`/`..` segment left after decoding. (The URL parser has
 * already removed `.`, `..` and their `%2e` spellings.)
 */
function filePath(target: URL): string | undefined {
  if (target.protocol !== "file:" || target.host !== "") return undefined;
  if (/%(2f|5c|00)/i.test(target.pathname)) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(target.pathname);
  } catch {
    return undefined;
  }
  if (path.split("/").some((segment) => segment === "." || segment === "..")) return undefined;
  return path;
}

/**
 * Reads `target` if it is within `bound`: a file under the directory (its real path too), or an
 * http(s) request on the origin under the path prefix. Redirects are returned, never followed.
 * @throws {ReadRefused} outside the bound (nothing read or sent)
 * @throws {ReadFailed} no answer within `timeoutMs`, unreachable, unreadable file
 */
export async function readWithin(
  target: URL,
  bound: Bound,
  options: ReadOptions,
): Promise<Answer> {
  const problem = boundProblem(target, bound);
  if (problem !== undefined) throw new ReadRefused(problem);
  if ("directory" in bound) return await readFile(filePath(target)!, bound, options.maxBytes);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const request = options.request ?? { method: "GET", headers: new Headers() };
  const failed = (err: unknown): never => {
    if (options.signal?.aborted) throw options.signal.reason ?? err;
    if (timeout.aborted) {
      throw new ReadFailed("timeout", `no answer within ${options.timeoutMs} ms`, { cause: err });
    }
    throw new ReadFailed("unreachable", firstLine(err), { cause: err });
  };
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(target, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: "manual",
      signal,
    });
  } catch (err) {
    return failed(err);
  }
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readBounded(res, options.maxBytes);
  } catch (err) {
    if (options.signal?.aborted || timeout.aborted) return failed(err);
    throw err;
  }
  return { status: res.status, statusText: res.statusText, headers: res.headers, bytes };
}

/**
 * Reads a file whose path is lexically under the directory, once its real path (or, when it does
 * not exist, its nearest existing ancestor's) is under the real directory: a missing file behind
 * a symlink that leads out is refused like an existing one.
 */
async function readFile(
  path: string,
  bound: { directory: string; realDirectory: string },
  maxBytes: number,
): Promise<Answer> {
  let missing: Error | undefined;
  for (let at = path;; at = at.slice(0, at.lastIndexOf("/")) || "/") {
    let real: string;
    try {
      real = await Deno.realPath(at);
    } catch (err) {
      missing ??= err as Error;
      if (at === "/" || `${at}/`.length <= bound.directory.length) {
        throw new ReadFailed("unreadable", `cannot read ${path} (${missing.name})`);
      }
      continue;
    }
    if (!`${real}/`.startsWith(bound.realDirectory)) {
      throw new ReadRefused(`${path} leads outside ${bound.directory}`);
    }
    break;
  }
  const unreadable = (why: string) => new ReadFailed("unreadable", `cannot read ${path} (${why})`);
  if (missing) throw unreadable(missing.name);
  let file: Deno.FsFile;
  try {
    // stat first: opening a FIFO would wait for a writer
    if (!(await Deno.stat(path)).isFile) throw unreadable("not a file");
    file = await Deno.open(path, { read: true });
  } catch (err) {
    throw err instanceof ReadFailed ? err : unreadable((err as Error).name);
  }
  const bytes = await readBounded(new Response(file.readable), maxBytes);
  return { status: 200, statusText: "OK", headers: new Headers(), bytes };
}

/** Reads a response body up to `max` bytes; undefined when it is longer (the rest is dropped). */
async function readBounded(res: Response, max: number): Promise<Uint8Array | undefined> {
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split("\n")[0].slice(0, 200);
}
