/**
 * Reading an OpenAPI 3.0/3.1 document (JSON or YAML, from a file or an http(s) URL) and resolving
 * its `$ref`s. Local references (`#/...`) are resolved lazily, on the parts an operation uses,
 * with the cycle guard in `schema_map.ts`; that keeps a 1 000-operation document fast to register.
 * A document with references to other files or URLs is first bundled by swagger-parser into one
 * with local references only, every referenced document read by our own resolver through
 * {@linkcode readWithin}: a document from a URL may reference its own origin only, a document
 * file the files under its own directory; every read has the document's bounds (size, time, no
 * redirects). See docs/mcp-server.md#references.
 * @module
 */
import { Semaphore } from "@svc/shared/semaphore";
import { loadAjv } from "./ajv_classes.ts";
import {
  type Bound,
  directoryBound,
  originBound,
  ReadFailed,
  ReadRefused,
  readWithin,
} from "./read_within.ts";

/** A loaded document and where it came from. */
export interface LoadedDocument {
  /** The document, every `$ref` local. */
  doc: Record<string, unknown>;
  /** The URL it was fetched from (`file:` for a file), for relative server URLs. */
  location: URL;
}

/** Options of {@linkcode loadDocument}. */
export interface LoadOptions {
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /**
   * Time to fetch the document, ms; its references are read within the same time again,
   * together. @default 30000
   */
  timeoutMs?: number;
  /** Largest document, with everything it references, bytes. @default 67108864 (64 MiB) */
  maxBytes?: number;
  /**
   * How long to keep retrying a URL that cannot be reached yet (connection refused, 502, 503,
   * 504), ms: peers started at the same time (`deno task dev`) may not listen yet. @default 0
   */
  waitMs?: number;
  /** @default Date.now */
  now?: () => number;
  /** Pause between retries. @default a 250 ms timer */
  pause?: () => Promise<void>;
}

/** The document could not be read or parsed; `message` is the reason (one line). */
export class DocumentError extends Error {
  /** Stable code; `message` says why. */
  readonly code = "document_unreadable";
  constructor(message: string) {
    super(message);
    this.name = "DocumentError";
  }
}

/** Referenced documents read at once. */
const REFERENCE_READS = 4;
const ACCEPT = "application/json, application/yaml, text/yaml, */*";

/**
 * Where `source` points: an http(s) or file URL, or a file path (relative to the working
 * directory; every character of it literal: `%`, `?` and `#` are encoded, not interpreted).
 */
function sourceLocation(source: string): URL {
  if (/^(https?|file):/i.test(source)) return new URL(source);
  const path = source.startsWith("/") ? source : `${Deno.cwd().replace(/\/?$/, "/")}${source}`;
  return new URL(`file://${path.split("/").map(encodeURIComponent).join("/")}`);
}

/** Reads, parses and bundles one document. @throws {DocumentError} */
export async function loadDocument(source: string, options: LoadOptions = {}): Promise<
  LoadedDocument
> {
  const location = sourceLocation(source);
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const bytes = await readSource(location, options, maxBytes);
  const parsed = await parseText(new TextDecoder().decode(bytes));
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new DocumentError("not an OpenAPI document (want an object)");
  }
  const doc = parsed as Record<string, unknown>;
  const version = doc.openapi;
  if (typeof version !== "string" || !/^3\.[01]\.\d+/.test(version)) {
    throw new DocumentError(
      `not an OpenAPI 3.0 or 3.1 document (openapi: ${JSON.stringify(version ?? null)})`,
    );
  }
  if (typeof doc.paths !== "object" || doc.paths === null) {
    if (doc.paths !== undefined) throw new DocumentError("paths is not an object");
    doc.paths = {};
  }
  // Every loaded document gets response validators: ajv loads with the first one.
  await loadAjv();
  if (!hasExternalRef(doc)) return { doc, location };
  const bundled = await bundle(doc, location, options, maxBytes - bytes.length);
  return { doc: bundled, location };
}

