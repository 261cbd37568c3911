/**
 * GET and HEAD of one object (the "any other path" row of docs/image-proxy.md#routes): validate the
 * raw target, evaluate the conditional headers against the object's metadata, then read exactly
 * that version, ranged if asked, and relay it with stall bounds under the stream limit.
 *
 * With a Range or a conditional header: metadata first, body second (HEAD, then a GET pinned with
 * If-Match: the pattern of Go's `ServeContent` over a store). S3 has no
 * If-Range and S3-compatible stores skip If-Match, so preconditions are evaluated here. The body
 * read carries `If-Match: <etag>` and its answer's ETag and length are checked, so a replacement
 * between the two reads is never spliced: it is retried once from the metadata read, then
 * answered 503 `unavailable`. A plain GET (how Incus downloads) is a single storage GET.
 *
 * @module
 */
import { proxyError } from "../errors.ts";
import { StoreError } from "../store/errors.ts";
import { storeHttpError } from "../store/errors.ts";
import type { ObjectMeta, ObjectStore } from "../store/store.ts";
import { relay, type RelayOutcome } from "../stream/relay.ts";
import type { StreamLimiter, StreamSlot } from "../stream/limiter.ts";
import type { CacheDefaults } from "./cache_policy.ts";
import { acceptsGzip, compressible, gzipBody, gzipTag } from "./encoding.ts";
import { notModifiedHeaders, objectHeaders } from "./headers.ts";
import {
  type Conditions,
  evaluatePreconditions,
  rangeAllowed,
  readConditions,
  type Validators,
} from "./preconditions.ts";
import { contentRange, parseRange } from "./range.ts";
import { objectKeyOf, rawPathOf } from "./target.ts";

/** Hooks for the stream metrics. */
export interface StreamEvents {
  /** A download was refused by the stream limit. */
  rejected?(): void;
  /** A download ended; `outcome` is not `complete` when it ended early. */
  ended?(result: { outcome: RelayOutcome; bytes: number }): void;
}

/** Options of {@linkcode serveObject}. */
export interface ServeObjectOptions {
  store: ObjectStore;
  /** Normalised key prefix (empty or ending in `/`). */
  prefix: string;
  limiter: StreamLimiter;
  upstreamIdleMs: number;
  writeIdleMs: number;
  events?: StreamEvents;
  /**
   * The response goes to `Deno.serve` (not to JavaScript that keeps chunks): each relayed chunk's
   * memory is freed once written (`freeTakenChunks` of {@linkcode relay}). @default {false}
   */
  servedNatively?: boolean;
  /**
   * Default `Cache-Control` by path class, for objects stored without caching fields.
   * @default none: the stored object's headers only
   */
  cacheDefaults?: CacheDefaults;
  /**
   * Gzip JSON objects of the catalog class (`cacheDefaults`) for clients that accept it and send
   * no Range. @default {false}
   */
  gzipCatalog?: boolean;
}

/** The representation a request gets of an object, decided from its metadata. */
interface Variant {
  /** The answer depends on `Accept-Encoding` (a compressible catalog object). */
  vary(meta: ObjectMeta): boolean;
  /** The answer is the gzip variant. */
  gzip(meta: ObjectMeta): boolean;
}

const IDENTITY: Variant = { vary: () => false, gzip: () => false };

function variantOf(req: Request, path: string, options: ServeObjectOptions): Variant {
  if (!options.gzipCatalog || options.cacheDefaults?.classOf(path) !== "catalog") return IDENTITY;
  const wanted = !req.headers.has("range") && acceptsGzip(req.headers.get("accept-encoding"));
  return { vary: compressible, gzip: (meta) => wanted && compressible(meta) };
}

/** The metadata as the variant presents it: the gzip variant has its own (weak) ETag. */
function presented(meta: ObjectMeta, variant: Variant): ObjectMeta {
  return variant.gzip(meta) ? { ...meta, etag: gzipTag(meta.etag) } : meta;
}

/** The variant's headers over the stored object's: `Vary`, and for gzip the encoding. */
function shaped(headers: Headers, meta: ObjectMeta, variant: Variant, full: boolean): Headers {
  if (variant.vary(meta)) headers.set("vary", "Accept-Encoding");
  if (full && variant.gzip(meta)) {
    headers.delete("content-length"); // streamed: unknown until the end
    headers.delete("accept-ranges"); // a Range request gets the identity variant
    headers.set("content-encoding", "gzip");
  }
  return headers;
}

/** What the request log needs beyond the response. */
export interface ObjectAnswer {
  response: Response;
  /** Resolves when the body is over: bytes sent and, when it ended early, why. */
  done: Promise<{ bytes: number; failure?: RelayOutcome }>;
}

