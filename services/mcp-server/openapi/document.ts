/**
 * Reading an OpenAPI 3.0/3.1 document (JSON or YAML, from a file or an http(s) URL) and resolving
 * its `$ref`s. Local references (`#/...`) are resolved lazily, on the parts an operation uses,
 * with the cycle guard in `schema_map.ts`; that keeps a 1 000-operation document fast to register.
 * A document with references to other files or URLs is first bundled by swagger-parser into one
 * with local references only.
 * @module
 */
import { loadAjv } from "./ajv_classes.ts";

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
  /** Time to fetch a document, ms. @default 30000 */
  timeoutMs?: number;
  /** Largest document accepted, bytes. @default 67108864 (64 MiB) */
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
  constructor(message: string) {
    super(message);
    this.name = "DocumentError";
  }
}

/** Where `source` points: an http(s) URL, or a file path (relative to the working directory). */
function sourceLocation(source: string): URL {
  if (/^https?:\/\//i.test(source)) return new URL(source);
  if (source.startsWith("file:")) return new URL(source);
  const cwd = Deno.cwd().replace(/\/?$/, "/");
  return new URL(source.startsWith("/") ? `file://${source}` : source, `file://${cwd}`);
}

/** Reads, parses and bundles one document. @throws {DocumentError} */
export async function loadDocument(source: string, options: LoadOptions = {}): Promise<
  LoadedDocument
> {
  const location = sourceLocation(source);
  const text = await readText(location, options);
  let parsed: unknown;
  const json = /^\s*[{[]/.test(text);
  // The YAML parser and swagger-parser load with the first document that needs them: a server
  // without --openapi documents starts without them.
  const yaml = json ? undefined : await import("@svc/shared/yaml");
  try {
    parsed = yaml ? yaml.parseYaml(text, { maxAliasCount: 100 }) : JSON.parse(text);
  } catch (err) {
    throw new DocumentError(`not JSON or YAML (${firstLine(err)})`);
  }
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
  const { default: SwaggerParser } = await import("@apidevtools/swagger-parser");
  try {
    // swagger-parser resolves relative references against the document's own path or URL
    const bundled = await SwaggerParser.bundle(
      location.protocol === "file:" ? decodeURIComponent(location.pathname) : location.href,
      // deno-lint-ignore no-explicit-any
      doc as any,
      {},
    );
    return { doc: bundled as unknown as Record<string, unknown>, location };
  } catch (err) {
    throw new DocumentError(`cannot resolve an external $ref (${firstLine(err)})`);
  }
}

async function readText(location: URL, options: LoadOptions): Promise<string> {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  if (location.protocol === "file:") {
    const path = decodeURIComponent(location.pathname);
    try {
      const info = await Deno.stat(path);
      if (info.size > maxBytes) throw new DocumentError(`larger than ${maxBytes} bytes`);
      return await Deno.readTextFile(path);
    } catch (err) {
      if (err instanceof DocumentError) throw err;
      throw new DocumentError(`cannot read ${path} (${(err as Error).name})`);
    }
  }
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const pause = options.pause ?? (() => new Promise<void>((r) => setTimeout(r, 250)));
  const until = now() + (options.waitMs ?? 0);
  let res: Response;
  for (;;) {
    let reason: string;
    try {
      res = await doFetch(location, {
        headers: { accept: "application/json, application/yaml, text/yaml, */*" },
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
      if (res.ok) break;
      await res.body?.cancel();
      reason = `HTTP ${res.status}`;
      if (![502, 503, 504].includes(res.status) || now() >= until) {
        throw new DocumentError(`cannot fetch ${location.href} (${reason})`);
      }
    } catch (err) {
      if (err instanceof DocumentError) throw err;
      reason = firstLine(err);
      if (now() >= until) throw new DocumentError(`cannot fetch ${location.href} (${reason})`);
    }
    await pause();
  }
  const bytes = await readBounded(res, maxBytes);
  if (bytes === undefined) throw new DocumentError(`larger than ${maxBytes} bytes`);
  return new TextDecoder().decode(bytes);
}

/** Reads a response body up to `max` bytes; undefined when it is longer (the rest is dropped). */
export async function readBounded(res: Response, max: number): Promise<Uint8Array | undefined> {
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
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
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
      for (const e of node) stack.push(e);
      continue;
    }
    const ref = (node as Record<string, unknown>).$ref;
    if (typeof ref === "string" && !ref.startsWith("#")) return true;
    for (const v of Object.values(node)) if (typeof v === "object") stack.push(v);
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
