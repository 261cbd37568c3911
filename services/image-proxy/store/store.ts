/**
 * What the proxy needs from object storage: metadata of an object and a (ranged) read of one
 * version of it. `S3Store` implements it over `@aws-sdk/client-s3`.
 *
 * @module
 */

/** Metadata of one stored object; header values as storage returned them. */
export interface ObjectMeta {
  size: number;
  /** Quoted entity tag. */
  etag?: string;
  lastModified?: Date;
  contentType?: string;
  cacheControl?: string;
  contentDisposition?: string;
  contentEncoding?: string;
  /** `Expires` exactly as stored. */
  expires?: string;
}

/** A read in progress: the version's metadata and its bytes. */
export interface ObjectRead {
  meta: ObjectMeta;
  body: ReadableStream<Uint8Array>;
}

/** Options of {@linkcode ObjectStore.get}. */
export interface GetOptions {
  /** Inclusive byte range. */
  range?: { start: number; end: number };
  /** Read only this version: storage must answer 412 (or an ETag that differs is refused). */
  ifMatch?: string;
  signal?: AbortSignal;
}

/** Read access to the mirror's objects. Methods throw `StoreError`. */
export interface ObjectStore {
  head(key: string, options?: { signal?: AbortSignal }): Promise<ObjectMeta>;
  get(key: string, options?: GetOptions): Promise<ObjectRead>;
}

/** One finished storage request, for metrics. */
export interface StoreEvent {
  operation: "GetObject" | "HeadObject";
  outcome: "success" | "error";
  errorKind?: string;
  durationS: number;
  retries: number;
  /** Which store, when a secondary is configured. */
  store?: "primary" | "secondary";
}