function validatorsOf(meta: ObjectMeta): Validators {
  // (the etag of `presented(meta)` for the variant being answered)
  const ms = meta.lastModified?.getTime();
  return { etag: meta.etag, lastModified: ms === undefined ? undefined : Math.floor(ms / 1000) };
}

const finished = (bytes = 0) => Promise.resolve({ bytes });

/**
 * Answers a GET or HEAD of an object path. Errors are thrown as `HttpError`s with the contract's
 * codes; the caller renders them.
 *
 * @example Usage
 * ```ts ignore
 * import { serveObject } from "./serve_object.ts";
 * const { response, done } = await serveObject(req, options);
 * ```
 * @throws {HttpError} 400, 404, 412, 416, 500, 502, 503, 504 (docs/image-proxy.md#status-codes).
 */
export async function serveObject(
  req: Request,
  options: ServeObjectOptions,
): Promise<ObjectAnswer> {
  const key = objectKeyOf(rawPathOf(req.url), options.prefix);
  const path = key.slice(options.prefix.length);
  const defaults = options.cacheDefaults;
  if (defaults) {
    // Every metadata read goes through the defaults, so 200, 206, HEAD and 304 agree.
    const store = options.store;
    options = {
      ...options,
      store: {
        head: async (k, o) => defaults.apply(await store.head(k, o), path),
        get: async (k, o) => {
          const read = await store.get(k, o);
          return { meta: defaults.apply(read.meta, path), body: read.body };
        },
      },
    };
  }
  const conditions = readConditions(req.headers);
  const variant = variantOf(req, path, options);
  if (req.method === "HEAD") return await headObject(key, conditions, variant, options);
  const slot = options.limiter.tryAcquire();
  if (slot === null) {
    options.events?.rejected?.();
    throw proxyError("stream_limit", "Cannot start download: too many downloads in progress", {
      headers: { "Retry-After": "1" },
    });
  }
  try {
    return await getObject(req, key, conditions, variant, slot, options);
  } catch (err) {
    slot.release();
    throw err;
  }
}

async function metaOf(key: string, store: ObjectStore): Promise<ObjectMeta> {
  try {
    return await store.head(key);
  } catch (err) {
    throw err instanceof StoreError ? storeHttpError(err.code, err) : err;
  }
}

function decide(
  conditions: Conditions,
  stored: ObjectMeta,
  variant: Variant,
): ObjectAnswer | undefined {
  const meta = presented(stored, variant);
  const outcome = evaluatePreconditions(conditions, validatorsOf(meta));
  if (outcome === "precondition_failed") {
    throw proxyError("precondition_failed", "Cannot read object: a precondition failed");
  }
  if (outcome === "not_modified") {
    return {
      response: new Response(null, {
        status: 304,
        headers: shaped(notModifiedHeaders(meta), stored, variant, false),
      }),
      done: finished(),
    };
  }
  return undefined;
}

async function headObject(
  key: string,
  conditions: Conditions,
  variant: Variant,
  options: ServeObjectOptions,
): Promise<ObjectAnswer> {
  const meta = await metaOf(key, options.store);
  const early = decide(conditions, meta, variant);
  if (early) return early;
  const headers = shaped(
    objectHeaders(presented(meta, variant), { length: meta.size }),
    meta,
    variant,
    true,
  );
  // A null body would have Deno.serve announce `Content-Length: 0`; the gzip variant's length is
  // unknown, and an empty stream body leaves it out (HEAD sends no body either way).
  const body = variant.gzip(meta) ? new ReadableStream({ start: (c) => c.close() }) : null;
  return { response: new Response(body, { status: 200, headers }), done: finished() };
}

async function getObject(
  req: Request,
  key: string,
  conditions: Conditions,
  variant: Variant,
  slot: StreamSlot,
  options: ServeObjectOptions,
): Promise<ObjectAnswer> {
  const { store } = options;
  if (plainGet(req, conditions)) return await getWhole(key, variant, slot, options);
  for (let attempt = 1;; attempt++) {
    const meta = await metaOf(key, store);
    const early = decide(conditions, meta, variant);
    if (early) {
      slot.release();
      return early;
    }
    const wanted = rangeAllowed(conditions, validatorsOf(meta))
      ? parseRange(req.headers.get("range"), meta.size)
      : { kind: "none" as const };
    if (wanted.kind === "unsatisfiable") {
      throw proxyError("range_not_satisfiable", "Cannot read object: range not satisfiable", {
        headers: { "Content-Range": contentRange(meta.size) },
      });
    }
    const range = wanted.kind === "range" ? { start: wanted.start, end: wanted.end } : undefined;
    const length = range ? range.end - range.start + 1 : meta.size;
    const upstream = new AbortController();
    try {
      const read = await store.get(key, { range, ifMatch: meta.etag, signal: upstream.signal });
      if (read.meta.size !== length) {
        await read.body.cancel().catch(() => {});
        throw new StoreError("changed", "Cannot read object: its length changed");
      }
      return answer(read.meta, read.body, {
        range,
        length,
        total: meta.size,
        variant,
        upstream,
        slot,
        options,
      });
    } catch (err) {
      if (err instanceof StoreError && err.code === "changed" && attempt < 2) continue;
      if (err instanceof StoreError) throw storeHttpError(err.code, err);
      throw err;
    }
  }
}

