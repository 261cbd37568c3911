/**
 * The response headers of an object: the contract's fixed allowlist (docs/image-proxy.md#objects),
 * filled from the stored object's metadata. Nothing else storage returns (`x-amz-*`, user metadata,
 * server names) is forwarded.
 *
 * @module
 */
import type { ObjectMeta } from "../store/store.ts";
import { formatHttpDate } from "./http_date.ts";

/** Every header an object response may carry besides `X-Request-ID`, lower-case. */
export const OBJECT_HEADERS = [
  "content-type",
  "content-length",
  "content-range",
  "accept-ranges",
  "etag",
  "last-modified",
  "cache-control",
  "content-disposition",
  "content-encoding",
  "expires",
  "vary",
] as const;

function set(headers: Headers, name: string, value: string | undefined) {
  if (value !== undefined && value !== "") headers.set(name, value);
}

/**
 * Headers of a 200, 206 or HEAD answer.
 *
 * @example Usage
 * ```ts
 * import { objectHeaders } from "./headers.ts";
 * const h = objectHeaders({ size: 10, etag: '"a"' }, { length: 10 });
 * h.get("accept-ranges"); // "bytes"
 * ```
 */
export function objectHeaders(
  meta: ObjectMeta,
  body: { length: number; contentRange?: string },
): Headers {
  const headers = new Headers();
  set(headers, "content-type", meta.contentType);
  headers.set("content-length", String(body.length));
  set(headers, "content-range", body.contentRange);
  headers.set("accept-ranges", "bytes");
  set(headers, "etag", meta.etag);
  set(headers, "last-modified", meta.lastModified && formatHttpDate(meta.lastModified));
  set(headers, "cache-control", meta.cacheControl);
  set(headers, "content-disposition", meta.contentDisposition);
  set(headers, "content-encoding", meta.contentEncoding);
  set(headers, "expires", meta.expires);
  return headers;
}

/**
 * Headers of a 304 (RFC 9110 §15.4.5): the validators and caching fields a 200 would carry,
 * `Last-Modified` only when there is no `ETag`, and no content metadata.
 *
 * @example Usage
 * ```ts
 * import { notModifiedHeaders } from "./headers.ts";
 * notModifiedHeaders({ size: 10, etag: '"a"' }).has("content-length"); // false
 * ```
 */
export function notModifiedHeaders(meta: ObjectMeta): Headers {
  const headers = new Headers();
  set(headers, "etag", meta.etag);
  if (meta.etag === undefined) {
    set(headers, "last-modified", meta.lastModified && formatHttpDate(meta.lastModified));
  }
  set(headers, "cache-control", meta.cacheControl);
  set(headers, "expires", meta.expires);
  return headers;
}