/** JSON, or YAML through the kit (which reads no environment), aliases bounded. */
async function parseText(text: string): Promise<unknown> {
  const json = /^\s*[{[]/.test(text);
  // The YAML parser and swagger-parser load with the first document that needs them: a server
  // without --openapi documents starts without them.
  const yaml = json ? undefined : await import("@svc/shared/yaml");
  try {
    return yaml ? yaml.parseYaml(text, { maxAliasCount: 100 }) : JSON.parse(text);
  } catch (err) {
    throw new DocumentError(`not JSON or YAML (${firstLine(err)})`);
  }
}

/** `HTTP <status>`, saying so when it is a redirect. */
function statusReason(status: number): string {
  return status >= 300 && status <= 399
    ? `HTTP ${status}, redirects are not followed`
    : `HTTP ${status}`;
}

/** The document itself: the path or URL the operator named (retrying a URL for `waitMs`). */
async function readSource(location: URL, options: LoadOptions, maxBytes: number) {
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (location.protocol === "file:") {
    try {
      // any file the operator names; its references are bounded by its directory
      const answer = await readWithin(location, { directory: "/", realDirectory: "/" }, {
        maxBytes,
        timeoutMs,
      });
      if (answer.bytes === undefined) throw new DocumentError(`larger than ${maxBytes} bytes`);
      return answer.bytes;
    } catch (err) {
      if (err instanceof ReadFailed) throw new DocumentError(err.message);
      if (err instanceof ReadRefused) {
        throw new DocumentError(`cannot read ${location.href} (not a local file path)`);
      }
      throw err;
    }
  }
  const now = options.now ?? Date.now;
  const pause = options.pause ?? (() => new Promise<void>((resolve) => setTimeout(resolve, 250)));
  const until = now() + (options.waitMs ?? 0);
  for (;;) {
    let reason: string;
    try {
      const answer = await readWithin(location, originBound(location), {
        maxBytes,
        timeoutMs,
        fetch: options.fetch,
        request: { method: "GET", headers: new Headers({ accept: ACCEPT }) },
      });
      if (answer.status >= 200 && answer.status <= 299) {
        if (answer.bytes === undefined) throw new DocumentError(`larger than ${maxBytes} bytes`);
        return answer.bytes;
      }
      reason = statusReason(answer.status);
      if (![502, 503, 504].includes(answer.status) || now() >= until) {
        throw new DocumentError(`cannot fetch ${location.href} (${reason})`);
      }
    } catch (err) {
      if (!(err instanceof ReadFailed)) throw err;
      reason = err.message;
      if (now() >= until) throw new DocumentError(`cannot fetch ${location.href} (${reason})`);
    }
    await pause();
  }
}

/**
 * Bundles the external references of `doc` with swagger-parser, its own file and http resolvers
 * and parsers replaced by one resolver that reads through {@linkcode readWithin} within the
 * document's bound and one parser that is {@linkcode parseText}. `budget` is what is left of the
 * byte bound; all references are read within one `timeoutMs`, a few at a time.
 */
async function bundle(
  doc: Record<string, unknown>,
  location: URL,
  options: LoadOptions,
  budget: number,
): Promise<Record<string, unknown>> {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const now = options.now ?? Date.now;
  let bound: Bound;
  try {
    bound = location.protocol === "file:" ? await directoryBound(location) : originBound(location);
  } catch (err) {
    if (err instanceof ReadFailed) throw new DocumentError(err.message);
    throw err;
  }
  const rule = "directory" in bound
    ? `a document file may reference files under its own directory (${bound.directory}) only`
    : `a document from a URL may reference its own origin (${bound.origin}) only`;
  const deadline = now() + timeoutMs;
  const stop = new AbortController();
  const slots = new Semaphore(REFERENCE_READS);
  let remaining = budget;
  // The first failure is the one reported (swagger-parser wraps what a resolver throws).
  let failure: DocumentError | undefined;
  const fail = (message: string): never => {
    failure ??= new DocumentError(message);
    throw failure;
  };
  const read = async (file: { url: string }): Promise<string> => {
    const target = URL.canParse(file.url) ? new URL(file.url) : undefined;
    const at = `$ref ${(target?.href ?? file.url).slice(0, 500)}`;
    if (target === undefined) return fail(`${at} refused: ${rule}`);
    let answer;
    try {
      answer = await slots.run(() =>
        readWithin(target, bound, {
          maxBytes: Math.max(0, remaining),
          timeoutMs: Math.max(1, deadline - now()),
          signal: stop.signal,
          fetch: options.fetch,
          request: { method: "GET", headers: new Headers({ accept: ACCEPT }) },
        })
      );
    } catch (err) {
      if (err instanceof ReadRefused) return fail(`${at} refused: ${rule}`);
      if (!(err instanceof ReadFailed)) throw err;
      if (err.code === "timeout") return fail(`${at}: no answer within ${timeoutMs} ms`);
      return fail(
        `${at}: ${err.code === "unreachable" ? `unreachable (${err.message})` : err.message}`,
      );
    }
    if (answer.status < 200 || answer.status > 299) {
      return fail(`${at}: ${statusReason(answer.status)}`);
    }
    if (answer.bytes === undefined || (remaining -= answer.bytes.length) < 0) {
      return fail(`${at}: the document and its references are larger than ${maxBytes} bytes`);
    }
    return new TextDecoder().decode(answer.bytes);
  };
  const parse = async (file: { url: string; data: unknown }): Promise<unknown> => {
    try {
      return await parseText(String(file.data));
    } catch (err) {
      if (!(err instanceof DocumentError)) throw err;
      return fail(`$ref ${file.url.slice(0, 500)}: ${err.message}`);
    }
  };
  const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
  // swagger-parser rewrites relative server URLs of a document from a URL, losing the port
  const servers = structuredClone(doc.servers);
  try {
    // swagger-parser resolves relative references against the document's own URL
    const bundled = await SwaggerParser.bundle(location.href, doc as never, {
      resolve: { file: false, http: false, bounded: { order: 1, canRead: true, read } },
      parse: {
        json: false,
        yaml: false,
        text: false,
        binary: false,
        document: { order: 1, canParse: true, parse },
      },
    } as never) as unknown as Record<string, unknown>;
    if (servers === undefined) delete bundled.servers;
    else bundled.servers = servers;
    return bundled;
  } catch (err) {
    throw failure ?? new DocumentError(`cannot resolve an external $ref (${firstLine(err)})`);
  } finally {
    stop.abort();
  }
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split("\n")[0].slice(0, 200);
}

function hasExternalRef(root: unknown): boolean {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    const ref = (node as Record<string, unknown>).$ref;
    if (typeof ref === "string" && !ref.startsWith("#")) return true;
    for (const value of Object.values(node)) if (typeof value === "object") stack.push(value);
  }
  return false;
}

/**
 * Follows a local JSON pointer (`#/components/schemas/Todo`).
 * @returns undefined when it points nowhere.
 */
export function resolvePointer(doc: unknown, ref: string): unknown {
  if (ref === "#") return doc;
  if (!ref.startsWith("#/")) return undefined;
  let cur: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof cur !== "object" || cur === null || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/**
 * Follows `$ref` chains of a non-schema object (parameter, request body, response) to the
 * object itself. @throws {Error} on a dangling or cyclic chain.
 */
export function deref<T = Record<string, unknown>>(doc: unknown, node: unknown): T {
  let cur = node;
  for (let i = 0; i < 32; i++) {
    if (typeof cur !== "object" || cur === null) return cur as T;
    const ref = (cur as Record<string, unknown>).$ref;
    if (typeof ref !== "string") return cur as T;
    const next = resolvePointer(doc, ref);
    if (next === undefined) throw new Error(`$ref ${ref} points nowhere`);
    cur = next;
  }
  throw new Error("$ref chain is cyclic or too long");
}
