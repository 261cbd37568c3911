/**
 * Test support for the in-process handler tests: an in-memory {@linkcode ObjectStore} that keeps
 * the contract S3 gives (ranges, If-Match answered as `changed`, `StoreError` codes), with knobs
 * to fail, stall or replace objects at chosen moments.
 *
 * @module
 */
import { createLogger, type Logger } from "@svc/shared/log";
import { StoreError, type StoreErrorCode } from "./store/errors.ts";
import type { GetOptions, ObjectMeta, ObjectRead, ObjectStore } from "./store/store.ts";

/** A stored object of the memory store. */
export interface MemoryObject {
  body: Uint8Array;
  meta?: Partial<Omit<ObjectMeta, "size">>;
}

/** The memory store and its knobs. */
export interface MemoryStore extends ObjectStore {
  objects: Map<string, MemoryObject>;
  /** Storage requests seen, e.g. `["head k", "get k"]`. */
  calls: string[];
  /** The next requests fail with this code (one entry per request). */
  failures: StoreErrorCode[];
  /** Runs between a `head` and the following `get` (e.g. to replace the object). */
  beforeGet?: (key: string) => void;
  /** Bodies stall (never end) after this many bytes. */
  stallAfter?: number;
}

let etagCounter = 0;

/** An object with a fresh ETag and a Last-Modified of 2025-08-24 13:00:00 GMT. */
export function object(body: string | Uint8Array, meta: MemoryObject["meta"] = {}): MemoryObject {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  return {
    body: bytes,
    meta: {
      etag: `"etag-${++etagCounter}"`,
      lastModified: new Date(Date.UTC(2025, 7, 24, 13, 0, 0)),
      contentType: "application/octet-stream",
      ...meta,
    },
  };
}

/**
 * Creates a memory store.
 *
 * @example Usage
 * ```ts
 * import { memoryStore, object } from "./_test_support.ts";
 * const store = memoryStore({ "p/a": object("hello") });
 * (await store.head("p/a")).size; // 5
 * ```
 */
export function memoryStore(initial: Record<string, MemoryObject> = {}): MemoryStore {
  const store: MemoryStore = {
    objects: new Map(Object.entries(initial)),
    calls: [],
    failures: [],
    head(key) {
      store.calls.push(`head ${key}`);
      return Promise.resolve(metaOf(key));
    },
    get(key, options: GetOptions = {}) {
      store.calls.push(`get ${key}`);
      store.beforeGet?.(key);
      return Promise.resolve(read(key, options));
    },
  };
  function fail() {
    const code = store.failures.shift();
    if (code) throw new StoreError(code, `Cannot read: ${code}`);
  }
  function found(key: string): MemoryObject {
    fail();
    const obj = store.objects.get(key);
    if (!obj) throw new StoreError("not_found", "Cannot read: no such key");
    return obj;
  }
  function metaOf(key: string): ObjectMeta {
    const obj = found(key);
    return { ...obj.meta, size: obj.body.byteLength };
  }
  function read(key: string, { range, ifMatch }: GetOptions): ObjectRead {
    const obj = found(key);
    if (ifMatch !== undefined && obj.meta?.etag !== ifMatch) {
      throw new StoreError("changed", "Cannot read: precondition failed");
    }
    const bytes = range ? obj.body.subarray(range.start, range.end + 1) : obj.body;
    const stallAfter = store.stallAfter;
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent) return c.close();
        sent = true;
        if (stallAfter === undefined) return c.enqueue(bytes.slice());
        c.enqueue(bytes.slice(0, stallAfter));
        return new Promise<void>(() => {}); // never resolves: a stalled upstream
      },
    }, { highWaterMark: 0 });
    return { meta: { ...obj.meta, size: bytes.byteLength }, body };
  }
  return store;
}

/** A logger that keeps its records, parsed. */
export function recordingLogger(): { logger: Logger; records: Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = [];
  const logger = createLogger({ level: "debug", write: (l) => records.push(JSON.parse(l)) });
  return { logger, records };
}