/** No Range and no conditional header: nothing to decide before the body (the Incus case). */
function plainGet(req: Request, c: Conditions): boolean {
  return !req.headers.has("range") && c.ifMatch === undefined && c.ifNoneMatch === undefined &&
    c.ifModifiedSince === undefined && c.ifUnmodifiedSince === undefined;
}

/** One GET, no metadata read first: one storage answer is one version, nothing to splice. */
async function getWhole(
  key: string,
  variant: Variant,
  slot: StreamSlot,
  options: ServeObjectOptions,
): Promise<ObjectAnswer> {
  const upstream = new AbortController();
  try {
    const read = await options.store.get(key, { signal: upstream.signal });
    return answer(read.meta, read.body, {
      length: read.meta.size,
      total: read.meta.size,
      variant,
      upstream,
      slot,
      options,
    });
  } catch (err) {
    throw err instanceof StoreError ? storeHttpError(err.code, err) : err;
  }
}

function answer(
  meta: ObjectMeta,
  upstreamBody: ReadableStream<Uint8Array>,
  ctx: {
    range?: { start: number; end: number };
    length: number;
    total: number;
    variant: Variant;
    upstream: AbortController;
    slot: StreamSlot;
    options: ServeObjectOptions;
  },
): ObjectAnswer {
  const { range, length, total, variant, upstream, slot, options } = ctx;
  if (!range && variant.gzip(meta)) return gzipAnswer(meta, upstreamBody, ctx);
  let resolveDone!: (r: { bytes: number; failure?: RelayOutcome }) => void;
  const done = new Promise<{ bytes: number; failure?: RelayOutcome }>((r) => resolveDone = r);
  const body = relay(upstreamBody, {
    expectedBytes: length,
    upstreamIdleMs: options.upstreamIdleMs,
    writeIdleMs: options.writeIdleMs,
    abortUpstream: () => upstream.abort(),
    freeTakenChunks: options.servedNatively,
    // Runs when the body is over, possibly from the relay's watchdog timer: the slot and the
    // request record must follow even if the telemetry hook throws (then the guard reports it).
    onEnd: ({ outcome, bytes }) => {
      slot.release();
      resolveDone(outcome === "complete" ? { bytes } : { bytes, failure: outcome });
      options.events?.ended?.({ outcome, bytes });
    },
  });
  const headers = shaped(
    objectHeaders(meta, { length, contentRange: range && contentRange(total, range) }),
    meta,
    variant,
    false, // identity (a Range, or a client that does not take gzip)
  );
  return { response: new Response(body, { status: range ? 206 : 200, headers }), done };
}

/**
 * The gzip variant of a whole JSON catalog object: the relay (stall bounds, slot) as for identity,
 * its bytes gzipped as they stream; the record counts the bytes on the wire.
 */
function gzipAnswer(
  meta: ObjectMeta,
  upstreamBody: ReadableStream<Uint8Array>,
  ctx: {
    length: number;
    variant: Variant;
    upstream: AbortController;
    slot: StreamSlot;
    options: ServeObjectOptions;
  },
): ObjectAnswer {
  const { length, variant, upstream, slot, options } = ctx;
  let resolveDone!: (r: { bytes: number; failure?: RelayOutcome }) => void;
  const done = new Promise<{ bytes: number; failure?: RelayOutcome }>((r) => resolveDone = r);
  let outcome: RelayOutcome | undefined;
  const relayed = relay(upstreamBody, {
    expectedBytes: length,
    upstreamIdleMs: options.upstreamIdleMs,
    writeIdleMs: options.writeIdleMs,
    abortUpstream: () => upstream.abort(),
    // The compressor, not Deno.serve, takes the relay's chunks: they must stay intact.
    freeTakenChunks: false,
    onEnd: (result) => {
      outcome = result.outcome;
      slot.release();
      options.events?.ended?.({ outcome: result.outcome, bytes: result.bytes });
    },
  });
  const body = gzipBody(relayed, {
    outcome: () => outcome,
    onEnd: ({ bytes, early }) => {
      if (!early) return resolveDone({ bytes });
      const failure = early === "client_abort" || outcome === undefined || outcome === "complete"
        ? "client_abort"
        : outcome;
      resolveDone({ bytes, failure });
    },
  });
  const headers = shaped(
    objectHeaders(presented(meta, variant), { length }),
    meta,
    variant,
    true,
  );
  return { response: new Response(body, { status: 200, headers }), done };
}
